import type { FastifyInstance } from 'fastify';
import { listSetAsideMail, setAsideLimit } from '../../ledger/messages/mail-set-aside.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';

/**
 * The staff view of mail the mailbox channel set aside (unknown sender, no XML
 * attachment, too large …), for the console and `depot-gateway mail-set-aside`:
 * GET /api/mail/set-aside?limit=N lists the newest first (default 100, at most
 * 1,000), with the reason and the mailbox folder each mail was moved to. Read-only;
 * registered behind staff auth.
 */
export async function registerMailSetAsideRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  app.get<{ Querystring: { limit?: string } }>('/api/mail/set-aside', async (request) => {
    return { mails: await listSetAsideMail(deps.db, setAsideLimit(request.query.limit)) };
  });
}
