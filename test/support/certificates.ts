/**
 * Certificates for the TLS and signature tests, made with the openssl CLI in a temp
 * folder: a CA, a server certificate for 127.0.0.1 signed by it, client certificates
 * signed by it, and a self-signed signing certificate. Removed with `remove()`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CertificatePaths {
  readonly cert: string;
  readonly key: string;
}

export interface TestCertificates {
  readonly dir: string;
  readonly ca: CertificatePaths;
  readonly server: CertificatePaths;
  /** A client certificate with the given common name, signed by the CA. */
  client(commonName: string): Promise<CertificatePaths>;
  /** A self-signed certificate for XML signatures. */
  signing(commonName: string): Promise<CertificatePaths>;
  remove(): Promise<void>;
}

export async function makeTestCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'dg-certs-'));
  const paths = (name: string): CertificatePaths => ({ cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) });
  const ca = paths('ca');
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=depot-gateway test CA', '-keyout', ca.key, '-out', ca.cert]);
  const issue = async (name: string, commonName: string, extensions: string[]) => {
    const out = paths(name);
    const csr = join(dir, `${name}.csr`);
    await run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${commonName}`, '-keyout', out.key, '-out', csr]);
    const extFile = join(dir, `${name}.ext`);
    await writeFile(extFile, extensions.join('\n') + '\n');
    await run('openssl', ['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '2', '-extfile', extFile, '-out', out.cert]);
    return out;
  };
  const server = await issue('server', '127.0.0.1', ['subjectAltName=IP:127.0.0.1,DNS:localhost', 'extendedKeyUsage=serverAuth']);
  return {
    dir,
    ca,
    server,
    client: (commonName) => issue(`client-${commonName}`, commonName, ['extendedKeyUsage=clientAuth']),
    async signing(commonName) {
      const out = paths(`signing-${commonName}`);
      await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${commonName}`, '-keyout', out.key, '-out', out.cert]);
      return out;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
