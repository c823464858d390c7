import { GatewayError } from '../core/gateway-error.ts';
import { getPendingDeliveries, recordDeliveries, recordDelivery, type PendingDelivery } from '../ledger/messages/responses.repository.ts';
import { deliverAll, type OutboundChannel, type OutgoingDocument } from '../channels/outbound.ts';
import { deliverOutgoingDocuments, outgoingDocumentIdOf } from './deliver-outgoing.ts';
import type { HandedResponse } from './hand-off.ts';
import type { PipelineDeps } from './pipeline-deps.ts';

/**
 * Deliver: sends stored responses back to their counterparties on the channel each
 * request came by, and records every attempt. At-least-once: the file name is
 * deterministic, so delivering twice gives the same file, never two files (the folder
 * outbox does not even write it again while it is in place with the same bytes).
 * A response already recorded as delivered is not sent again.
 *
 * A job delivers a batch: the responses are read in one query, sent side by side, and
 * the successful deliveries recorded in one statement. Gives the messages whose
 * delivery failed, by id (each failed attempt is recorded too).
 *
 * A job may also carry the delivery keys of documents the gateway started itself (a
 * debit run's file), recorded by their run and delivered the same way
 * (deliver-outgoing.ts); their failures are given by key.
 */
export async function deliverResponses(deps: PipelineDeps, ids: readonly string[]): Promise<Map<string, unknown>> {
  const outgoing = ids.filter((id) => outgoingDocumentIdOf(id) !== undefined);
  if (outgoing.length === 0) return deliverMessageResponses(deps, ids);
  const messageIds = ids.filter((id) => outgoingDocumentIdOf(id) === undefined);
  const [documentFailures, responseFailures] = await Promise.all([
    deliverOutgoingDocuments(deps, outgoing),
    messageIds.length > 0 ? deliverMessageResponses(deps, messageIds) : new Map<string, unknown>(),
  ]);
  return new Map([...documentFailures, ...responseFailures]);
}

async function deliverMessageResponses(deps: PipelineDeps, messageIds: readonly string[]): Promise<Map<string, unknown>> {
  // Responses apply handed over in this process are not read back: when every one of the
  // batch was, with where it goes, the store is not asked at all (a response just handed
  // over is not delivered yet; a second delivery elsewhere would only write it again).
  const held = new Map(messageIds.flatMap((id) => {
    const response = deps.handOff?.responses.get(id);
    return response ? [[id, response] as const] : [];
  }));
  const pending = held.size === messageIds.length
    ? pendingFrom(held)
    : await getPendingDeliveries(deps.db, messageIds, new Map([...held].map(([id, response]) => [id, response.body])));
  const failures = new Map<string, unknown>();
  const delivered: { messageId: string; channel: string; target: string | null }[] = [];
  // Each channel gets its documents together (a folder outbox writes and syncs them as one batch).
  const byChannel = new Map<OutboundChannel, OutgoingDocument[]>();
  for (const { response, counterpartyId, channel: requestChannel, requestMetadata } of pending.values()) {
    if (response.deliveredAt) continue;
    const channel = deps.outboundFor(counterpartyId, requestChannel);
    const document: OutgoingDocument = {
      messageId: response.messageId, counterpartyId, documentType: response.documentType, fileName: response.fileName, body: response.body, requestMetadata,
    };
    const documents = byChannel.get(channel);
    if (documents) documents.push(document);
    else byChannel.set(channel, [document]);
  }
  await Promise.all([...byChannel].map(async ([channel, documents]) => {
    const outcomes = await deliverAll(channel, documents);
    await Promise.all(documents.map(async ({ messageId }, index) => {
      const outcome = outcomes[index] ?? { error: new Error('the channel gave no outcome') };
      if ('target' in outcome) {
        delivered.push({ messageId, channel: channel.name, target: outcome.target });
        return;
      }
      const { error } = outcome;
      const text = (error as Error).message;
      await recordDelivery(deps.db, { messageId, channel: channel.name, target: null, outcome: 'failed', error: text }).catch(() => undefined);
      failures.set(messageId, error instanceof GatewayError ? error : new GatewayError('DELIVERY_FAILED', text, { cause: error }));
    }));
  }));
  await recordDeliveries(deps.db, delivered);
  for (const id of messageIds) if (!failures.has(id)) deps.handOff?.responses.delete(id);
  return failures;
}

/** Deliveries built from the responses handed over in this process. */
function pendingFrom(held: ReadonlyMap<string, HandedResponse>): Map<string, PendingDelivery> {
  return new Map([...held].map(([messageId, { documentType, fileName, body, counterpartyId, channel, requestMetadata }]) => [messageId, {
    response: { messageId, documentType, fileName, body, createdAt: new Date(), deliveredAt: null }, counterpartyId, channel, requestMetadata,
  }]));
}
