import { SaxesParser } from 'saxes';

/**
 * What a BankID signature says was signed. completionData.signature is base64 of an
 * XML signature (XMLDSig, enveloping): ds:Signature holding, in a ds:Object, a
 * bankIdSignedData element with usrVisibleData (base64 of the text the person was
 * shown) and usrNonVisibleData. The signature reaches us straight from BankID over
 * mutual TLS, so what matters here is that it covers exactly the text we asked the
 * person to sign; verifying the XMLDSig up to BankID's issuing CA is for whoever later
 * proves the signature to a third party, from the stored signature and OCSP response.
 */
export const XMLDSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
export const BANKID_SIGNED_DATA_NS = 'http://www.bankid.com/signature/v1.0.0/types';

export type SignedData =
  | { readonly ok: true; readonly visibleData: Buffer; readonly nonVisibleData: Buffer | undefined }
  | { readonly ok: false; readonly problem: string };

const PATH_TO_SIGNED_DATA = [`${XMLDSIG_NS} Signature`, `${XMLDSIG_NS} Object`, `${BANKID_SIGNED_DATA_NS} bankIdSignedData`];

/** Reads usrVisibleData and usrNonVisibleData out of completionData.signature. */
export function readSignedData(signatureBase64: string): SignedData {
  const xml = Buffer.from(signatureBase64, 'base64').toString('utf8');
  const values: Record<'usrVisibleData' | 'usrNonVisibleData', string[]> = { usrVisibleData: [], usrNonVisibleData: [] };
  const path: string[] = [];
  let capturing: keyof typeof values | undefined;
  let captured = '';
  let doctype = false;
  const parser = new SaxesParser({ xmlns: true });
  parser.on('doctype', () => { doctype = true; });
  parser.on('opentag', (tag) => {
    if (path.length === 0 && `${tag.uri} ${tag.local}` !== PATH_TO_SIGNED_DATA[0]) throw new Error(`the root element is ${tag.name}, not ds:Signature`);
    const atSignedData = path.length === PATH_TO_SIGNED_DATA.length && path.every((step, i) => step === PATH_TO_SIGNED_DATA[i]);
    if (atSignedData && tag.uri === BANKID_SIGNED_DATA_NS && (tag.local === 'usrVisibleData' || tag.local === 'usrNonVisibleData')) {
      capturing = tag.local;
      captured = '';
    }
    path.push(`${tag.uri} ${tag.local}`);
  });
  parser.on('text', (text) => { if (capturing) captured += text; });
  parser.on('closetag', () => {
    path.pop();
    if (capturing && path.length === PATH_TO_SIGNED_DATA.length) {
      values[capturing].push(captured.trim());
      capturing = undefined;
    }
  });
  try {
    parser.write(xml).close();
  } catch (error) {
    return { ok: false, problem: `the signature is not readable XML: ${(error as Error).message}` };
  }
  if (doctype) return { ok: false, problem: 'the signature carries a DOCTYPE' };
  if (values.usrVisibleData.length !== 1) return { ok: false, problem: `the signature holds ${values.usrVisibleData.length} usrVisibleData elements in its signed data, not one` };
  if (values.usrNonVisibleData.length > 1) return { ok: false, problem: 'the signature holds more than one usrNonVisibleData element' };
  const visible = decodeBase64(values.usrVisibleData[0] ?? '');
  if (visible === null) return { ok: false, problem: 'usrVisibleData in the signature is not base64' };
  const nonVisibleText = values.usrNonVisibleData[0];
  const nonVisible = nonVisibleText === undefined ? undefined : decodeBase64(nonVisibleText);
  if (nonVisible === null) return { ok: false, problem: 'usrNonVisibleData in the signature is not base64' };
  return { ok: true, visibleData: visible, nonVisibleData: nonVisible };
}

/** The bytes of strict base64 (whitespace allowed), or null. */
function decodeBase64(text: string): Buffer | null {
  const compact = text.replace(/\s+/g, '');
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact)) return null;
  return Buffer.from(compact, 'base64');
}
