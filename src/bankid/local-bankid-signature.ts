import { randomBytes } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import { BANKID_SIGNED_DATA_NS } from './signed-data.ts';

/**
 * The local BankID server's signature: an enveloping XML signature (XMLDSig,
 * RSA-SHA256, exclusive C14N) made with the local server's key, laid out as BankID
 * lays out its own: ds:Signature whose ds:Object holds bankIdSignedData (Id
 * "bidSignedData") with usrVisibleData exactly as the relying party sent it,
 * usrNonVisibleData when sent, and a server nonce; the one reference covers that
 * element and KeyInfo carries the signing certificate. It proves nothing about a
 * person: it exists so the adapter's reading of real signatures is exercised.
 */
export interface LocalSignatureInput {
  /** userVisibleData as received: base64. */
  readonly userVisibleData: string;
  readonly userNonVisibleData?: string | undefined;
  readonly keyPem: string | Buffer;
  readonly certPem: string | Buffer;
}

const SIGNED_DATA_ID = 'bidSignedData';

/** Base64 of the signature XML, as completionData.signature carries it. */
export function makeLocalSignature(input: LocalSignatureInput): string {
  const nonVisible = input.userNonVisibleData === undefined ? '' : `<usrNonVisibleData>${input.userNonVisibleData}</usrNonVisibleData>`;
  const signedData =
    `<bankIdSignedData xmlns="${BANKID_SIGNED_DATA_NS}" Id="${SIGNED_DATA_ID}">` +
    `<usrVisibleData charset="UTF-8" visible="wysiwys">${input.userVisibleData}</usrVisibleData>${nonVisible}` +
    `<srvInfo><name>local-bankid</name><nonce>${randomBytes(24).toString('base64')}</nonce></srvInfo>` +
    '</bankIdSignedData>';
  const signature = new SignedXml({
    privateKey: input.keyPem,
    publicCert: input.certPem,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    objects: [{ content: signedData }],
  });
  signature.addReference({
    xpath: `//*[@Id='${SIGNED_DATA_ID}']`,
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  // The signature is computed into a throwaway document and taken out whole: it
  // envelops what it signs, so it is the entire signed XML.
  signature.computeSignature('<unsigned/>');
  return Buffer.from(signature.getSignatureXml(), 'utf8').toString('base64');
}
