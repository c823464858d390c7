import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GatewayError } from '../core/gateway-error.ts';

/**
 * A certificate authority of our own in a folder, for the local BankID server's mutual
 * TLS (the demo's test server and the tests) and for the TLS and signature tests: a CA,
 * server certificates for 127.0.0.1 and localhost, client certificates, self-signed
 * signing certificates. Made with the openssl command: Node's crypto reads X.509
 * certificates but cannot make them. Each certificate is `<name>.pem` with its key in
 * `<name>.key`; serial numbers are random, so no serial file is shared between
 * certificates issued at the same time.
 */
export interface CertificatePaths {
  readonly cert: string;
  readonly key: string;
}

/** `server`: for IP 127.0.0.1 and DNS localhost, serverAuth; `client`: clientAuth. */
export type CertificateUse = 'server' | 'client';

export interface LocalCertificateAuthority {
  readonly dir: string;
  readonly ca: CertificatePaths;
  /** A certificate with this common name, signed by the CA. */
  issue(name: string, commonName: string, use: CertificateUse): Promise<CertificatePaths>;
  /** A self-signed certificate, e.g. for XML signatures. */
  selfSigned(name: string, commonName: string): Promise<CertificatePaths>;
}

export interface CertificateAuthorityOptions {
  readonly commonName: string;
  /** How long the CA and every certificate it issues are valid. */
  readonly days: number;
}

const EXTENSIONS: Record<CertificateUse, string[]> = {
  server: ['subjectAltName=IP:127.0.0.1,DNS:localhost', 'extendedKeyUsage=serverAuth'],
  client: ['extendedKeyUsage=clientAuth'],
};

/** Makes a new CA in `dir` (an existing folder); its certificates go there too. */
export async function createLocalCertificateAuthority(dir: string, options: CertificateAuthorityOptions): Promise<LocalCertificateAuthority> {
  const paths = (name: string): CertificatePaths => ({ cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) });
  const days = String(options.days);
  const selfSigned = async (name: string, commonName: string) => {
    const out = paths(name);
    await openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', days, '-subj', `/CN=${commonName}`, '-set_serial', randomSerial(), '-keyout', out.key, '-out', out.cert]);
    return out;
  };
  const ca = await selfSigned('ca', options.commonName);
  return {
    dir,
    ca,
    selfSigned,
    async issue(name, commonName, use) {
      const out = paths(name);
      const request = join(dir, `${name}.csr`);
      const extensions = join(dir, `${name}.ext`);
      await openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${commonName}`, '-keyout', out.key, '-out', request]);
      await writeFile(extensions, `${EXTENSIONS[use].join('\n')}\n`);
      await openssl(['x509', '-req', '-in', request, '-CA', ca.cert, '-CAkey', ca.key, '-set_serial', randomSerial(), '-days', days, '-extfile', extensions, '-out', out.cert]);
      await Promise.all([rm(request, { force: true }), rm(extensions, { force: true })]);
      return out;
    },
  };
}

const run = promisify(execFile);

async function openssl(args: readonly string[]): Promise<void> {
  try {
    await run('openssl', args);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new GatewayError(
        'CONFIG_INVALID',
        'the openssl command is not installed, and the local BankID test server needs it to make its test certificates. ' +
          'Install it (Debian/Ubuntu: sudo apt-get install openssl; macOS has it), or leave bankidTestServer off.',
        { cause: error },
      );
    }
    throw new Error(`openssl ${args[0] ?? ''} failed: ${(error as { stderr?: string }).stderr?.trim() || (error as Error).message}`, { cause: error });
  }
}

/** A positive 128-bit serial in hex: the first byte below 0x80. */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return `0x${bytes.toString('hex')}`;
}
