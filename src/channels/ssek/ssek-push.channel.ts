import { GatewayError } from '../../core/gateway-error.ts';
import type { Database } from '../../ledger/database.ts';
import { getSsekTransaction } from '../../ledger/messages/ssek-transactions.repository.ts';
import type { OutboundChannel, OutgoingDocument } from '../outbound.ts';
import { pushTxIdOf, writeSsekEnvelope } from './ssek-answer.ts';
import type { SsekDirectory } from './ssek-parties.ts';

/**
 * The 'ssek' outbound channel. An answer to a request that asked for push is POSTed to
 * the counterparty's push address in a SOAP envelope under our own SSEK header
 * (SenderId the insurer, ReceiverId the counterparty, a TxId derived from the message
 * id so a retried push carries the same TxId). Anything but a 2xx answer throws
 * DELIVERY_FAILED, and the deliver stage retries with backoff. Answers to sync and
 * pull requests, and to requests answered on the spot (a replayed TxId), are not sent
 * anywhere: they wait in the message store for the sender (target 'ssek:pull').
 */
export interface SsekPushChannelOptions {
  readonly db: Database;
  readonly directory: SsekDirectory;
  /** How long one POST may take. */
  readonly timeoutMs: number;
}

export function createSsekPushChannel(options: SsekPushChannelOptions): OutboundChannel {
  return {
    name: 'ssek',
    async deliver(document: OutgoingDocument) {
      const transaction = await getSsekTransaction(options.db, document.messageId);
      const flow = transaction?.flow ?? document.requestMetadata.flow;
      if (flow !== 'push' || transaction?.answeredInline) return { target: 'ssek:pull' };
      const party = options.directory.party(document.counterpartyId);
      if (!party?.pushUrl) {
        throw new GatewayError('DELIVERY_FAILED', `Counterparty ${document.counterpartyId} has no ssek.pushUrl to push to.`);
      }
      const receiverId = party.senderIds[0] ?? { type: 'ORGNR', value: document.counterpartyId };
      const txId = pushTxIdOf(document.messageId);
      const envelope = writeSsekEnvelope({ senderId: options.directory.insurerId, receiverId, txId }, document.body);
      await post(party.pushUrl, envelope, document.documentType, options.timeoutMs);
      return { target: `${party.pushUrl}#${txId}` };
    },
  };
}

async function post(url: string, envelope: string, documentType: string, timeoutMs: number): Promise<void> {
  let status: number;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"urn:se:depot-gateway:v1/${documentType}"` },
      body: envelope,
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = response.status;
    await response.arrayBuffer();
  } catch (error) {
    throw new GatewayError('DELIVERY_FAILED', `Push to ${url} failed: ${(error as Error).message}`, { cause: error });
  }
  if (status < 200 || status >= 300) throw new GatewayError('DELIVERY_FAILED', `Push to ${url} was answered with HTTP ${status}.`);
}
