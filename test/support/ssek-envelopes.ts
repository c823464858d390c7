/**
 * SSEK envelopes as a sender writes them, for the SSEK tests: the SSEK header, the
 * envelope around a document, and the WS-Security signature a sender's stack adds
 * (made with xml-crypto), plus the counterparties and the endpoint's address.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import { testSettings, type TestGateway } from './harness.ts';
import { changeFee } from './documents.ts';

export const SOAP = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SSEK = 'http://schemas.ssek.org/ssek/2006-05-10/';
export const INSURER = '5560360793';
export const EMPLOYER = '5561234567';
export const ADMINISTRATOR = '5590000013';

export const WSU = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
export const WSSE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';

export interface HeaderFields { sender?: string; receiver?: string; txId?: string | null; extraHeader?: string }

/** The SSEK header, with the wsu:Id a signature refers to. */
export function ssekHeader(fields: HeaderFields = {}): string {
  const txId = fields.txId === null ? '' : `<ssek:TxId>${fields.txId ?? randomUUID()}</ssek:TxId>`;
  return `<ssek:SSEK xmlns:ssek="${SSEK}" xmlns:soap="${SOAP}" xmlns:wsu="${WSU}" wsu:Id="ssek-header" soap:mustUnderstand="1">` +
    `<ssek:SenderId ssek:Type="ORGNR">${fields.sender ?? EMPLOYER}</ssek:SenderId>` +
    `<ssek:ReceiverId ssek:Type="ORGNR">${fields.receiver ?? INSURER}</ssek:ReceiverId>${txId}</ssek:SSEK>`;
}

export function envelope(document: string, fields: HeaderFields = {}): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<soap:Envelope xmlns:soap="${SOAP}">
  <soap:Header>${ssekHeader(fields)}${fields.extraHeader ?? ''}</soap:Header>
  <soap:Body>${withoutProlog(document)}</soap:Body>
</soap:Envelope>`;
}

export interface Signing {
  /** The sender's private key (PEM). */
  readonly key: string;
  /** The timestamp's Created; default now. Expires is 5 minutes later. */
  readonly created?: Date;
  /** The parts the signature refers to; default all three the gateway asks for. */
  readonly cover?: readonly ('Body' | 'SSEK' | 'Timestamp')[];
}

/**
 * Signs an envelope as a sender's WS-Security stack does: a wsu:Timestamp in a
 * wsse:Security header, and one ds:Signature over the soap:Body, the ssek:SSEK header
 * and that timestamp, each referred to by its wsu:Id. Works on any envelope text with
 * one SOAP Header and Body (ours, or the SOAP client's).
 */
export function signEnvelope(xml: string, signing: Signing): string {
  const created = signing.created ?? new Date();
  const expires = new Date(created.getTime() + 5 * 60_000);
  const security = `<wsse:Security xmlns:wsse="${WSSE}" xmlns:wsu="${WSU}"><wsu:Timestamp wsu:Id="timestamp">` +
    `<wsu:Created>${created.toISOString()}</wsu:Created><wsu:Expires>${expires.toISOString()}</wsu:Expires></wsu:Timestamp></wsse:Security>`;
  const unsigned = xml
    .replace(/<\/([\w-]+:)?Header>/, (close) => `${security}${close}`)
    .replace(/<([\w-]+:)?Body(?=[\s>])/, (open) => `${open} xmlns:wsu="${WSU}" wsu:Id="body"`);
  const signer = new SignedXml({
    privateKey: signing.key, idMode: 'wssecurity',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  });
  for (const part of signing.cover ?? ['Body', 'SSEK', 'Timestamp']) {
    signer.addReference({ xpath: `//*[local-name(.)='${part}']`, digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256', transforms: ['http://www.w3.org/2001/10/xml-exc-c14n#'] });
  }
  signer.computeSignature(unsigned, { location: { reference: "//*[local-name(.)='Security']", action: 'append' } });
  return signer.getSignedXml();
}

export function withoutProlog(document: string): string {
  return document.replace(/^<\?xml[^?]*\?>\s*/, '').replace(/^(<!--[\s\S]*?-->\s*)+/, '');
}

export function feeDocument(messageId: string, value = '300'): string {
  return changeFee({ messageId }, [{ pin: '197001011233', insurance: 'INS-100001', date: '2026-12-01', type: 'FixedCharge', value }]);
}

export function baseUrl(gateway: TestGateway, scheme = 'http'): string {
  const address = gateway.http?.server.address();
  assert.ok(address && typeof address === 'object');
  return `${scheme}://127.0.0.1:${address.port}`;
}

export const counterparties = (ssekFor: Record<string, unknown>) =>
  (testSettings('/unused').counterparties as Record<string, unknown>[]).map((c) => (ssekFor[c.id as string] ? { ...c, ssek: ssekFor[c.id as string] } : c));
