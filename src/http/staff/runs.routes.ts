import type { FastifyInstance, FastifyReply } from 'fastify';
import { runDepsFrom } from '../../calendar/debit-run.ts';
import { awaitRunDeliveries, makeRequestedRun, readDebitRunRequest, readPayoutRunRequest, type RunRequest } from '../../calendar/requested-run.ts';
import type { HttpServerOptions } from '../server-options.ts';

/**
 * Debit and payout runs asked for by staff on a running gateway: POST /api/debit-runs
 * `{"year": 2026, "quarter": 3, "dryRun": false}` and POST /api/payout-runs
 * `{"month": "2026-12", "dryRun": true}`, what `depot-gateway debit-run` and `payout-run`
 * send when a gateway answers (it may hold the embedded database, which a second process
 * cannot open). The run is made as the calendar makes it (src/calendar/requested-run.ts):
 * answered 201 when this request made a document or a held-only row for some custodian,
 * 200 when it made nothing new (a repeat; a dry run). A run's documents go to this
 * gateway's deliver stage; the answer waits up to RUN_DELIVERY_WAIT_MS for them, and
 * names in `undelivered` what the deliver stage has not delivered by then (it retries).
 */
export const RUN_DELIVERY_WAIT_MS = 10_000;

export async function registerRunRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  const runDeps = runDepsFrom(options.config, deps.scheduler, options.log);
  const run = async (request: RunRequest, reply: FastifyReply) => {
    const made = await makeRequestedRun(deps.db, runDeps, request, deps.clock());
    if (request.dryRun) return reply.code(200).send(made);
    const outcome = await awaitRunDeliveries(deps.db, made, RUN_DELIVERY_WAIT_MS);
    return reply.code(outcome.created.length > 0 ? 201 : 200).send(outcome);
  };
  app.post<{ Body: unknown }>('/api/debit-runs', async (request, reply) => run(readDebitRunRequest(request.body), reply));
  app.post<{ Body: unknown }>('/api/payout-runs', async (request, reply) => run(readPayoutRunRequest(request.body), reply));
}
