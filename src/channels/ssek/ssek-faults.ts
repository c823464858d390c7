import { isGatewayError } from '../../core/gateway-error.ts';
import type { ErrorCode } from '../../core/error-codes.ts';
import { SOAP_NAMESPACE, SSEK_NAMESPACE, WSSE_NAMESPACE } from './ssek-envelope.ts';
import { CATALOGUE_NAMESPACE } from '../../messages/catalogue-namespace.ts';
import { escapeXml } from '../../messages/xml-writer.ts';

/**
 * SOAP 1.1 faults of the SSEK endpoint. Every failure the endpoint answers with is a
 * GatewayError; here its code becomes the faultcode a sender's SOAP stack understands
 * (a QName in the SSEK namespace for the SSEK header rules, `soap:Client` for a bad
 * envelope, `soap:Server` for our own trouble), and the gateway's code travels in the
 * fault's detail so a person can look it up in docs/errors.md.
 */
const FAULT_CODES: Partial<Record<ErrorCode, string>> = {
  SSEK_ENVELOPE_INVALID: 'soap:Client',
  SSEK_SENDER_ID_UNKNOWN: 'ssek:SenderIdUnknown',
  SSEK_RECEIVER_ID_UNKNOWN: 'ssek:ReceiverIdUnknown',
  SSEK_TX_ID_INVALID: 'ssek:TxIdInvalid',
  SSEK_TX_ID_ALREADY_RECEIVED: 'ssek:TxIdAlreadyReceived',
  SSEK_TX_ID_NOT_FOUND: 'soap:Client',
  SSEK_SIGNATURE_INVALID: 'wsse:FailedCheck',
  SSEK_TIMESTAMP_EXPIRED: 'wsse:MessageExpired',
  SSEK_NOT_AUTHENTICATED: 'wsse:FailedAuthentication',
  UNKNOWN_COUNTERPARTY: 'ssek:SenderIdUnknown',
  DOCUMENT_TOO_LARGE: 'soap:Client',
  REQUEST_INVALID: 'soap:Client',
};

export interface SsekFault {
  readonly faultcode: string;
  readonly faultstring: string;
  readonly code: ErrorCode;
}

/** The fault for any error; errors that are not GatewayErrors are the server's fault and say nothing of their inside. */
export function faultOf(error: unknown): SsekFault {
  if (isGatewayError(error)) return { faultcode: FAULT_CODES[error.code] ?? 'soap:Server', faultstring: error.message, code: error.code };
  return { faultcode: 'soap:Server', faultstring: 'An unexpected error occurred in the gateway. Send the request again later with the same TxId.', code: 'INTERNAL_ERROR' };
}

/** The fault as a SOAP 1.1 envelope. */
export function writeFaultEnvelope(fault: SsekFault): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<soap:Envelope xmlns:soap="${SOAP_NAMESPACE}" xmlns:ssek="${SSEK_NAMESPACE}" xmlns:wsse="${WSSE_NAMESPACE}">
  <soap:Body>
    <soap:Fault>
      <faultcode>${fault.faultcode}</faultcode>
      <faultstring xml:lang="en">${escapeXml(fault.faultstring)}</faultstring>
      <detail><dg:ErrorCode xmlns:dg="${CATALOGUE_NAMESPACE}">${fault.code}</dg:ErrorCode></detail>
    </soap:Fault>
  </soap:Body>
</soap:Envelope>
`;
}
