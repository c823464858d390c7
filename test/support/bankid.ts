import { readFile } from 'node:fs/promises';
import { hashSecret } from '../../src/config/secret-hash.ts';
import { startLocalBankIdServer, type LocalBankIdServer } from '../../src/bankid/local-bankid-server.ts';
import { makeTestCertificates, type TestCertificates } from './certificates.ts';

/**
 * The local BankID server on loopback with TLS both ways (certificates of a test CA),
 * for the withdrawal and signing tests, and the gateway settings that reach it.
 */
export interface TestBankId {
  readonly server: LocalBankIdServer;
  readonly certificates: TestCertificates;
  /** The gateway's `bankid` setting: the server's address, a relying-party certificate of the test CA. */
  settings(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startTestBankId(options: { readonly now?: () => number } = {}): Promise<TestBankId> {
  const certificates = await makeTestCertificates();
  const server = await startLocalBankIdServer({
    tls: { cert: await readFile(certificates.server.cert), key: await readFile(certificates.server.key), clientCa: await readFile(certificates.ca.cert) },
    ...(options.now ? { now: options.now } : {}),
  });
  return {
    server,
    certificates,
    async settings() {
      const relyingParty = await certificates.client('depot-gateway-rp');
      return { url: server.url, certPath: relyingParty.cert, keyPath: relyingParty.key, caPath: certificates.ca.cert, timeoutMs: 5_000 };
    },
    async close() {
      await server.close();
      await certificates.remove();
    },
  };
}

/** The gateway's `api` setting for the demo advisor firm (client `firm`, secret `firm-secret`). */
export async function advisorFirmApi(): Promise<Record<string, unknown>> {
  return { tokenRequestsPerMinute: 1000, clients: [{ id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: await hashSecret('firm-secret') }] };
}
