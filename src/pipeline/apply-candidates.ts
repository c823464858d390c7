import { stockholmDate } from '../core/calendar-date.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { sharedBy } from '../ledger/coalesce.ts';
import type { Sql } from '../ledger/database.ts';
import { recordDocumentKeys } from '../ledger/messages/document-keys.repository.ts';
import { finishAppliedMany, type ApplicableMessage, type AppliedMessage } from '../ledger/messages/messages.repository.ts';
import { buildResponse, documentStatus, responseFileName } from '../messages/response-builder.ts';
import type { ApplyOutcome, ApplyProgress, DocumentSource } from '../messages/message-type.ts';
import { requestNameOf } from './finish-rejected.ts';
import type { HandedResponse } from './hand-off.ts';
import type { PipelineDeps } from './pipeline-deps.ts';

/**
 * The body of an apply transaction, whoever chose its documents (a job of the apply
 * queue, or the worker process's apply loop): each document's handler, its response
 * and its final status, in the caller's transaction.
 *
 * The quick way runs the documents in waves — the next document of every key side by
 * side, so the statements their handlers have in common go to PostgreSQL as one
 * (ledger/coalesce.ts) — and then stores every response and final status in one
 * statement. Should a handler fail, the quick way throws RunCarefully: the caller rolls
 * the transaction back and runs it again carefully, each document in its own
 * savepoint, so the others are applied and only the failed one (and its key's later
 * documents) waits.
 */
export type ApplyResult = 'applied' | 'rejected' | 'skipped';

/**
 * A document that may be applied now, with its typed document and the status it has
 * in the message store: `validated`, or still `received` when validation handed it
 * over in memory (its history then gets the `validated` event with its final one).
 */
export type Candidate = ApplicableMessage & { readonly document: unknown; readonly from: 'received' | 'validated' };

export type Applied = AppliedMessage & { result: ApplyResult };

export interface Run {
  readonly results: Map<string, ApplyResult>;
  readonly failures: Map<string, unknown>;
  /** The messages this run finished, with their responses. */
  readonly applied: readonly Applied[];
  /** Their responses with where each goes, for delivery (hand-off.ts). */
  readonly responses: ReadonlyMap<string, HandedResponse>;
}

/** A handler failed in a transaction run without savepoints: it is rolled back and run carefully. */
export class RunCarefully extends Error {}

/**
 * A document changed status while its transaction ran (marked dead, applied by a
 * process that did not hold its key): the transaction is rolled back, so its effects
 * are not written a second time; the caller runs again and finds it gone.
 */
export class StatusChanged extends Error {}

/** Applies the candidates (in arrival order) and stores their responses and final statuses. */
export async function applyCandidates(deps: PipelineDeps, tx: Sql, candidates: readonly Candidate[], now: Date, careful: boolean): Promise<Run> {
  const finished = careful ? await applyCarefully(deps, tx, candidates, now) : await applyInWaves(deps, tx, candidates, now);
  const from = new Map(candidates.map((candidate) => [candidate.id, candidate.from]));
  const moved = await finishAppliedMany(tx, finished.applied.map((applied) => ({ ...applied, from: from.get(applied.id) ?? 'validated' })));
  if (moved !== finished.applied.length) {
    throw new StatusChanged(`${finished.applied.length - moved} of ${finished.applied.length} documents changed status while being applied`);
  }
  const byId = new Map(candidates.map((candidate) => [candidate.id, candidate]));
  // The console's search index: what each applied document is about, in the same transaction.
  await recordDocumentKeys(tx, finished.applied.map(({ id }) => ({ messageId: id, document: byId.get(id)?.document })));
  const responses = new Map(finished.applied.map(({ id, response }) => {
    const { counterpartyId, channel, metadata } = byId.get(id) as Candidate;
    return [id, { ...response, counterpartyId, channel, requestMetadata: metadata }] as const;
  }));
  return { results: new Map(finished.applied.map((f) => [f.id, f.result])), failures: finished.failures, applied: finished.applied, responses };
}

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
      insurerOrganisationNumber: deps.insurerOrganisationNumber,
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
    orderingKey: message.orderingKey,
    errorCode: outcome.errors[0]?.code ?? outcome.items.find((item) => item.code)?.code ?? outcome.report?.rejected[0]?.code ?? null,
    reason: applyReason(status, outcome, accepted, total),
    result: rejected ? 'rejected' : 'applied',
  };
}

/**
 * The status event's reason: how many items (a report's accounts) were accepted; a
 * document refused as a whole, before any item was weighed, by its first error
 * ("Rejected as a whole: AGREEMENT_UNKNOWN …"), not as "0 of 0 items accepted".
 */
function applyReason(status: string, outcome: ApplyOutcome, accepted: number, total: number): string {
  const first = outcome.errors[0];
  if (first && total === 0) {
    const more = outcome.errors.length > 1 ? ` (and ${outcome.errors.length - 1} more error${outcome.errors.length === 2 ? '' : 's'})` : '';
    return `${status} as a whole: ${first.code} ${first.text}${more}`;
  }
  return `${status}: ${accepted} of ${total} ${outcome.report ? 'accounts' : 'items'} accepted`;
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
