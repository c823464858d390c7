import { SignedXml } from 'xml-crypto';
import { GatewayError } from '../../core/gateway-error.ts';
import type { SsekRequest } from './ssek-envelope.ts';

/**
 * WS-Security for the SSEK endpoint: a counterparty whose signing certificate is
 * configured must sign the soap:Body with an XML signature (ds:Signature in the
 * wsse:Security header, a reference to the body's wsu:Id). The signature is checked
 * with xml-crypto against the configured certificate only — a certificate the request
 * carries in KeyInfo is never trusted — and it must cover the very body the gateway
 * takes the document from. xml-crypto refuses a document where two elements share
 * the referenced Id (signature wrapping).
 */
export function verifyBodySignature(request: SsekRequest, certificatePem: string): void {
  if (!request.signature) throw refused('The request has no ds:Signature in a wsse:Security header.');
  if (!request.bodyId) throw refused('The soap:Body has no wsu:Id for the signature to refer to.');
  const verifier = new SignedXml({ publicCert: certificatePem });
  let valid: boolean;
  try {
    verifier.loadSignature(request.signature);
    valid = verifier.checkSignature(request.text);
  } catch (error) {
    throw refused(`The signature could not be checked: ${(error as Error).message}`, error);
  }
  if (!valid) throw refused('The signature does not verify with the registered certificate (the body changed after signing, or another key signed it).');
  const covered = verifier.getReferences().some((reference) => reference.uri === `#${request.bodyId}`);
  if (!covered) throw refused(`The signature does not cover the soap:Body (wsu:Id "${request.bodyId}").`);
}

function refused(text: string, cause?: unknown): GatewayError {
  return new GatewayError('SSEK_SIGNATURE_INVALID', text, cause === undefined ? {} : { cause });
}
