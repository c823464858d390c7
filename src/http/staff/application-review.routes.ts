import type { FastifyInstance } from 'fastify';
import { stockholmDate } from '../../core/calendar-date.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import {
  decideApplication, findApplication, listApplications, type ApplicationStatus, type ApplicationSummary, type ReviewDecision,
} from '../../ledger/advice/applications.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { staffUserOf } from './staff-user.ts';

export const APPLICATION_STATUSES: readonly ApplicationStatus[] = ['received', 'awaiting-signature', 'under-review', 'approved', 'rejected', 'issued', 'expired'];
export const APPLICATION_KINDS: readonly ApplicationSummary['kind'][] = ['insurance', 'plan'];

/**
 * Staff review of applications the rules sent to a person — individual insurances and
 * employers' pension plans alike (`kind`) — the list (by status and kind: those awaiting
 * signature and expired unsigned too), one application with its status history and its
 * signatories, and approve or reject with a reason (only one under review). An
 * approval issues in the same transaction: the insurance, or the plan's agreement with
 * its employments and insurances; the decision is recorded in the status history under
 * the staff user.
 */
export async function registerApplicationReviewRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;

  app.get<{ Querystring: { status?: string; kind?: string; limit?: string } }>('/api/applications', async (request) => {
    const { status, kind } = request.query;
    if (status !== undefined && !APPLICATION_STATUSES.includes(status as ApplicationStatus)) throw new GatewayError('REQUEST_INVALID', `status is one of ${APPLICATION_STATUSES.join(', ')}.`);
    if (kind !== undefined && !APPLICATION_KINDS.includes(kind as ApplicationSummary['kind'])) throw new GatewayError('REQUEST_INVALID', `kind is one of ${APPLICATION_KINDS.join(', ')}.`);
    const filter = { status: status as ApplicationStatus | undefined, kind: kind as ApplicationSummary['kind'] | undefined };
    return listApplications(deps.db, filter, readApplicationLimit(request.query.limit));
  });

  app.get<{ Params: { id: string } }>('/api/applications/:id', async (request) => {
    const application = await findApplication(deps.db, request.params.id);
    if (!application) throw new GatewayError('RESOURCE_NOT_FOUND', `No application ${request.params.id}.`);
    return application;
  });

  for (const decision of ['approve', 'reject'] as const satisfies readonly ReviewDecision[]) {
    app.post<{ Params: { id: string }; Body: unknown }>(`/api/applications/:id/${decision}`, async (request) => {
      const reason = (request.body as { reason?: unknown } | null)?.reason;
      if (typeof reason !== 'string' || reason.trim() === '') throw new GatewayError('REQUEST_INVALID', 'Give the reason for the decision: {"reason": "…"}.');
      const now = deps.clock();
      const status = await decideApplication(deps.db, request.params.id, decision, staffUserOf(request), reason.trim(), now, stockholmDate(now));
      if (!status) throw new GatewayError('RESOURCE_NOT_FOUND', notUnderReview(request.params.id));
      return { applicationId: request.params.id, status };
    });
  }
}

/** How many applications a list gives: 100 unless asked, 1 to 1000. */
export function readApplicationLimit(value: string | undefined): number {
  const limit = value === undefined ? 100 : Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new GatewayError('REQUEST_INVALID', 'limit is a whole number from 1 to 1000.');
  return limit;
}

/** Why a decision found nothing to decide: no such application, or it is decided already. */
export function notUnderReview(applicationId: string): string {
  return `No application ${applicationId} is under review.`;
}
