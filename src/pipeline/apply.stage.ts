import { stockholmDate } from '../core/calendar-date.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { sharedBy } from '../ledger/coalesce.ts';
import type { Sql } from '../ledger/database.ts';
import {
  findValidatedKeys, finishAppliedMany, getMessage, getValidatedDocuments, listApplicable, listApplicableOfKeys, type AppliedMessage,
  type ApplicableMessage,
} from '../ledger/messages.repository.ts';
import { buildResponse, documentStatus, responseFileName } from '../messages/response-builder.ts';
import type { ApplyProgress, DocumentSource } from '../messages/message-type.ts';
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
 * arrival order whatever the number of workers. A transaction applies only keys whose
 * advisory lock it holds, each key's validated documents oldest first, and stops a key
 * before a document whose sender still has an earlier document in validation (its key
 * is not yet known). A one-message job whose key is locked, or whose document waits
 * behind an unfinished one, steps aside (WAITING_FOR_PREDECESSOR) and is retried in a
 * moment without counting an attempt; by then its document has usually been applied
 * by the lock holder, which drains its key's backlog batch after batch.
 *
 * Cost: a transaction runs its documents' handlers in waves — the next document of
 * every key side by side, so their common statements go to PostgreSQL as one
 * (ledger/coalesce.ts) — and then stores every response and final status in one
 * statement. Should a handler fail, the transaction is rolled back and run again
 * carefully, each document in its own savepoint, so the others are applied and only
 * the failed one (and its key's later documents) waits.
 */
export type ApplyResult = 'applied' | 'rejected' | 'skipped';

/** Documents of one key applied per transaction. */
const MAX_BATCH = 50;
/** Transactions one job runs while its key has a backlog, before it lets others in. */
const MAX_BATCHES_PER_JOB = 20;
/** Documents of several keys applied in one transaction by a batch job. */
const MAX_CROSS_KEY_BATCH = 200;

interface Run {
  readonly results: Map<string, ApplyResult>;
  readonly failures: Map<string, unknown>;
  /** The messages this run finished, with their responses. */
  readonly applied: readonly Applied[];
}

/** A document that may be applied now, with its typed document. */
type Candidate = ApplicableMessage & { readonly document: unknown };

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
  }) ?? { results: new Map<string, ApplyResult>(), failures: new Map<string, unknown>(), applied: [] };
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

/** A handler failed in a transaction run without savepoints: it is rolled back and run carefully. */
class RunCarefully extends Error {}

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
  for (const { id, response } of run?.applied ?? []) {
    deps.handOff?.documents.delete(id);
    deps.handOff?.responses.set(id, response);
  }
  return run;
}

/** The candidates with their typed documents: as validation handed them over in this process, else from the message store. */
async function withDocuments(deps: PipelineDeps, tx: Sql, candidates: readonly ApplicableMessage[]): Promise<Candidate[]> {
  const held = new Map<string, unknown>();
  for (const { id } of candidates) {
    const json = deps.handOff?.documents.get(id);
    if (json !== undefined) held.set(id, JSON.parse(json));
  }
  const stored = await getValidatedDocuments(tx, candidates.flatMap(({ id }) => (held.has(id) ? [] : [id])));
  return candidates.map((candidate) => ({ ...candidate, document: held.has(candidate.id) ? held.get(candidate.id) : stored.get(candidate.id) }));
}

async function applyCandidates(deps: PipelineDeps, tx: Sql, candidates: readonly Candidate[], now: Date, careful: boolean): Promise<Run> {
  const finished = careful ? await applyCarefully(deps, tx, candidates, now) : await applyInWaves(deps, tx, candidates, now);
  const moved = await finishAppliedMany(tx, finished.applied);
  const applied = finished.applied.filter((f) => moved.has(f.id));
  return { results: new Map(applied.map((f) => [f.id, f.result])), failures: finished.failures, applied };
}

type Applied = AppliedMessage & { result: ApplyResult };

/**
 * The quick way: wave after wave, each wave the next document of every key. A wave's
 * documents whose type allows it (concurrentApply) run side by side, so the statements
 * their handlers have in common are sent as one (ledger/coalesce.ts); the others run
 * after them one by one. A key's documents are still applied in arrival order, one
 * wave after the other. Any failure rolls the whole transaction back (RunCarefully).
 */
async function applyInWaves(deps: PipelineDeps, tx: Sql, candidates: readonly Candidate[], now: Date): Promise<{ applied: Applied[]; failures: Map<string, unknown> }> {
  const byId = new Map<string, Applied>();
  const shared = sharedBy(tx);
  for (const wave of wavesOf(candidates)) {
    if (deps.stopping?.aborted) break;
    const together: Candidate[] = [];
    const alone: Candidate[] = [];
    for (const candidate of wave) (deps.catalogue.get(candidate.messageType)?.concurrentApply ? together : alone).push(candidate);
    const settled = await Promise.allSettled(together.map((candidate) => applyOne(deps, shared, candidate, now)));
    const failed = settled.findIndex((outcome) => outcome.status === 'rejected');
    if (failed >= 0) throw new RunCarefully(`applying ${together[failed]?.id} failed; the batch runs again with savepoints`);
    settled.forEach((outcome) => outcome.status === 'fulfilled' && byId.set(outcome.value.id, outcome.value));
    for (const candidate of alone) {
      try {
        byId.set(candidate.id, await applyOne(deps, tx, candidate, now));
      } catch {
        throw new RunCarefully(`applying ${candidate.id} failed; the batch runs again with savepoints`);
      }
    }
  }
  // Responses and statuses are stored in arrival order.
  const applied = candidates.flatMap((candidate) => byId.get(candidate.id) ?? []);
  return { applied, failures: new Map() };
}

/** The candidates (in arrival order) as waves: the first document of each key, then the second, and so on. */
function wavesOf(candidates: readonly Candidate[]): Candidate[][] {
  const waves: Candidate[][] = [];
  const perKey = new Map<string, number>();
  for (const candidate of candidates) {
    const index = perKey.get(candidate.orderingKey) ?? 0;
    perKey.set(candidate.orderingKey, index + 1);
    (waves[index] ??= []).push(candidate);
  }
  return waves;
}

/**
 * The careful way, after a failure: one document at a time, each in its own savepoint,
 * so the others are applied and only the failed one (and its key's later documents) waits.
 */
async function applyCarefully(deps: PipelineDeps, tx: Sql, candidates: readonly Candidate[], now: Date): Promise<{ applied: Applied[]; failures: Map<string, unknown> }> {
  const applied: Applied[] = [];
  const failures = new Map<string, unknown>();
  const failedKeys = new Set<string>();
  for (const candidate of candidates) {
    if (failedKeys.has(candidate.orderingKey)) continue; // a key's later documents wait for its failed one
    if (deps.stopping?.aborted) break;
    await tx.query('SAVEPOINT apply_one');
    try {
      applied.push(await applyOne(deps, tx, candidate, now));
      await tx.query('RELEASE SAVEPOINT apply_one');
    } catch (error) {
      await tx.query('ROLLBACK TO SAVEPOINT apply_one');
      failedKeys.add(candidate.orderingKey);
      failures.set(candidate.id, error);
    }
  }
  return { applied, failures };
}

/** Runs the document's handler (its ledger changes) and builds its response and final status. */
async function applyOne(deps: PipelineDeps, tx: Sql, message: Candidate, now: Date): Promise<Applied> {
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
      openDocument: () => openDocument(deps, tx, message.id),
      reportValidator: deps.reportValidator,
      maxXmlDepth: deps.limits.maxXmlDepth,
      progress: progressReporter(deps, message.id),
    },
    message.document as never,
  );
  const status = documentStatus(outcome);
  const rejected = status === 'Rejected';
  const accepted = outcome.report?.accountsAccepted ?? outcome.items.filter((item) => item.status === 'Accepted').length;
  const total = outcome.report?.accountsReceived ?? outcome.items.length;
  return {
    id: message.id,
    response: {
      documentType: type.responseName,
      fileName: responseFileName(requestNameOf(message), message.id, type.responseName),
      body: buildResponse({
        responseName: type.responseName,
        gatewayMessageId: message.id,
        inResponseTo: type.senderMessageId(message.document as never),
        createdAt: now,
        outcome,
      }),
    },
    status: rejected ? 'rejected' : 'applied',
    outcome: rejected ? 'rejected' : status === 'Accepted' ? 'accepted' : 'partially_accepted',
    messageType: type.name,
    errorCode: outcome.errors[0]?.code ?? outcome.items.find((item) => item.code)?.code ?? outcome.report?.rejected[0]?.code ?? null,
    reason: `${status}: ${accepted} of ${total} ${outcome.report ? 'accounts' : 'items'} accepted`,
    result: rejected ? 'rejected' : 'applied',
  };
}

/** The stored bytes of a message: from its row, or from the document store for a large report. */
async function openDocument(deps: PipelineDeps, tx: Sql, messageId: string): Promise<DocumentSource> {
  const { rows } = await tx.query<{ raw: Uint8Array | null; raw_location: string | null; size_bytes: string | number; received_at: Date }>(
    'SELECT raw, raw_location, size_bytes, received_at FROM messages WHERE id = $1',
    [messageId],
  );
  const row = rows[0];
  if (!row) throw new GatewayError('MESSAGE_NOT_FOUND', `${messageId} is not in the message store`);
  const { raw, raw_location: location } = row;
  const base = { sizeBytes: Number(row.size_bytes), receivedAt: new Date(row.received_at) };
  if (raw) return { ...base, open: () => once(raw) };
  if (location) return { ...base, open: () => deps.documents.read(location) };
  throw new GatewayError('INTERNAL_ERROR', `${messageId} has neither bytes nor a stored file`);
}

/** Progress of a long apply, at most once a second: on the job (the dashboard shows it) and in the log. */
function progressReporter(deps: PipelineDeps, messageId: string): (progress: ApplyProgress) => void {
  let last = 0;
  return (progress) => {
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    const percent = progress.bytesTotal > 0 ? Math.floor((progress.bytesRead / progress.bytesTotal) * 100) : 0;
    deps.jobProgress?.({ messageId, percent, ...progress });
    deps.log.info({ messageId, percent, records: progress.records }, 'applying a large document');
  };
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}
