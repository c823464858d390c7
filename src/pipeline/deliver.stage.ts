import { GatewayError } from '../core/gateway-error.ts';
import { getPendingDelivery, recordDelivery } from '../ledger/responses.repository.ts';
import type { PipelineDeps } from './pipeline-deps.ts';

/**
 * Deliver: sends a stored response back to the counterparty on the channel its
 * request came by, and records every attempt. At-least-once: the file name is
 * deterministic, so delivering twice writes the same file twice, never two files.
 * A response already delivered is not sent again.
 */
export type DeliverResult = 'delivered' | 'skipped';

export async function deliverResponse(deps: PipelineDeps, messageId: string): Promise<DeliverResult> {
  const pending = await getPendingDelivery(deps.db, messageId);
  if (!pending || pending.response.deliveredAt) return 'skipped';
  const { response } = pending;
  const channel = deps.outboundFor(pending.channel);
  try {
    const { target } = await channel.deliver({
      messageId,
      counterpartyId: pending.counterpartyId,
      documentType: response.documentType,
      fileName: response.fileName,
      body: response.body,
      requestMetadata: pending.requestMetadata,
    });
    await recordDelivery(deps.db, { messageId, channel: channel.name, target, outcome: 'delivered' });
    return 'delivered';
  } catch (error) {
    const text = (error as Error).message;
    await recordDelivery(deps.db, { messageId, channel: channel.name, target: null, outcome: 'failed', error: text }).catch(() => undefined);
    throw error instanceof GatewayError ? error : new GatewayError('DELIVERY_FAILED', text, { cause: error });
  }
}
