import { SignedXml } from 'xml-crypto';
import { GatewayError } from '../../core/gateway-error.ts';
import type { SsekRequest, WsuTimestamp } from './ssek-envelope.ts';

/**
 * WS-Security for the SSEK endpoint: a counterparty whose signing certificate is
 * configured must sign its request with an XML signature (ds:Signature in the
 * wsse:Security header) whose references cover, each by its wsu:Id, the soap:Body, the
 * ssek:SSEK header (SenderId, ReceiverId, TxId) and a wsu:Timestamp in that
 * wsse:Security header. A signature over the body alone would let anyone holding one
 * signed envelope resend its document under another TxId or flow, at any later time.
 * The signature is checked with xml-crypto against the configured certificate only —
 * a certificate the request carries in KeyInfo is never trusted — and each reference
 * must point at the very element the gateway reads (the envelope parser refuses a
 * second Body, SSEK header or Security header; xml-crypto refuses two elements sharing
 * a referenced Id: signature wrapping). The signed timestamp must be fresh: Created at
 * most MAX_AGE_MS old and Expires not passed, with CLOCK_SKEW_MS either way.
 *
 * `checkRequestSignature` is the whole check, free of the request's parsed tree so that
 * it can run on another thread (ws-security-thread.ts, where the endpoint runs it: it
 * costs several milliseconds of CPU a request); `verifyRequestSignature` runs it here.
 */
export const MAX_AGE_MS = 5 * 60_000;
export const CLOCK_SKEW_MS = 60_000;

/** What the check needs of a request: the envelope's text and what the parser found in it. */
export type SignedParts = Pick<SsekRequest, 'text' | 'signature' | 'bodyId' | 'headerId' | 'timestamp'>;

/** Why a request's signature is refused: the code and the text of its fault. */
export interface SignatureRefusal {
  readonly code: 'SSEK_SIGNATURE_INVALID' | 'SSEK_TIMESTAMP_EXPIRED';
  readonly text: string;
}

/** The check, on this thread; throws the refusal as a GatewayError. */
export function verifyRequestSignature(request: SignedParts, certificatePem: string, now: Date): void {
  const refusal = checkRequestSignature(request, certificatePem, now);
  if (refusal) throw new GatewayError(refusal.code, refusal.text);
}

/** Undefined when the signature verifies, covers what it must and its timestamp is fresh; else why not. */
export function checkRequestSignature(request: SignedParts, certificatePem: string, now: Date): SignatureRefusal | undefined {
  try {
    checkSignature(request, certificatePem, now);
    return undefined;
  } catch (error) {
    if (error instanceof Refused) return { code: error.code, text: error.message };
    throw error;
  }
}

function checkSignature(request: SignedParts, certificatePem: string, now: Date): void {
  if (!request.signature) throw refused('The request has no ds:Signature in a wsse:Security header.');
  const { covered, timestamp } = requiredReferences(request);
  const verifier = new SignedXml({ publicCert: certificatePem });
  // A reference is looked for by wsu:Id (any attribute named Id, as the envelope parser
  // reads it), not also by ID and id: half of xml-crypto's searches of the document.
  // Two elements with one Id are still refused, and an ID or id attribute refers to nothing.
  verifier.idAttributes = ['Id'];
  let valid: boolean;
  try {
    verifier.loadSignature(request.signature);
    valid = verifier.checkSignature(request.text);
  } catch (error) {
    throw refused(`The signature could not be checked: ${(error as Error).message}`);
  }
  if (!valid) throw refused('The signature does not verify with the registered certificate (the request changed after signing, or another key signed it).');
  const signed = new Set(verifier.getReferences().map((reference) => reference.uri));
  const missing = covered.filter(([id]) => !signed.has(`#${id}`)).map(([id, label]) => `${label} (wsu:Id "${id}")`);
  if (missing.length > 0) throw refused(`The signature does not cover ${missing.join(', ')}; sign the soap:Body, the ssek:SSEK header and the wsu:Timestamp.`);
  checkFreshness(timestamp, now);
}

/** The Ids the signature must refer to, with their names for the fault; refused when an element has none. */
function requiredReferences(request: SignedParts): { covered: [string, string][]; timestamp: WsuTimestamp } {
  if (!request.bodyId) throw refused('The soap:Body has no wsu:Id for the signature to refer to.');
  if (!request.headerId) throw refused('The ssek:SSEK header has no wsu:Id for the signature to refer to.');
  if (!request.timestamp) throw refused('The wsse:Security header has no wsu:Timestamp; add one (Created, Expires) and sign it.');
  if (!request.timestamp.id) throw refused('The wsu:Timestamp has no wsu:Id for the signature to refer to.');
  const covered: [string, string][] = [[request.bodyId, 'the soap:Body'], [request.headerId, 'the ssek:SSEK header'], [request.timestamp.id, 'the wsu:Timestamp']];
  return { covered, timestamp: request.timestamp };
}

function checkFreshness(timestamp: WsuTimestamp, now: Date): void {
  const created = instant(timestamp.created);
  if (created === undefined) throw expired(`The wsu:Timestamp needs a Created time in UTC (e.g. 2026-11-25T10:15:00Z); it is "${timestamp.created ?? ''}".`);
  if (created > now.getTime() + CLOCK_SKEW_MS) throw expired(`The wsu:Timestamp was Created ${timestamp.created}, in the future; check the sending clock.`);
  if (created < now.getTime() - MAX_AGE_MS - CLOCK_SKEW_MS) {
    throw expired(`The wsu:Timestamp was Created ${timestamp.created}, more than ${MAX_AGE_MS / 60_000} minutes ago; sign each request anew.`);
  }
  if (timestamp.expires === undefined) return;
  const expires = instant(timestamp.expires);
  if (expires === undefined) throw expired(`The wsu:Timestamp's Expires is not a UTC time: "${timestamp.expires}".`);
  if (expires < now.getTime() - CLOCK_SKEW_MS) throw expired(`The wsu:Timestamp Expired ${timestamp.expires}.`);
}

/** Milliseconds of an xsd:dateTime with a zone (Z or ±hh:mm); undefined for anything else. */
function instant(text: string | undefined): number | undefined {
  if (!text || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}

/** A refusal on its way out of the check: a control-flow signal, caught in checkRequestSignature. */
class Refused extends Error {
  constructor(readonly code: SignatureRefusal['code'], text: string) {
    super(text);
  }
}

function refused(text: string): Refused {
  return new Refused('SSEK_SIGNATURE_INVALID', text);
}

function expired(text: string): Refused {
  return new Refused('SSEK_TIMESTAMP_EXPIRED', text);
}
