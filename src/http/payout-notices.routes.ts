import type { FastifyInstance } from 'fastify';
import { listPayoutNotices } from '../pipeline/payout-notices.job.ts';
import type { HttpServerOptions } from './server.ts';

/**
 * The staff view of payout notices, for the console and `depot-gateway
 * payout-notices`: GET /api/payout-notices (`?unsent=true` for those not mailed yet)
 * lists each insurance whose payout can begin, its first installment, and when and to
 * whom the notice was mailed. Read-only; registered behind staff auth.
 */
export async function registerPayoutNoticeRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  app.get<{ Querystring: { unsent?: string } }>('/api/payout-notices', async (request) => {
    const notices = await listPayoutNotices(deps.db, { unsent: request.query.unsent === 'true' });
    return { notices };
  });
}
