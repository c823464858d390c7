import { createHash, hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { GatewayError } from '../core/gateway-error.ts';
import type { Envelope, IntakeOutcome, IntakePort, IntakeReceipt } from '../channels/envelope.ts';
import { findEarlierDelivery, findOriginal, insertMessage, insertReceivedMessages, isOneStatement, type NewMessage } from '../ledger/messages/messages.repository.ts';
import { writeRejectionResponse, requestNameOf } from './finish-rejected.ts';
import { newMessageId } from './message-id.ts';
import { findRecordedInboxFile, findRecordedInboxFiles, findUnmovedInboxFiles, recordInboxFileGrew, recordInboxFileNotMoved, recordInboxFilesMoved, type RecordedInboxFile } from '../ledger/messages/inbox-files.repository.ts';
import type { StoredDocument } from '../ledger/messages/document-store.ts';
import { HEAD_BYTES, readHeaderMessageId } from '../messages/header-message-id.ts';
import { readOrderingKeyHint } from '../messages/ordering-key-hint.ts';
import { readRootElement } from '../messages/root-element.ts';
import type { PipelineDeps } from './pipeline-deps.ts';
import type { Sql } from '../ledger/database.ts';
import type { DocumentErrorOutcome } from '../messages/message-type.ts';

/**
 * Intake: the only door into the gateway. For every envelope it
 *  - refuses unknown counterparties (nothing is recorded; the channel answers at its edge),
 *  - hashes the bytes (sha256) and records them in the message store, durably, before
 *    it answers — the channel acknowledges the sender only after that,
 *  - reads the document's own header MessageId, its identity per counterparty, and
 *    records a duplicate (same counterparty + same content or same MessageId, whatever
 *    the external id) as such, with a response saying which message it duplicates,
 *  - keeps the external id (file name, TxId …) as a transport key: another document
 *    under an external id already used is recorded and answered with FILE_NAME_REUSED,
 *  - records nothing for an inbox file it recorded before whose move out of the inbox
 *    was never recorded (a stop or a failed move in between): the channel moves it,
 *    and its sender is answered once,
 *  - records nothing for an envelope whose external id is the key of one delivery (an
 *    SSEK TxId, a mail's Message-ID and attachment) offered again with the same content,
 *    however many are offered at once: its receipt is the first one's,
 *  - keeps a custodian's large report (over limits.maxDocumentBytes, up to
 *    limits.maxReportBytes) in the document store rather than a database row,
 *  - records any other document over the size limit without reading it into memory,
 *    with a DOCUMENT_TOO_LARGE response, and so one its channel would not even fetch
 *    (its sender announced a size over the limit),
 *  - and hands everything else to validation, with the message id as the job id.
 * If the queue is unreachable after the commit, the reconciler enqueues the message later:
 * a recorded message is never lost. A channel with several documents at hand (a folder
 * drop) records them together with `receiveMany`: one statement and one queue call for
 * the lot, in the order given.
 */
export function createIntake(deps: PipelineDeps): IntakePort {
  return {
    async receive(envelope) {
      const [outcome] = await receiveMany(deps, [envelope]);
      if (!outcome) throw new Error('intake gave no outcome');
      if ('error' in outcome) throw outcome.error;
      return outcome.receipt;
    },
    receiveMany: (envelopes) => receiveMany(deps, envelopes),
    inboxFilesMoved: (messageIds) => recordInboxFilesMoved(deps.db, messageIds),
    unmovedInboxFiles: (counterpartyIds) => findUnmovedInboxFiles(deps.db, counterpartyIds),
    inboxFileNotMoved: (messageId, reason) => recordInboxFileNotMoved(deps.db, messageId, reason),
    inboxFileGrew: (messageId, sizes) => recordInboxFileGrew(deps.db, messageId, sizes),
  };
}

/** A message ready to record, and the text of its rejection when it is answered at once. */
interface Prepared {
  readonly message: NewMessage;
  readonly rejectionText?: string;
  /** The root element its first bytes name, for the metrics; undefined when not read. */
  readonly rootElement?: string | undefined;
}

type PreparedOutcome = { readonly value: Prepared } | { readonly error: unknown };

/** Content whose bytes the channel holds: in memory or in a file. */
type HeldContent = Exclude<Envelope['content'], { readonly notFetched: unknown }>;

async function receiveMany(deps: PipelineDeps, envelopes: readonly Envelope[]): Promise<IntakeOutcome[]> {
  const prepared = await Promise.all(envelopes.map((envelope): PreparedOutcome | Promise<PreparedOutcome> => {
    // A document in memory within the limits (nearly every one) is prepared at once.
    try {
      const plain = preparePlain(deps, envelope);
      if (plain) return { value: plain };
    } catch (error) {
      return { error };
    }
    return prepare(deps, envelope).then((value) => ({ value }), (error: unknown) => ({ error }));
  }));
  const outcomes: (IntakeOutcome | undefined)[] = prepared.map((p) => ('error' in p ? { error: p.error } : undefined));

  // The common case, every new document in one statement; the unique indexes on
  // external id and content leave out duplicates, which are then recorded one by one.
  // A delivery under its sender's key is looked for under the key's lock first: one by one.
  const batched = (p: PreparedOutcome, index: number): p is { value: Prepared } =>
    'value' in p && p.value.message.status === 'received' && !envelopes[index]?.externalIdNamesDelivery;
  const fresh = prepared.flatMap((p, index) => (batched(p, index) ? [p.value.message] : []));
  let inserted = new Set<string>();
  try {
    // All or none: a document failing to record leaves the whole lot to be offered again.
    inserted = isOneStatement(fresh) ? await insertReceivedMessages(deps.db, fresh) : await deps.db.transaction((tx) => insertReceivedMessages(tx, fresh));
  } catch (error) {
    for (const [index, p] of prepared.entries()) if (batched(p, index)) outcomes[index] = { error };
  }
  await findFilesRecordedBefore(deps, prepared, outcomes, inserted);
  for (const [index, p] of prepared.entries()) {
    if (outcomes[index] || !('value' in p)) continue;
    const { message, rejectionText } = p.value;
    if (inserted.has(message.id)) {
      outcomes[index] = { receipt: { messageId: message.id, status: 'received' } };
      continue;
    }
    const namesDelivery = envelopes[index]?.externalIdNamesDelivery === true;
    outcomes[index] = await recordWithAnswer(deps, message, rejectionText, namesDelivery).then((receipt) => ({ receipt }), (error: unknown) => ({ error }));
  }
  countReceived(deps, prepared, outcomes);

  for (const [index, p] of prepared.entries()) {
    const outcome = outcomes[index];
    const recorded = outcome && 'receipt' in outcome && outcome.receipt.status === 'received' && 'value' in p && outcome.receipt.messageId === p.value.message.id;
    if (recorded && p.value.message.raw) deps.handOff?.raw.set(p.value.message.id, p.value.message.raw);
  }
  // A file recorded before goes on (or went) its way under its first message: nothing to queue.
  const receipts = outcomes.flatMap((o) => (o && 'receipt' in o && !o.receipt.recordedBefore ? [o.receipt] : []));
  try {
    await deps.scheduler.enqueue('validate', receipts.filter((r) => r.status === 'received').map((r) => r.messageId));
    await deps.scheduler.enqueue('deliver', receipts.filter((r) => r.status !== 'received').map((r) => r.messageId));
  } catch (error) {
    deps.log.warn({ err: error, messageIds: receipts.map((r) => r.messageId) }, 'recorded but not queued; the reconciler will queue them');
  }
  return outcomes.map((o) => o ?? { error: new Error('intake left an envelope without an outcome') });
}

/**
 * The inbox files of the lot intake recorded before (their moves never recorded), looked
 * up together: a watcher that takes an inbox over offers every file its former holder
 * recorded and did not move in one turn, and one transaction each took seconds. Their
 * outcomes are the earlier receipts; the rest (and all of them, if this fails) are
 * looked at one by one by `recordWithAnswer`.
 */
async function findFilesRecordedBefore(deps: PipelineDeps, prepared: readonly PreparedOutcome[], outcomes: (IntakeOutcome | undefined)[], inserted: ReadonlySet<string>): Promise<void> {
  const candidates = prepared.flatMap((p, index) =>
    !outcomes[index] && 'value' in p && p.value.message.inboxFile && !inserted.has(p.value.message.id) ? [{ index, message: p.value.message }] : []);
  if (candidates.length < 2) return;
  const found = await findRecordedInboxFiles(deps.db, candidates.map(({ message }) => ({
    counterpartyId: message.counterpartyId, fileName: message.externalId, sha256: message.sha256, sizeBytes: message.sizeBytes,
  }))).catch(() => new Map<number, RecordedInboxFile>());
  for (const [position, earlier] of found) {
    const candidate = candidates[position];
    if (candidate) outcomes[candidate.index] = { receipt: receiptOfEarlier(earlier) };
  }
}

/**
 * The message to record for bytes in memory within the size limit, without waiting for
 * anything; undefined for everything else (a file, a large report, an oversized
 * document), which `prepare` handles.
 */
function preparePlain(deps: PipelineDeps, envelope: Envelope): Prepared | undefined {
  const { content } = envelope;
  if (!('bytes' in content) || content.bytes.byteLength > deps.limits.maxDocumentBytes) return undefined;
  return receivedBytes(deps, messageBase(deps, envelope).base, content.bytes);
}

/** The fields every recorded message of the envelope has; refuses an unknown counterparty. */
function messageBase(deps: PipelineDeps, envelope: Envelope) {
  const counterparty = deps.counterparties.get(envelope.counterpartyId);
  if (!counterparty) {
    throw new GatewayError('UNKNOWN_COUNTERPARTY', `"${envelope.counterpartyId}" is not configured.`);
  }
  const base = {
    id: newMessageId(),
    counterpartyId: counterparty.id,
    channel: envelope.channel,
    externalId: envelope.externalId,
    metadata: envelope.metadata ?? {},
    receivedAt: envelope.receivedAt,
    inboxFile: envelope.inboxFile === true,
  };
  return { counterparty, base };
}

/** A document whose bytes are in hand, recorded `received` for validation, with its ordering key where its header gives it. */
function receivedBytes(deps: PipelineDeps, base: ReturnType<typeof messageBase>['base'], bytes: Uint8Array): Prepared {
  return {
    message: {
      ...base, sha256: sha256(bytes), sizeBytes: bytes.byteLength, raw: bytes, rawLocation: null,
      status: 'received', errorCode: null, duplicateOf: null, headerMessageId: readHeaderMessageId(bytes) ?? null,
      orderingKey: readOrderingKeyHint(bytes, deps.catalogue) ?? null,
    },
    rootElement: readRootElement(bytes),
  };
}

/** Checks the counterparty, hashes the bytes and builds the message to record; a file over the limit is never read. */
async function prepare(deps: PipelineDeps, envelope: Envelope): Promise<Prepared> {
  const { counterparty, base } = messageBase(deps, envelope);
  const { content } = envelope;
  if ('notFetched' in content) return notFetched(deps, base, counterparty.role, content.notFetched);

  const report = await storeLargeReport(deps, content, envelope.receivedAt, base.id, counterparty.role);
  if (report) {
    const head = await headOf(content);
    return {
      message: {
        ...base, sha256: report.sha256, sizeBytes: report.sizeBytes, raw: null, rawLocation: report.location,
        status: 'received', errorCode: null, duplicateOf: null, headerMessageId: readHeaderMessageId(head) ?? null,
      },
      rootElement: readRootElement(head),
    };
  }

  const oversized = await oversizedFile(deps, content);
  if (oversized) {
    return {
      message: {
        ...base, sha256: oversized.sha256, sizeBytes: oversized.size, raw: oversized.bytes, rawLocation: oversized.setAsidePath,
        status: 'rejected', errorCode: 'DOCUMENT_TOO_LARGE', duplicateOf: null,
      },
      rejectionText: `The document is ${oversized.size} bytes; the limit is ${deps.limits.maxDocumentBytes} bytes. It was set aside, not processed.`,
    };
  }

  return receivedBytes(deps, base, 'bytes' in content ? content.bytes : await readFile(content.path));
}

/**
 * A document its channel would not fetch, over the limit by the size its sender
 * announced: recorded DOCUMENT_TOO_LARGE without bytes, at the place it was offered.
 * With no content to hash, its sha256 is that of a text naming the message, which
 * matches no other document.
 */
function notFetched(deps: PipelineDeps, base: ReturnType<typeof messageBase>['base'], role: string, announced: { sizeBytes: number; location: string }): Prepared {
  const limit = role === 'custodian' ? deps.limits.maxReportBytes : deps.limits.maxDocumentBytes;
  return {
    message: {
      ...base, sha256: sha256(Buffer.from(`depot-gateway: not fetched, message ${base.id}`)), sizeBytes: announced.sizeBytes, raw: null,
      rawLocation: announced.location, status: 'rejected', errorCode: 'DOCUMENT_TOO_LARGE', duplicateOf: null,
    },
    rejectionText: `The document is ${announced.sizeBytes} bytes; the limit is ${limit} bytes. It was not fetched, and not processed.`,
  };
}

/**
 * Records a duplicate or an oversized document together with the response that answers
 * it; and a delivery under its sender's key (`namesDelivery`), whatever it turns out to be.
 */
async function recordWithAnswer(deps: PipelineDeps, message: NewMessage, rejectionText?: string, namesDelivery = false): Promise<IntakeReceipt> {
  const now = deps.clock();
  return deps.db.transaction(async (tx): Promise<IntakeReceipt> => {
    if (message.inboxFile) {
      // This very file, offered again because its move out of the inbox was never recorded.
      const earlier = await findRecordedInboxFile(tx, { counterpartyId: message.counterpartyId, fileName: message.externalId, sha256: message.sha256, sizeBytes: message.sizeBytes });
      if (earlier) return receiptOfEarlier(earlier);
    }
    if (namesDelivery) {
      // This very delivery sent again (after the lock: of those sent at once, the first records it).
      const earlier = await findEarlierDelivery(tx, message);
      if (earlier?.sameContent) return receiptOfEarlier(earlier);
      if (earlier) return recordNameReused(tx, message, earlier.messageId, now);
    }
    const original = await findOriginal(tx, { ...message, headerMessageId: message.headerMessageId ?? null });
    if (original?.matched === 'file name') return recordNameReused(tx, message, original.id, now);
    if (original) {
      const duplicate: NewMessage = { ...message, status: 'duplicate', errorCode: 'DUPLICATE_DOCUMENT', duplicateOf: original.id };
      await insertMessage(tx, duplicate);
      await writeIntakeRejection(tx, message, now, {
        code: 'DUPLICATE_DOCUMENT', text: `Duplicate of ${original.id} (same ${original.matched}); it was not processed again.`,
      });
      return { messageId: message.id, status: 'duplicate', duplicateOf: original.id, errorCode: 'DUPLICATE_DOCUMENT' };
    }
    if (!(await insertMessage(tx, message))) {
      // A concurrent intake recorded the same original between our look-up and insert.
      throw new GatewayError('DATABASE_UNAVAILABLE', 'concurrent intake of the same document; retry');
    }
    if (message.status === 'rejected' && message.errorCode) {
      await writeIntakeRejection(tx, message, now, { code: message.errorCode as 'DOCUMENT_TOO_LARGE', text: rejectionText ?? message.errorCode });
      return { messageId: message.id, status: 'rejected', errorCode: 'DOCUMENT_TOO_LARGE' };
    }
    return { messageId: message.id, status: 'received' };
  }).catch(async (error: unknown) => {
    // Lost a race with a concurrent identical document: record this one again as its duplicate.
    if (error instanceof GatewayError && /concurrent intake/.test(error.message)) return recordWithAnswer(deps, { ...message }, rejectionText, namesDelivery);
    throw error;
  });
}

/** Another document under a transport key already used: not that one again, and not taken either. */
async function recordNameReused(tx: Sql, message: NewMessage, earlierId: string, now: Date): Promise<IntakeReceipt> {
  await insertMessage(tx, { ...message, status: 'rejected', errorCode: 'FILE_NAME_REUSED', duplicateOf: earlierId });
  await writeIntakeRejection(tx, message, now, {
    code: 'FILE_NAME_REUSED',
    text: `The name ${message.externalId} was used before for another document (message ${earlierId}); this one was not processed. Send it under a new file name, with a MessageId not used before.`,
  });
  return { messageId: message.id, status: 'rejected', errorCode: 'FILE_NAME_REUSED' };
}

/**
 * Counts the documents recorded now (not a file recorded before) as received, and those
 * intake answered at once (duplicates, refusals) as finished.
 */
function countReceived(deps: PipelineDeps, prepared: readonly PreparedOutcome[], outcomes: readonly (IntakeOutcome | undefined)[]): void {
  const { metrics } = deps;
  if (!metrics) return;
  for (const [index, p] of prepared.entries()) {
    const outcome = outcomes[index];
    if (!('value' in p) || !outcome || !('receipt' in outcome) || outcome.receipt.recordedBefore) continue;
    const { message, rootElement } = p.value;
    const document = { type: rootElement, counterpartyId: message.counterpartyId };
    metrics.documentReceived({ ...document, channel: message.channel });
    const { status } = outcome.receipt;
    if (status !== 'received') metrics.documentsFinished([{ ...document, status }]);
  }
}

/** The MessageRejected answer of a document intake refused, naming its MessageId when it has one. */
function writeIntakeRejection(tx: Sql, message: NewMessage, now: Date, error: DocumentErrorOutcome): Promise<void> {
  return writeRejectionResponse(tx, {
    messageId: message.id,
    messageType: null,
    responseName: 'MessageRejected',
    inResponseTo: message.headerMessageId ?? undefined,
    requestName: requestNameOf(message),
    errors: [error],
    now,
  });
}

/** The first bytes of a document, where its header is. */
async function headOf(content: HeldContent): Promise<Uint8Array> {
  if ('bytes' in content) return content.bytes.subarray(0, HEAD_BYTES);
  const file = await open(content.path);
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await file.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** The receipt of an inbox file recorded before, as intake gave it then. */
function receiptOfEarlier(earlier: RecordedInboxFile): IntakeReceipt {
  const { messageId, status, errorCode } = earlier;
  if (status === 'duplicate') return { messageId, status: 'duplicate', errorCode: 'DUPLICATE_DOCUMENT', recordedBefore: true };
  if (errorCode === 'DOCUMENT_TOO_LARGE' || errorCode === 'FILE_NAME_REUSED') return { messageId, status: 'rejected', errorCode, recordedBefore: true };
  return { messageId, status: 'received', recordedBefore: true };
}

/**
 * A custodian's document over limits.maxDocumentBytes but within limits.maxReportBytes
 * — a day's Holdings can be hundreds of megabytes — is kept in the document store
 * (hashed while it is copied) instead of a database row, and read as a stream later.
 * Whether it really is a report is for validation to say.
 */
async function storeLargeReport(deps: PipelineDeps, content: HeldContent, receivedAt: Date, messageId: string, role: string): Promise<StoredDocument | undefined> {
  if (role !== 'custodian') return undefined;
  const size = 'bytes' in content ? content.bytes.byteLength : (await stat(content.path)).size;
  if (size <= deps.limits.maxDocumentBytes || size > deps.limits.maxReportBytes) return undefined;
  return 'bytes' in content
    ? deps.documents.keepBytes(messageId, receivedAt, content.bytes)
    : deps.documents.keepFile(messageId, receivedAt, content.path);
}

async function oversizedFile(deps: PipelineDeps, content: HeldContent) {
  if ('bytes' in content) {
    if (content.bytes.byteLength <= deps.limits.maxDocumentBytes) return undefined;
    // Already in memory (a channel without a file): kept in the store like any document, never parsed.
    const { bytes } = content;
    return { size: bytes.byteLength, sha256: sha256(bytes), bytes, setAsidePath: null };
  }
  const { size } = await stat(content.path);
  if (size <= deps.limits.maxDocumentBytes) return undefined;
  return { size, sha256: await sha256OfFile(content.path), bytes: null, setAsidePath: content.setAsidePath };
}

function sha256(bytes: Uint8Array): string {
  return hash('sha256', bytes, 'hex');
}

async function sha256OfFile(path: string): Promise<string> {
  const digest = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) digest.update(chunk as Buffer);
  return digest.digest('hex');
}
