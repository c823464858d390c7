import { GatewayError } from '../core/gateway-error.ts';
import { getPendingDeliveries, recordDeliveries, recordDelivery } from '../ledger/responses.repository.ts';
import type { PipelineDeps } from './pipeline-deps.ts';

/**
 * Deliver: sends stored responses back to their counterparties on the channel each
 * request came by, and records every attempt. At-least-once: the file name is
 * deterministic, so delivering twice writes the same file twice, never two files.
 * A response already delivered is not sent again.
 *
 * A job delivers a batch: the responses are read in one query, sent side by side, and
 * the successful deliveries recorded in one statement. Gives the messages whose
 * delivery failed, by id (each failed attempt is recorded too).
 */
export async function deliverResponses(deps: PipelineDeps, messageIds: readonly string[]): Promise<Map<string, unknown>> {
  // Responses apply handed over in this process are not read back.
  const held = new Map(messageIds.flatMap((id) => {
    const response = deps.handOff?.responses.get(id);
    return response ? [[id, response.body] as const] : [];
  }));
  const pending = await getPendingDeliveries(deps.db, messageIds, held);
  const failures = new Map<string, unknown>();
  const delivered: { messageId: string; channel: string; target: string | null }[] = [];
  await Promise.all(
    [...pending.values()]
      .filter(({ response }) => !response.deliveredAt)
      .map(async ({ response, counterpartyId, channel: requestChannel, requestMetadata }) => {
        const { messageId } = response;
        const channel = deps.outboundFor(counterpartyId, requestChannel);
        try {
          const { target } = await channel.deliver({
            messageId,
            counterpartyId,
            documentType: response.documentType,
            fileName: response.fileName,
            body: response.body,
            requestMetadata,
          });
          delivered.push({ messageId, channel: channel.name, target });
        } catch (error) {
          const text = (error as Error).message;
          await recordDelivery(deps.db, { messageId, channel: channel.name, target: null, outcome: 'failed', error: text }).catch(() => undefined);
          failures.set(messageId, error instanceof GatewayError ? error : new GatewayError('DELIVERY_FAILED', text, { cause: error }));
        }
      }),
  );
  await recordDeliveries(deps.db, delivered);
  for (const id of messageIds) if (!failures.has(id)) deps.handOff?.responses.delete(id);
  return failures;
}
