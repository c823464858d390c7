import { GatewayError } from '../../core/gateway-error.ts';
import { CATALOGUE_NAMESPACE } from '../../messages/catalogue-namespace.ts';
import { getResponse } from '../../ledger/messages/responses.repository.ts';
import type { DocumentStore } from '../../ledger/messages/document-store.ts';
import { findMessageByTxId, recordSsekTransaction } from '../../ledger/messages/ssek-transactions.repository.ts';
import type { Database } from '../../ledger/database.ts';
import type { KnownParties } from '../../ledger/plan/insurance-view.repository.ts';
import { isValidOrganisationNumber, isValidPersonalIdentityNumber } from '../../core/identifiers.ts';
import { engagementResponseXml } from '../../messages/engagement-response.document.ts';
import { answerDirectQuery } from '../../ledger/advice/direct-query.ts';
import type { IntakePort } from '../envelope.ts';
import { isValidTxId, parseSsekRequest, type SsekFlow, type SsekRequest } from './ssek-envelope.ts';
import { writeReceipt, writeSsekEnvelope } from './ssek-answer.ts';
import type { ClientCertificate, SsekDirectory, SsekParty } from './ssek-parties.ts';
import { verifyRequestSignatureOffThread } from './ws-security-thread.ts';

/**
 * One SSEK request, from envelope bytes to the answer envelope. The header is checked
 * before anything is recorded (receiver, sender and client certificate, TxId,
 * signature over body, header and timestamp); a document is then handed to intake under the TxId, and answered:
 *  - sync: with its response when it is ready within `syncWaitMs`, else a receipt;
 *  - pull and push: with a receipt at once (the response is fetched with GetResponse,
 *    or pushed by the deliver stage);
 *  - a repeated TxId: with the answer to the first document sent under it when the body
 *    is the same — its response (or receipt), or the MessageRejected of a duplicate or a
 *    rejection — and with a TxIdAlreadyReceived fault when it differs. Intake records
 *    nothing new for the repeat, also when several are sent at once (the TxId names
 *    the delivery: `externalIdNamesDelivery`).
 * GetResponse (pull) reads the message store only and records nothing: it answers for
 * the first document sent under the TxId, as a repeat of it would be answered.
 */
export interface SsekEndpointOptions {
  readonly db: Database;
  /** Where a response archived by retention is read back from (a TxId asked for again years later). */
  readonly documents: Pick<DocumentStore, 'read'>;
  readonly intake: IntakePort;
  readonly directory: SsekDirectory;
  readonly clock: () => Date;
  readonly maxXmlDepth: number;
  readonly syncWaitMs: number;
  /** How often a synchronous request looks for its response. Default 25 ms. */
  readonly pollMs?: number;
  /** The advisor firms among the SSEK counterparties (counterparty id → organisation number), who may send DirectQuery; and the names the engagement gives custodians. */
  readonly directQuery?: { readonly advisorFirms: ReadonlyMap<string, string>; readonly parties: KnownParties };
}

export async function handleSsekRequest(options: SsekEndpointOptions, bytes: Uint8Array, certificate: ClientCertificate | undefined): Promise<string> {
  const request = parseSsekRequest(bytes, options.maxXmlDepth);
  options.directory.checkReceiver(request.receiverId);
  const party = options.directory.identify(request.senderId, certificate);
  if (!isValidTxId(request.txId)) {
    throw new GatewayError('SSEK_TX_ID_INVALID', request.txId ? `TxId "${request.txId}" is not a UUID.` : 'The SSEK header has no TxId.');
  }
  // The timestamp is the sender's wall clock against ours, not the business date (`clock`), which tests and replays may fix.
  // Checked on a thread of its own: xml-crypto's work would hold the event loop (ws-security-thread.ts).
  if (party.signingCertificate) await verifyRequestSignatureOffThread(request, party.signingCertificate, new Date());
  const ours = request.documentNamespace === CATALOGUE_NAMESPACE;
  const body = ours && request.documentName === 'GetResponse'
    ? await answerPull(options, party, request)
    : ours && request.documentName === 'DirectQuery'
      ? await answerDirectQueryRequest(options, party, request)
      : await receiveDocument(options, party, request, request.txId);
  const senderId = request.senderId ?? party.senderIds[0] ?? options.directory.insurerId;
  return writeSsekEnvelope({ senderId: options.directory.insurerId, receiverId: senderId, txId: request.txId }, body);
}

async function receiveDocument(options: SsekEndpointOptions, party: SsekParty, request: SsekRequest, txId: string): Promise<string> {
  const flow: SsekFlow = request.flow ?? party.flow;
  if (flow === 'push' && !party.pushUrl) {
    throw new GatewayError('SSEK_ENVELOPE_INVALID', 'Push was asked for, but the insurer has no push address for this sender; use sync or pull.');
  }
  const content = new TextEncoder().encode(request.document);
  const receipt = await options.intake.receive({
    channel: 'ssek',
    counterpartyId: party.counterpartyId,
    externalId: txId,
    receivedAt: options.clock(),
    content: { bytes: content },
    metadata: { txId, senderId: request.senderId?.value, senderIdType: request.senderId?.type, flow, documentType: request.documentName },
    externalIdNamesDelivery: true,
  });
  await recordSsekTransaction(options.db, {
    messageId: receipt.messageId, counterpartyId: party.counterpartyId, txId, senderId: request.senderId?.value ?? '',
    flow, answeredInline: receipt.status !== 'received',
  });
  if (receipt.errorCode === 'FILE_NAME_REUSED') {
    // The TxId is this channel's transport key: another document under it is a fault, as before intake knew MessageIds.
    const first = await findMessageByTxId(options.db, party.counterpartyId, txId);
    throw new GatewayError('SSEK_TX_ID_ALREADY_RECEIVED', `TxId ${txId} was received before with another document (message ${first?.id ?? 'unknown'}); send a changed document under a new TxId.`);
  }
  // A new document, a duplicate of one sent under another TxId, or (sent again) the message recorded the first time.
  return answerFor(options, receipt.messageId, txId, flow, flow === 'sync' ? options.syncWaitMs : 0);
}

async function answerPull(options: SsekEndpointOptions, party: SsekParty, request: SsekRequest): Promise<string> {
  const txId = request.documentRoot.children.find((child) => child.name === 'TxId')?.text.trim();
  if (!txId) throw new GatewayError('SSEK_ENVELOPE_INVALID', 'GetResponse needs the TxId of the document whose response is wanted.');
  const first = await findMessageByTxId(options.db, party.counterpartyId, txId);
  if (!first) throw new GatewayError('SSEK_TX_ID_NOT_FOUND', `Nothing was received from this sender with TxId ${txId}.`);
  return answerFor(options, first.id, txId, 'pull', 0);
}

/**
 * A DirectQuery (`<DirectQuery><CustomerId>…</CustomerId></DirectQuery>`, schemas/DirectQuery.xsd)
 * from an advisor firm: answered at once with the EngagementResponse, as
 * GET /DirectQuery/{customerId} answers with Accept: application/xml, and recorded the
 * same way (client `ssek:<counterparty>`). Like GetResponse it is a question, not a
 * document: nothing enters the message store. A sender that is no advisor firm, a firm
 * without a power on the customer and an unknown customer get the same fault.
 */
async function answerDirectQueryRequest(options: SsekEndpointOptions, party: SsekParty, request: SsekRequest): Promise<string> {
  const customerId = request.documentRoot.children.find((child) => child.name === 'CustomerId')?.text.trim() ?? '';
  if (!/^(\d{12}|\d{10})$/.test(customerId)) throw new GatewayError('SSEK_ENVELOPE_INVALID', 'DirectQuery needs a CustomerId: a personnummer (12 digits) or an organisation number (10 digits).');
  if (customerId.length === 12 ? !isValidPersonalIdentityNumber(customerId) : !isValidOrganisationNumber(customerId)) {
    throw new GatewayError(customerId.length === 12 ? 'PERSONAL_IDENTITY_NUMBER_INVALID' : 'ORGANISATION_NUMBER_INVALID', `CustomerId ${customerId} fails its check digit or date.`);
  }
  const firm = options.directQuery?.advisorFirms.get(party.counterpartyId);
  const now = options.clock();
  const answer = firm && options.directQuery
    ? await answerDirectQuery(options.db, { kind: 'advisor-firm', organisationNumber: firm, clientId: `ssek:${party.counterpartyId}` }, customerId, 'xml', now, options.directQuery.parties)
    : undefined;
  if (!answer) throw new GatewayError('RESOURCE_NOT_FOUND', 'No engagement is available to this sender for that customer: a direct query needs an advisor firm holding a valid information or intermediation power of attorney on the customer.');
  return engagementResponseXml({ messageId: `DQ-${answer.queryId}`, createdAt: now, advisorFirm: answer.firm, powerKind: answer.power.kind, engagement: answer.engagement });
}

/** The message's response, waiting for it up to `waitMs`; a receipt when it is not ready by then. */
async function answerFor(options: SsekEndpointOptions, messageId: string, txId: string, flow: SsekFlow, waitMs: number): Promise<string> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const response = await getResponse(options.db, messageId, options.documents);
    if (response) return response.body;
    if (Date.now() >= deadline) return writeReceipt({ messageId, txId, flow });
    await new Promise((resolve) => setTimeout(resolve, Math.min(options.pollMs ?? 25, Math.max(1, deadline - Date.now()))));
  }
}
