import type { FastifyInstance } from 'fastify';
import { listChannelHealth } from '../../ledger/messages/channel-health.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';

/**
 * The staff view of the counterparties' servers and the mailbox, for the console and
 * `depot-gateway channels`: GET /api/channels lists each with `up`, `down` (and why)
 * or `unknown` (no report for five minutes: the watch role is not running). Behind
 * staff auth: the names of counterparties and their servers' errors are not public.
 */
export async function registerChannelHealthRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  app.get('/api/channels', async () => ({ channels: await listChannelHealth(deps.db, deps.clock()) }));
}
