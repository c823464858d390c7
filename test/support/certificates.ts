/**
 * Certificates for the TLS and signature tests in a temp folder, from the local
 * certificate authority (src/bankid/local-certificate-authority.ts, the openssl CLI): a
 * CA, a server certificate for 127.0.0.1 signed by it, client certificates signed by it,
 * and self-signed signing certificates. Removed with `remove()`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalCertificateAuthority, type CertificatePaths } from '../../src/bankid/local-certificate-authority.ts';

export type { CertificatePaths };

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
  const authority = await createLocalCertificateAuthority(dir, { commonName: 'depot-gateway test CA', days: 2 });
  const server = await authority.issue('server', '127.0.0.1', 'server');
  return {
    dir,
    ca: authority.ca,
    server,
    client: (commonName) => authority.issue(`client-${commonName}`, commonName, 'client'),
    signing: (commonName) => authority.selfSigned(`signing-${commonName}`, commonName),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
