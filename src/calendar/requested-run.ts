import type { Quarter } from '../core/banking-calendar.ts';
import { GatewayError } from '../core/gateway-error.ts';
import type { YearMonth } from '../core/payout-plan.ts';
import type { Database } from '../ledger/database.ts';
import { deliveryTargetsOf } from '../ledger/messages/outgoing-documents.repository.ts';
import { makeRun, runDebitRun, type RunDeps, type RunOutcome } from './debit-run.ts';
import { runPayoutRun } from './payout-run.ts';

/**
 * A debit or payout run asked for by staff rather than by the calendar: `depot-gateway
 * debit-run` / `payout-run` in-process, or POST /api/debit-runs and /api/payout-runs on
 * a running gateway (which the commands use when one answers, since it may hold the
 * embedded database). Both ways read the request with the same checks and make the run
 * with the same functions as the calendar job (runDebitRun, runPayoutRun): a run key
 * and custodian give at most one document, so a repeat — or twenty at once — makes
 * nothing new. A dry run computes the documents in a transaction and stores nothing.
 */
export type RunRequest =
  | { readonly kind: 'debit'; readonly year: number; readonly quarter: Quarter; readonly dryRun: boolean }
  | { readonly kind: 'payout'; readonly month: YearMonth; readonly dryRun: boolean };

/** `{"year": 2026, "quarter": 3, "dryRun": false}` (dryRun optional), or REQUEST_INVALID naming what is wrong. */
export function readDebitRunRequest(body: unknown): RunRequest {
  const value = (body ?? {}) as Record<string, unknown>;
  const { year, quarter } = value;
  const problems: string[] = [];
  if (typeof year !== 'number' || !Number.isInteger(year) || year < 1000 || year > 9999) problems.push('year: the year of the quarter covered, YYYY');
  if (quarter !== 1 && quarter !== 2 && quarter !== 3 && quarter !== 4) problems.push('quarter: 1, 2, 3 or 4 (4 is debited in February of the next year)');
  const dryRun = readDryRun(value, problems);
  if (problems.length > 0) throw new GatewayError('REQUEST_INVALID', problems.join('; '));
  return { kind: 'debit', year: year as number, quarter: quarter as Quarter, dryRun };
}

/** `{"month": "2026-12", "dryRun": true}` (dryRun optional), or REQUEST_INVALID naming what is wrong. */
export function readPayoutRunRequest(body: unknown): RunRequest {
  const value = (body ?? {}) as Record<string, unknown>;
  const { month } = value;
  const problems: string[] = [];
  if (typeof month !== 'string' || !/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) problems.push('month: the payout month, YYYY-MM');
  const dryRun = readDryRun(value, problems);
  if (problems.length > 0) throw new GatewayError('REQUEST_INVALID', problems.join('; '));
  return { kind: 'payout', month: month as string, dryRun };
}

function readDryRun(value: Record<string, unknown>, problems: string[]): boolean {
  if (value.dryRun === undefined) return false;
  if (typeof value.dryRun !== 'boolean') problems.push('dryRun: true or false');
  return value.dryRun === true;
}

/**
 * Makes the run in a transaction of its own and hands its documents to the deliver
 * stage once committed (makeRun); a dry run only computes them. `delivered` says which
 * documents had been delivered by the time it returned, with where.
 */
export async function makeRequestedRun(db: Database, deps: RunDeps, request: RunRequest, now: Date): Promise<RunOutcome> {
  const options = { dryRun: request.dryRun };
  const run = request.kind === 'debit'
    ? (tx: Parameters<typeof runDebitRun>[0]) => runDebitRun(tx, deps, { year: request.year, quarter: request.quarter }, now, options)
    : (tx: Parameters<typeof runPayoutRun>[0]) => runPayoutRun(tx, deps, request.month, now, options);
  if (request.dryRun) return { ...(await db.transaction(run)), delivered: [] };
  return makeRun(db, deps, run);
}

/**
 * Waits up to `withinMs` for the run's documents that were handed to another process's
 * deliver stage (a running gateway's worker) to be delivered, looking every 100 ms; gives
 * the outcome with what was delivered meanwhile. What is still undelivered stays with
 * the deliver stage, which retries it.
 */
export async function awaitRunDeliveries(db: Database, outcome: RunOutcome, withinMs: number): Promise<RunOutcome> {
  const deadline = Date.now() + withinMs;
  let waiting = outcome.undelivered;
  const delivered = [...outcome.delivered];
  while (waiting.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const targets = await deliveryTargetsOf(db, waiting);
    for (const [documentId, target] of targets) delivered.push({ documentId, target });
    waiting = waiting.filter((documentId) => !targets.has(documentId));
  }
  return { ...outcome, undelivered: waiting, delivered };
}
