import { GatewayError } from '../core/gateway-error.ts';
import type { Sql } from '../ledger/database.ts';
import {
  findValidatedKeys, getMessage, getValidatedDocuments, listApplicable, listApplicableOfKeys, type ApplicableMessage,
} from '../ledger/messages/messages.repository.ts';
import { applyCandidates, RunCarefully, type ApplyResult, type Candidate, type Run } from './apply-candidates.ts';
import type { PipelineDeps } from './pipeline-deps.ts';

export type { ApplyResult } from './apply-candidates.ts';

/**
 * Apply: runs each document's handler inside one PostgreSQL transaction that also
 * stores the response and moves the message to its final status. A crash before the
 * commit leaves nothing behind; a retry after the commit finds the message no longer
 * `validated` and does nothing. That is how an at-least-once queue gives an
 * exactly-once effect.
 *
 * Ordering: documents with the same ordering key (the agreement) are applied in
 * arrival order whatever the number of workers. A transaction applies only keys whose
 * advisory lock it holds, each key's validated documents oldest first, and stops a key
 * before a document whose sender still has an earlier document in validation (its key
 * is not yet known). A one-message job whose key is locked, or whose document waits
 * behind an unfinished one, steps aside (WAITING_FOR_PREDECESSOR) and is retried in a
 * moment without counting an attempt; by then its document has usually been applied
 * by the lock holder, which drains its key's backlog batch after batch.
 *
 * This is the apply queue's stage: for messages already `validated` in the message
 * store. A worker process applies what its own validation jobs validated in its apply
 * loop (apply-loop.ts), and hands here only what that loop could not apply. The
 * transaction's body — handlers in waves, the careful re-run — is apply-candidates.ts.
 */

/** Documents of one key applied per transaction. */
const MAX_BATCH = 50;
/** Transactions one job runs while its key has a backlog, before it lets others in. */
const MAX_BATCHES_PER_JOB = 20;
/** Documents of several keys applied in one transaction by a batch job. */
const MAX_CROSS_KEY_BATCH = 200;

/**
 * Applies a job's messages. One message: its key's drain (applyMessage). Several (a
 * batch job): one transaction over every key of theirs whose lock is free, applying
 * those keys' applicable documents. Gives the messages not applied by this run, by
 * id, with why: their own error, or WAITING_FOR_PREDECESSOR when their key was busy
 * or an earlier document held them back.
 */
export async function applyMessages(deps: PipelineDeps, messageIds: readonly string[]): Promise<Map<string, unknown>> {
  const [only] = messageIds;
  if (messageIds.length === 1 && only !== undefined) {
    const failures = new Map<string, unknown>();
    await applyMessage(deps, only).catch((error: unknown) => failures.set(only, error));
    return failures;
  }
  const pending = await findValidatedKeys(deps.db, messageIds);
  if (pending.size === 0) return new Map();
  const run = await applyInTransaction(deps, async (tx) => {
    const { rows } = await tx.query<{ key: string }>(
      'SELECT key FROM unnest($1::text[]) AS k(key) WHERE pg_try_advisory_xact_lock(hashtextextended(key, 0))',
      [[...new Set(pending.values())].sort()],
    );
    return listApplicableOfKeys(tx, rows.map((row) => row.key), MAX_CROSS_KEY_BATCH);
  }) ?? { results: new Map<string, ApplyResult>(), failures: new Map<string, unknown>(), applied: [], responses: new Map() };
  if (run.results.size > 0) await deps.scheduler.enqueue('deliver', [...run.results.keys()]);
  const failures = new Map<string, unknown>();
  for (const [id, key] of pending) {
    if (run.results.has(id)) continue;
    failures.set(id, run.failures.get(id) ?? new GatewayError('WAITING_FOR_PREDECESSOR', `${id} waits for an earlier document with key ${key}`));
  }
  return failures;
}

/** One message's job: the holder of its key's lock drains the key's backlog, its own document included. */
export async function applyMessage(deps: PipelineDeps, messageId: string): Promise<ApplyResult> {
  const message = await getMessage(deps.db, messageId);
  if (!message || message.status !== 'validated' || !message.orderingKey) return 'skipped';
  const key = message.orderingKey;
  // The lock holder drains the key's backlog batch by batch, so the jobs queued behind
  // it mostly find their documents applied instead of competing for the lock.
  let mine: ApplyResult | undefined;
  for (let batch = 0; batch < MAX_BATCHES_PER_JOB; batch += 1) {
    const run = await applyInTransaction(deps, async (tx) => {
      const { rows } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked', [key]);
      return rows[0]?.locked ? listApplicable(tx, key, MAX_BATCH) : undefined;
    });
    if (!run) break; // another job holds the key
    if (run.results.size > 0) await deps.scheduler.enqueue('deliver', [...run.results.keys()]);
    if (run.failures.has(messageId)) throw run.failures.get(messageId);
    mine ??= run.results.get(messageId);
    if (run.failures.size > 0 || run.results.size < MAX_BATCH || deps.stopping?.aborted) break;
  }
  if (mine) return mine;
  const latest = await getMessage(deps.db, messageId);
  if (latest?.status !== 'validated') return 'skipped'; // another job applied it meanwhile
  throw new GatewayError('WAITING_FOR_PREDECESSOR', `${messageId} waits for an earlier document with key ${key}`);
}

/**
 * Runs `select` (which takes the locks and lists the documents; undefined: nothing to
 * do) and applies what it lists, in one transaction: quickly first, carefully when a
 * handler fails.
 */
async function applyInTransaction(deps: PipelineDeps, select: (tx: Sql) => Promise<ApplicableMessage[] | undefined>): Promise<Run | undefined> {
  const now = deps.clock();
  const attempt = (careful: boolean) =>
    deps.db.transaction(async (tx) => {
      const candidates = await select(tx);
      return candidates && applyCandidates(deps, tx, await withDocuments(deps, tx, candidates), now, careful);
    });
  let run: Run | undefined;
  try {
    run = await attempt(false);
  } catch (error) {
    if (!(error instanceof RunCarefully)) throw error;
    run = await attempt(true);
  }
  // Committed: the documents are done with, and deliver may take the responses from here.
  for (const [id, response] of run?.responses ?? []) {
    deps.handOff?.documents.delete(id);
    deps.handOff?.responses.set(id, response);
  }
  if (run) countFinished(deps, run);
  return run;
}

/** Counts the documents a committed run finished (applied or rejected) in the metrics. */
export function countFinished(deps: PipelineDeps, run: Run): void {
  deps.metrics?.documentsFinished(run.applied.map((applied) => ({
    type: applied.messageType, counterpartyId: run.responses.get(applied.id)?.counterpartyId, status: applied.status,
  })));
}

/** The candidates with their typed documents: as validation handed them over in this process, else from the message store. */
export async function withDocuments(deps: PipelineDeps, tx: Sql, candidates: readonly ApplicableMessage[]): Promise<Candidate[]> {
  const held = new Map<string, unknown>();
  for (const { id } of candidates) {
    const json = deps.handOff?.documents.get(id);
    if (json !== undefined) held.set(id, JSON.parse(json));
  }
  const stored = await getValidatedDocuments(tx, candidates.flatMap(({ id }) => (held.has(id) ? [] : [id])));
  return candidates.map((candidate) => ({ ...candidate, from: 'validated', document: held.has(candidate.id) ? held.get(candidate.id) : stored.get(candidate.id) }));
}

