import { readFile } from 'node:fs/promises';
import type { GatewayConfig } from '../config/config.schema.ts';
import { ensureBankIdTestCertificates, type BankIdTestCertificates } from './bankid-test-certificates.ts';
import { startLocalBankIdPage } from './local-bankid-page.ts';
import type { LocalPerson } from './local-bankid-orders.ts';
import { startLocalBankIdServer, type LocalBankIdControl } from './local-bankid-server.ts';

/**
 * The local BankID server as the demo runs it (`bankidTestServer: true`, and
 * `depot-gateway bankid-test-server`): its RP API over mutual TLS on a loopback port,
 * with the certificates of its test CA kept in a folder (bankid-test-certificates.ts),
 * and its page on another loopback port, where a person approves or refuses orders in
 * the BankID app's stead (local-bankid-page.ts). `settings` is the gateway's `bankid`
 * setting that reaches it, so the adapter talks to it as to BankID.
 *
 * Both listen on 127.0.0.1 only, whatever the caller asks: the page lets anyone who
 * reaches it sign as anyone.
 */
export interface BankIdTestServerOptions {
  /** Where the test CA and the certificates are kept; made on first start, reused after. */
  readonly certificateDir: string;
  /** The people the page offers to sign as (the demo's). */
  readonly people: readonly LocalPerson[];
  /** The RP API's port. Default 0: any free port. */
  readonly port?: number;
  /** The page's port. Default 0: any free port. */
  readonly pagePort?: number;
}

export interface BankIdTestServer {
  /** The RP API's service root, e.g. https://127.0.0.1:43817 */
  readonly url: string;
  /** The page, e.g. http://127.0.0.1:43818/ */
  readonly pageUrl: string;
  readonly certificates: BankIdTestCertificates;
  /** The gateway's `bankid` setting that points at it. */
  readonly settings: NonNullable<GatewayConfig['bankid']>;
  /** What the page does, for tests that play the person in process. */
  readonly control: LocalBankIdControl;
  close(): Promise<void>;
}

export async function startBankIdTestServer(options: BankIdTestServerOptions): Promise<BankIdTestServer> {
  const certificates = await ensureBankIdTestCertificates(options.certificateDir);
  const server = await startLocalBankIdServer({
    tls: { cert: await readFile(certificates.server.cert), key: await readFile(certificates.server.key), clientCa: await readFile(certificates.ca.cert) },
    host: '127.0.0.1',
    port: options.port ?? 0,
  });
  const page = await startLocalBankIdPage({ control: server.control, people: options.people, port: options.pagePort ?? 0 }).catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  return {
    url: server.url,
    pageUrl: page.url,
    certificates,
    settings: { url: server.url, certPath: certificates.relyingParty.cert, keyPath: certificates.relyingParty.key, caPath: certificates.ca.cert, timeoutMs: 10_000 },
    control: server.control,
    async close() {
      await page.close();
      await server.close();
    },
  };
}

