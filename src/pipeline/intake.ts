import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { GatewayError } from '../core/gateway-error.ts';
import type { Envelope, IntakePort, IntakeReceipt } from '../channels/envelope.ts';
import { findOriginal, insertMessage, type NewMessage } from '../ledger/messages.repository.ts';
import { writeRejectionResponse, requestNameOf } from './finish-rejected.ts';
import { newMessageId } from './message-id.ts';
import type { PipelineDeps } from './pipeline-deps.ts';

/**
 * Intake: the only door into the gateway. For every envelope it
 *  - refuses unknown counterparties (nothing is recorded; the channel answers at its edge),
 *  - hashes the bytes (sha256) and records them in the message store, durably, before
 *    it answers — the channel acknowledges the sender only after that,
 *  - records a duplicate (same counterparty + external id, or same content) as such,
 *    with a response saying which message it duplicates,
 *  - records a document over the size limit without reading it into memory, with a
 *    DOCUMENT_TOO_LARGE response,
 *  - and hands everything else to validation, with the message id as the job id.
 * If the queue is unreachable after the commit, the reconciler enqueues the message later:
 * a recorded message is never lost.
 */
export function createIntake(deps: PipelineDeps): IntakePort {
  return { receive: (envelope) => receive(deps, envelope) };
}

async function receive(deps: PipelineDeps, envelope: Envelope): Promise<IntakeReceipt> {
  const counterparty = deps.counterparties.get(envelope.counterpartyId);
  if (!counterparty) {
    throw new GatewayError('UNKNOWN_COUNTERPARTY', `"${envelope.counterpartyId}" is not configured.`);
  }
  const id = newMessageId();
  const base = {
    id,
    counterpartyId: counterparty.id,
    channel: envelope.channel,
    externalId: envelope.externalId,
    metadata: envelope.metadata ?? {},
    receivedAt: envelope.receivedAt,
  };

  const oversized = await oversizedFile(deps, envelope);
  if (oversized) {
    const message: NewMessage = {
      ...base, sha256: oversized.sha256, sizeBytes: oversized.size, raw: oversized.bytes, rawLocation: oversized.setAsidePath,
      status: 'rejected', errorCode: 'DOCUMENT_TOO_LARGE', duplicateOf: null,
    };
    const text = `The document is ${oversized.size} bytes; the limit is ${deps.limits.maxDocumentBytes} bytes. It was set aside, not processed.`;
    return record(deps, message, text);
  }

  const bytes = 'bytes' in envelope.content ? envelope.content.bytes : await readFile(envelope.content.path);
  const message: NewMessage = {
    ...base, sha256: sha256(bytes), sizeBytes: bytes.byteLength, raw: bytes, rawLocation: null,
    status: 'received', errorCode: null, duplicateOf: null,
  };
  return record(deps, message);
}

/** Records the message (as a duplicate if an original exists) in one transaction, then enqueues. */
async function record(deps: PipelineDeps, message: NewMessage, rejectionText?: string): Promise<IntakeReceipt> {
  // The common case is one statement, atomic by itself: the unique indexes on external
  // id and content refuse a duplicate, which then takes the transaction below.
  const receipt: IntakeReceipt =
    message.status === 'received' && (await insertMessage(deps.db, message))
      ? { messageId: message.id, status: 'received' }
      : await recordWithAnswer(deps, message, rejectionText);
  try {
    await deps.scheduler.enqueue(receipt.status === 'received' ? 'validate' : 'deliver', [receipt.messageId]);
  } catch (error) {
    deps.log.warn({ err: error, messageId: receipt.messageId }, 'recorded but not queued; the reconciler will queue it');
  }
  return receipt;
}

/** Records a duplicate or an oversized document together with the response that answers it. */
async function recordWithAnswer(deps: PipelineDeps, message: NewMessage, rejectionText?: string): Promise<IntakeReceipt> {
  const now = deps.clock();
  return deps.db.transaction(async (tx): Promise<IntakeReceipt> => {
    const original = await findOriginal(tx, message.counterpartyId, message.externalId, message.sha256);
    if (original) {
      const duplicate: NewMessage = { ...message, status: 'duplicate', errorCode: 'DUPLICATE_DOCUMENT', duplicateOf: original.id };
      await insertMessage(tx, duplicate);
      await writeRejectionResponse(tx, {
        messageId: message.id,
        messageType: null,
        responseName: 'MessageRejected',
        requestName: requestNameOf(message),
        errors: [{ code: 'DUPLICATE_DOCUMENT', text: `Duplicate of ${original.id} (same ${original.reason}); it was not processed again.` }],
        now,
      });
      return { messageId: message.id, status: 'duplicate', duplicateOf: original.id, errorCode: 'DUPLICATE_DOCUMENT' };
    }
    if (!(await insertMessage(tx, message))) {
      // A concurrent intake recorded the same original between our look-up and insert.
      throw new GatewayError('DATABASE_UNAVAILABLE', 'concurrent intake of the same document; retry');
    }
    if (message.status === 'rejected' && message.errorCode) {
      await writeRejectionResponse(tx, {
        messageId: message.id,
        messageType: null,
        responseName: 'MessageRejected',
        requestName: requestNameOf(message),
        errors: [{ code: message.errorCode as 'DOCUMENT_TOO_LARGE', text: rejectionText ?? message.errorCode }],
        now,
      });
      return { messageId: message.id, status: 'rejected', errorCode: 'DOCUMENT_TOO_LARGE' };
    }
    return { messageId: message.id, status: 'received' };
  }).catch(async (error: unknown) => {
    // Lost a race with a concurrent identical document: record this one again as its duplicate.
    if (error instanceof GatewayError && /concurrent intake/.test(error.message)) return recordWithAnswer(deps, { ...message }, rejectionText);
    throw error;
  });
}

async function oversizedFile(deps: PipelineDeps, envelope: Envelope) {
  if ('bytes' in envelope.content) {
    if (envelope.content.bytes.byteLength <= deps.limits.maxDocumentBytes) return undefined;
    // Already in memory (a channel without a file): kept in the store like any document, never parsed.
    const { bytes } = envelope.content;
    return { size: bytes.byteLength, sha256: sha256(bytes), bytes, setAsidePath: null };
  }
  const { size } = await stat(envelope.content.path);
  if (size <= deps.limits.maxDocumentBytes) return undefined;
  return { size, sha256: await sha256OfFile(envelope.content.path), bytes: null, setAsidePath: envelope.content.setAsidePath };
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
