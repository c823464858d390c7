import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createBankIdClientFromConfig } from '../../bankid/bankid-client.ts';
import type { GatewayConfig } from '../../config/config.schema.ts';
import type { Database } from '../../ledger/database.ts';
import { runDepsFrom } from '../../calendar/debit-run.ts';
import type { StageScheduler } from '../../pipeline/pipeline-deps.ts';
import { signCaseSigning, type SignCaseSigning } from '../../requests/sign-case-signing.ts';

/**
 * The one signing of the HTTP server, shared by the REST API's Sign and Collect and the
 * insurer's signing page: one BankID client (from the `bankid` settings; none without
 * them, and then both answer SIGNING_UNAVAILABLE), closed with the server.
 */
export async function createSigning(
  app: FastifyInstance, config: Readonly<GatewayConfig>,
  deps: { readonly db: Database; readonly clock: () => Date; readonly scheduler?: StageScheduler; readonly log: Logger },
): Promise<SignCaseSigning> {
  const bankid = config.bankid ? await createBankIdClientFromConfig(config.bankid) : undefined;
  app.addHook('onClose', async () => bankid?.close());
  const scheduler = deps.scheduler ?? { enqueue: async () => undefined, requeue: async () => undefined };
  return signCaseSigning({ db: deps.db, clock: deps.clock, bankid, runDeps: runDepsFrom(config, scheduler, deps.log), applications: { review: config.api.review } });
}

/**
 * The signing page's address in the links: `signingPage.publicUrl`, else this server's
 * own (scheme, `host`, `port`) — never the request's Host header, which the caller
 * chooses: a link made with a forged Host would send the signatory elsewhere.
 */
export function signingPageBaseUrl(config: Readonly<GatewayConfig>, app: FastifyInstance): string {
  if (config.signingPage.publicUrl) return config.signingPage.publicUrl.replace(/\/+$/, '');
  const address = app.server.address();
  const port = config.port || (address && typeof address === 'object' ? address.port : config.port);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${config.ssek.tls ? 'https' : 'http'}://${host}:${port}`;
}
