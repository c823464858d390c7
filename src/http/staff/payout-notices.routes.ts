import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/gateway-error.ts';
import { listPayoutNotices, payoutNoticeLetter } from '../../calendar/payout-notices.job.ts';
import type { HttpServerOptions } from '../server-options.ts';

/**
 * The staff view of payout notices, for the console and `depot-gateway
 * payout-notices`: GET /api/payout-notices lists each insurance whose payout can begin,
 * its first installment, how the insured was told and when customer service got the
 * copy (`?unsent=true`: copies not mailed yet; `?letters=true`: the print queue, the
 * insured told by letter); GET /api/payout-notices/<insurance>/letter is that letter, a
 * PDF. Read-only; registered behind staff auth.
 */
export async function registerPayoutNoticeRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  app.get<{ Querystring: { unsent?: string; letters?: string } }>('/api/payout-notices', async (request) => {
    const notices = await listPayoutNotices(deps.db, { unsent: request.query.unsent === 'true', letters: request.query.letters === 'true' });
    return { notices };
  });
  app.get<{ Params: { insurance: string } }>('/api/payout-notices/:insurance/letter', async (request, reply) => {
    const letter = await payoutNoticeLetter(deps.db, request.params.insurance);
    if (!letter) throw new GatewayError('RESOURCE_NOT_FOUND', `No letter to the insured of ${request.params.insurance}: its notice was mailed, not needed, or not made yet.`);
    return reply.type('application/pdf').header('content-disposition', `attachment; filename="payout-notice-${request.params.insurance.replace(/[^0-9A-Za-z-]/g, '_')}.pdf"`).send(letter);
  });
}
