import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/gateway-error.ts';
import type { StoredWithdrawalStatus } from '../../core/withdrawal-request.rules.ts';
import { findWithdrawalRequest, listWithdrawalRequests } from '../../ledger/advice/withdrawal-requests.repository.ts';
import { runDepsFrom } from '../../calendar/debit-run.ts';
import { decideWithdrawal } from '../../requests/withdrawal-order.ts';
import { registerRequestForCustomer, type StaffRequestChannel } from '../../requests/withdrawal-request.ts';
import { readApplicationLimit } from './application-review.routes.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { staffUserOf } from './staff-user.ts';

export const WITHDRAWAL_STATUSES: readonly StoredWithdrawalStatus[] = ['requested', 'approved', 'signed', 'rejected', 'ordered'];

/**
 * The insurer's approval of withdrawal requests through the staff API: the list (by
 * status), one request with its history, a request registered on the policyholder's
 * behalf (from the insurer's e-service or a paper form: POST /api/withdrawal-requests
 * with the channel and its reference), and approve or reject with a reason, recorded
 * in the request's history under the staff user (the audit). An approval of a request
 * every signatory has signed orders it at once (withdrawal-order.ts).
 */
export async function registerWithdrawalReviewRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  const runDeps = runDepsFrom(options.config, deps.scheduler, options.log);

  app.get<{ Querystring: { status?: string; limit?: string } }>('/api/withdrawal-requests', async (request) => {
    const { status } = request.query;
    if (status !== undefined && !WITHDRAWAL_STATUSES.includes(status as StoredWithdrawalStatus)) throw new GatewayError('REQUEST_INVALID', `status is one of ${WITHDRAWAL_STATUSES.join(', ')}.`);
    return listWithdrawalRequests(deps.db, status as StoredWithdrawalStatus | undefined, readApplicationLimit(request.query.limit));
  });

  app.get<{ Params: { id: string } }>('/api/withdrawal-requests/:id', async (request) => {
    const found = await findWithdrawalRequest(deps.db, request.params.id);
    if (!found) throw new GatewayError('RESOURCE_NOT_FOUND', `No withdrawal request ${request.params.id}.`);
    return found;
  });

  app.post<{ Body: unknown }>('/api/withdrawal-requests', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const text = (name: string) => (typeof body[name] === 'string' ? body[name] : '');
    const requestId = await registerRequestForCustomer(deps.db, {
      insuranceNumber: text('insuranceNumber'), amount: text('amount'), accountNumber: text('accountNumber'),
      channel: text('channel') as StaffRequestChannel, reference: text('reference'), by: staffUserOf(request), now: deps.clock(), yieldTaxRates: runDeps.yieldTaxRates,
    });
    return reply.code(201).header('location', `/api/withdrawal-requests/${requestId}`).send(await findWithdrawalRequest(deps.db, requestId));
  });

  for (const [action, decision] of [['approve', 'approved'], ['reject', 'rejected']] as const) {
    app.post<{ Params: { id: string }; Body: unknown }>(`/api/withdrawal-requests/:id/${action}`, async (request) => {
      const reason = (request.body as { reason?: unknown } | null)?.reason;
      if (typeof reason !== 'string' || reason.trim() === '') throw new GatewayError('REQUEST_INVALID', 'Give the reason for the decision: {"reason": "…"}.');
      const status = await decideWithdrawal(deps.db, runDeps, request.params.id, decision, staffUserOf(request), reason.trim(), deps.clock());
      if (!status) throw new GatewayError('RESOURCE_NOT_FOUND', notAwaitingDecision(request.params.id));
      return { requestId: request.params.id, status };
    });
  }
}

/** Why a decision found nothing to decide: no such request, or it is decided already. */
export function notAwaitingDecision(requestId: string): string {
  return `No withdrawal request ${requestId} awaits the insurer's decision.`;
}
