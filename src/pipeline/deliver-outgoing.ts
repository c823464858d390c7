import { GatewayError } from '../core/gateway-error.ts';
import { deliverAll, type OutboundChannel, type OutgoingDocument } from '../channels/outbound.ts';
import { recordOutgoingDeliveries, recordOutgoingFailure, undeliveredOutgoingDocuments } from '../ledger/messages/outgoing-documents.repository.ts';
import type { PipelineDeps } from './pipeline-deps.ts';

/**
 * The deliver stage's part for documents the gateway starts itself — a debit run's or
 * payout run's DebitAccounts. The run records the document (bytes, counterparty, file
 * name) in the transaction of its ledger effects; once that has committed the document
 * is handed to the deliver stage by its *delivery key*, and from there it travels as a
 * response does: the deliver queue's retries and backoff, a job the reconciler puts
 * back when it was lost, every attempt recorded, `replay <document id>` after the last
 * attempt failed.
 *
 * Invariants:
 * - only a committed document is ever delivered, and only its recorded bytes under its
 *   recorded name: a delivery repeated after a crash writes the same file again (the
 *   folder outbox leaves it untouched when it is already in place);
 * - a delivered document is not sent again;
 * - a delivery key never looks like a message id (a ULID), so a deliver job may carry
 *   both and the stage tells them apart without asking the store.
 */

const KEY_PREFIX = 'outgoing/';

/** The deliver job id of an outgoing document: `outgoing/DA-2026-Q3-<custodian>`. */
export function outgoingDeliveryKey(documentId: string): string {
  return `${KEY_PREFIX}${documentId}`;
}

/** The outgoing document a delivery key names; undefined for a message id. */
export function outgoingDocumentIdOf(key: string): string | undefined {
  return key.startsWith(KEY_PREFIX) ? key.slice(KEY_PREFIX.length) : undefined;
}

/**
 * Delivers the outgoing documents of `keys` not delivered yet, each channel's together,
 * and records every attempt. Gives the keys whose delivery failed, with their errors.
 */
export async function deliverOutgoingDocuments(
  deps: Pick<PipelineDeps, 'db' | 'outboundFor'>, keys: readonly string[],
): Promise<Map<string, unknown>> {
  const ids = keys.flatMap((key) => outgoingDocumentIdOf(key) ?? []);
  const failures = new Map<string, unknown>();
  const fail = async (documentId: string, channel: string | null, error: unknown) => {
    await recordOutgoingFailure(deps.db, { documentId, channel, error: (error as Error).message }).catch(() => undefined);
    failures.set(outgoingDeliveryKey(documentId), error instanceof GatewayError ? error : new GatewayError('DELIVERY_FAILED', (error as Error).message, { cause: error }));
  };
  const byChannel = new Map<OutboundChannel, OutgoingDocument[]>();
  for (const document of await undeliveredOutgoingDocuments(deps.db, ids)) {
    let channel: OutboundChannel;
    try {
      channel = deps.outboundFor(document.counterpartyId, undefined);
    } catch (error) {
      await fail(document.documentId, null, error);
      continue;
    }
    const outgoing: OutgoingDocument = { ...document, messageId: document.documentId, requestMetadata: {} };
    const documents = byChannel.get(channel);
    if (documents) documents.push(outgoing);
    else byChannel.set(channel, [outgoing]);
  }
  const delivered: { documentId: string; channel: string; target: string }[] = [];
  await Promise.all([...byChannel].map(async ([channel, documents]) => {
    const outcomes = await deliverAll(channel, documents);
    await Promise.all(documents.map(async ({ messageId: documentId }, index) => {
      const outcome = outcomes[index] ?? { error: new Error('the channel gave no outcome') };
      if ('target' in outcome) delivered.push({ documentId, channel: channel.name, target: outcome.target });
      else await fail(documentId, channel.name, outcome.error);
    }));
  }));
  await recordOutgoingDeliveries(deps.db, delivered);
  return failures;
}
