import { stockholmDate } from '../core/calendar-date.ts';
import { GatewayError } from '../core/gateway-error.ts';
import type { Sql } from '../ledger/database.ts';
import { findValidatedKeys, getMessage, listApplicable, listApplicableOfKeys, markFinished, type ApplicableMessage } from '../ledger/messages.repository.ts';
import { insertResponse } from '../ledger/responses.repository.ts';
import { buildResponse, documentStatus, responseFileName } from '../messages/response-builder.ts';
import { requestNameOf } from './finish-rejected.ts';
import type { PipelineDeps } from './pipeline-deps.ts';

/**
 * Apply: runs each document's handler inside one PostgreSQL transaction that also
 * stores the response and moves the message to its final status. A crash before the
 * commit leaves nothing behind; a retry after the commit finds the message no longer
 * `validated` and does nothing. That is how an at-least-once queue gives an
 * exactly-once effect.
 *
 * Ordering: documents with the same ordering key (the agreement) are applied in
 * arrival order whatever the number of workers. The job that holds the key's advisory
 * lock applies the key's validated documents oldest first — its own and those queued
 * behind it, up to MAX_BATCH in one transaction — and stops before a document whose
 * sender still has an earlier document in validation (its key is not yet known). A job
 * that finds the key locked, or its document behind an unfinished one, steps aside
 * (WAITING_FOR_PREDECESSOR) and is retried in a moment without counting an attempt;
 * by then its document has usually been applied by the lock holder.
 */
export type ApplyResult = 'applied' | 'rejected' | 'skipped';

/** Documents of several keys applied in one transaction by a batch job. */
const MAX_CROSS_KEY_BATCH = 200;

/**
 * Applies a job's messages. One message: its key's drain (applyMessage). Several (a
 * batch job): one transaction over every key of theirs whose lock is free, applying
 * those keys' applicable documents oldest first, each in its own savepoint; a key's
 * documents after one that failed wait for the next run. Gives the messages not
 * applied by this run, by id, with why: their own error, or WAITING_FOR_PREDECESSOR
 * when their key was busy or an earlier document held them back.
 */
export async function applyMessages(deps: PipelineDeps, messageIds: readonly string[]): Promise<Map<string, unknown>> {
  const failures = new Map<string, unknown>();
  const [only] = messageIds;
  if (messageIds.length === 1 && only !== undefined) {
    await applyMessage(deps, only).catch((error: unknown) => failures.set(only, error));
    return failures;
  }
  const pending = await findValidatedKeys(deps.db, messageIds);
  if (pending.size === 0) return failures;
  const now = deps.clock();
  const run = await deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ key: string }>(
      'SELECT key FROM unnest($1::text[]) AS k(key) WHERE pg_try_advisory_xact_lock(hashtextextended(key, 0))',
      [[...new Set(pending.values())].sort()],
    );
    const results = new Map<string, ApplyResult>();
    const failedKeys = new Set<string>();
    for (const candidate of await listApplicableOfKeys(tx, rows.map((row) => row.key), MAX_CROSS_KEY_BATCH)) {
      if (failedKeys.has(candidate.orderingKey)) continue;
      if (deps.stopping?.aborted) break;
      await tx.query('SAVEPOINT apply_one');
      try {
        results.set(candidate.id, await applyOne(deps, tx, candidate, now));
        await tx.query('RELEASE SAVEPOINT apply_one');
      } catch (error) {
        // Keep what was applied before it; the key's later documents wait for it.
        await tx.query('ROLLBACK TO SAVEPOINT apply_one');
        failedKeys.add(candidate.orderingKey);
        failures.set(candidate.id, error);
      }
    }
    return results;
  });
  if (run.size > 0) await deps.scheduler.enqueue('deliver', [...run.keys()]);
  for (const [id, key] of pending) {
    if (run.has(id) || failures.has(id)) continue;
    failures.set(id, new GatewayError('WAITING_FOR_PREDECESSOR', `${id} waits for an earlier document with key ${key}`));
  }
  return failures;
}

/** Documents of one key applied per transaction. */
const MAX_BATCH = 50;
/** Transactions one job runs while its key has a backlog, before it lets others in. */
const MAX_BATCHES_PER_JOB = 20;

export async function applyMessage(deps: PipelineDeps, messageId: string): Promise<ApplyResult> {
  const message = await getMessage(deps.db, messageId);
  if (!message || message.status !== 'validated' || !message.orderingKey) return 'skipped';
  const key = message.orderingKey;
  // The lock holder drains the key's backlog batch by batch, so the jobs queued behind
  // it mostly find their documents applied instead of competing for the lock.
  let mine: ApplyResult | undefined;
  for (let batch = 0; batch < MAX_BATCHES_PER_JOB; batch += 1) {
    const run = await applyBatch(deps, key);
    if (!run) break; // another job holds the key
    if (run.results.size > 0) await deps.scheduler.enqueue('deliver', [...run.results.keys()]);
    if (run.failure?.id === messageId) throw run.failure.error;
    mine ??= run.results.get(messageId);
    if (run.failure || run.results.size < MAX_BATCH || deps.stopping?.aborted) break;
  }
  if (mine) return mine;
  const latest = await getMessage(deps.db, messageId);
  if (latest?.status !== 'validated') return 'skipped'; // another job applied it meanwhile
  throw new GatewayError('WAITING_FOR_PREDECESSOR', `${messageId} waits for an earlier document with key ${key}`);
}

/** One transaction under the key's lock; undefined when another job holds the lock. */
async function applyBatch(deps: PipelineDeps, key: string) {
  const now = deps.clock();
  return deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked', [key]);
    if (!rows[0]?.locked) return undefined;
    const results = new Map<string, ApplyResult>();
    let failure: { id: string; error: unknown } | undefined;
    for (const candidate of await listApplicable(tx, key, MAX_BATCH)) {
      await tx.query('SAVEPOINT apply_one');
      try {
        results.set(candidate.id, await applyOne(deps, tx, candidate, now));
        await tx.query('RELEASE SAVEPOINT apply_one');
      } catch (error) {
        // Keep what was applied before it; this document's own job will retry it.
        await tx.query('ROLLBACK TO SAVEPOINT apply_one');
        failure = { id: candidate.id, error };
        break;
      }
    }
    return { results, failure };
  });
}

async function applyOne(deps: PipelineDeps, tx: Sql, message: ApplicableMessage, now: Date): Promise<ApplyResult> {
  const type = deps.catalogue.get(message.messageType);
  if (!type) throw new GatewayError('INTERNAL_ERROR', `no handler for ${message.messageType}`);
  const counterparty = deps.counterparties.get(message.counterpartyId);
  const outcome = await type.apply(
    {
      tx,
      messageId: message.id,
      sender: { counterpartyId: message.counterpartyId, organisationNumber: counterparty?.organisationNumber ?? '' },
      today: stockholmDate(now),
      rules: deps.rules,
    },
    message.document as never,
  );
  const status = documentStatus(outcome);
  await insertResponse(tx, {
    messageId: message.id,
    documentType: type.responseName,
    fileName: responseFileName(requestNameOf(message), message.id, type.responseName),
    body: buildResponse({
      responseName: type.responseName,
      gatewayMessageId: message.id,
      inResponseTo: type.senderMessageId(message.document as never),
      createdAt: now,
      outcome,
    }),
  });
  const rejected = status === 'Rejected';
  const accepted = outcome.items.filter((item) => item.status === 'Accepted').length;
  await markFinished(tx, message.id, {
    from: 'validated',
    status: rejected ? 'rejected' : 'applied',
    outcome: rejected ? 'rejected' : status === 'Accepted' ? 'accepted' : 'partially_accepted',
    messageType: type.name,
    errorCode: outcome.errors[0]?.code ?? outcome.items.find((item) => item.code)?.code ?? null,
    reason: `${status}: ${accepted} of ${outcome.items.length} items accepted`,
  });
  return rejected ? 'rejected' : 'applied';
}
