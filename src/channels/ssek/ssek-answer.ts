import { createHash } from 'node:crypto';
import { CATALOGUE_NAMESPACE } from '../../messages/catalogue-namespace.ts';
import { escapeXml } from '../../messages/xml-writer.ts';
import { SOAP_NAMESPACE, SSEK_NAMESPACE, type SsekFlow, type SsekPartyId } from './ssek-envelope.ts';

/**
 * The envelopes the gateway sends by SSEK: the answer to a request (the response
 * document, or a receipt while it is not ready), and the push of a response to the
 * sender's own endpoint. Each carries an SSEK header with the insurer as SenderId. A
 * pushed response's TxId is derived from the message id, so every retry of one push
 * carries the same TxId and the receiver can drop repeats.
 */
export interface SsekHeaderFields {
  readonly senderId: SsekPartyId;
  readonly receiverId: SsekPartyId;
  readonly txId: string;
}

/** Where a request stands when its response is not ready: `<Receipt>` in our namespace. */
export interface SsekReceipt {
  readonly messageId: string;
  readonly txId: string;
  readonly flow: SsekFlow;
}

export function writeSsekEnvelope(header: SsekHeaderFields, body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<soap:Envelope xmlns:soap="${SOAP_NAMESPACE}" xmlns:ssek="${SSEK_NAMESPACE}">
  <soap:Header>
    <ssek:SSEK soap:mustUnderstand="1">
      ${partyElement('SenderId', header.senderId)}
      ${partyElement('ReceiverId', header.receiverId)}
      <ssek:TxId>${escapeXml(header.txId)}</ssek:TxId>
    </ssek:SSEK>
  </soap:Header>
  <soap:Body>
${withoutDeclaration(body)}
  </soap:Body>
</soap:Envelope>
`;
}

export function writeReceipt(receipt: SsekReceipt): string {
  return `<Receipt xmlns="${CATALOGUE_NAMESPACE}">
  <MessageId>${receipt.messageId}</MessageId>
  <TxId>${escapeXml(receipt.txId)}</TxId>
  <Status>Received</Status>
  <Flow>${receipt.flow}</Flow>
</Receipt>`;
}

/** The TxId of every push of one message's response: a UUID made from the message id. */
export function pushTxIdOf(messageId: string): string {
  const hex = createHash('sha256').update(`depot-gateway ssek push ${messageId}`).digest('hex');
  const variant = ((parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}

function partyElement(name: string, id: SsekPartyId): string {
  return `<ssek:${name}${id.type ? ` ssek:Type="${escapeXml(id.type)}"` : ''}>${escapeXml(id.value)}</ssek:${name}>`;
}

/** A stored response starts with an XML declaration, which may not stand inside a SOAP body. */
function withoutDeclaration(document: string): string {
  return document.replace(/^\uFEFF?\s*<\?xml[^?]*\?>\s*/, '').trimEnd();
}
