import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/gateway-error.ts';
import { listApplicationNotices } from '../../ledger/advice/application-notices.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';

/**
 * The staff view of the notices that an application went to manual review, for the
 * console and `depot-gateway application-notices`: GET /api/application-notices
 * (`?unsent=true`, or just `?unsent`, for those not mailed; `limit`, 1–1000, default
 * 100) lists each with its recipient, the address (null: none known, so not mailed),
 * and when and to whom it was mailed. Read-only; registered behind staff auth.
 */
export async function registerApplicationNoticeRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  app.get<{ Querystring: { unsent?: string; limit?: string } }>('/api/application-notices', async (request) => {
    const { unsent, limit } = request.query;
    if (unsent !== undefined && unsent !== '' && unsent !== 'true' && unsent !== 'false') throw new GatewayError('REQUEST_INVALID', 'unsent is true or false.');
    const notices = await listApplicationNotices(deps.db, { unsent: unsent === '' || unsent === 'true', limit: noticeLimit(limit) });
    return { notices };
  });
}

/** How many notices a list gives: 100 unless asked, 1 to 1000. */
export function noticeLimit(value: string | undefined): number {
  const limit = value === undefined ? 100 : Number(value);
  if (!/^\d+$/.test(value ?? '100') || !Number.isInteger(limit) || limit < 1 || limit > 1000) throw new GatewayError('REQUEST_INVALID', 'limit is a whole number from 1 to 1000.');
  return limit;
}
