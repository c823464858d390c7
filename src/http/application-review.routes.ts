import type { FastifyInstance } from 'fastify';
import { stockholmDate } from '../core/calendar-date.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { decideApplication, listApplications, type ApplicationStatus, type ReviewDecision } from '../ledger/applications.repository.ts';
import type { HttpServerOptions } from './server.ts';
import { staffUserOf } from './staff-user.ts';

const STATUSES: readonly ApplicationStatus[] = ['received', 'under-review', 'approved', 'rejected', 'issued'];

/**
 * Staff review of applications the rules sent to a person — individual insurances and
 * employers' pension plans alike (`kind`) — the list (by status), and approve or reject
 * with a reason. An approval issues in the same transaction: the insurance, or the
 * plan's agreement with its employments and insurances; the decision is recorded in
 * the status history under the staff user.
 */
export async function registerApplicationReviewRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;

  app.get<{ Querystring: { status?: string; limit?: string } }>('/api/applications', async (request) => {
    const status = request.query.status;
    if (status !== undefined && !STATUSES.includes(status as ApplicationStatus)) throw new GatewayError('REQUEST_INVALID', `status is one of ${STATUSES.join(', ')}.`);
    const limit = request.query.limit === undefined ? 100 : Number(request.query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new GatewayError('REQUEST_INVALID', 'limit is a whole number from 1 to 1000.');
    return listApplications(deps.db, status as ApplicationStatus | undefined, limit);
  });

  for (const decision of ['approve', 'reject'] as const satisfies readonly ReviewDecision[]) {
    app.post<{ Params: { id: string }; Body: unknown }>(`/api/applications/:id/${decision}`, async (request) => {
      const reason = (request.body as { reason?: unknown } | null)?.reason;
      if (typeof reason !== 'string' || reason.trim() === '') throw new GatewayError('REQUEST_INVALID', 'Give the reason for the decision: {"reason": "…"}.');
      const now = deps.clock();
      const status = await decideApplication(deps.db, request.params.id, decision, staffUserOf(request), reason.trim(), now, stockholmDate(now));
      if (!status) throw new GatewayError('RESOURCE_NOT_FOUND', `No application ${request.params.id} is under review.`);
      return { applicationId: request.params.id, status };
    });
  }
}
