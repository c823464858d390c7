import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import type { CollectResponseBody } from './bankid-protocol.ts';
import { checkSignatory } from './signatory-check.ts';
import { BANKID_SIGNED_DATA_NS, XMLDSIG_NS } from './signed-data.ts';

const TEXT = 'Jag begär uttag av 12 500 kr.';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** A signature document as BankID lays it out (unsigned: the check reads, it does not verify). */
function signatureXml(signedData: string, root = `<Signature xmlns="${XMLDSIG_NS}">`): string {
  return `${root}<SignedInfo/><SignatureValue/><Object><bankIdSignedData xmlns="${BANKID_SIGNED_DATA_NS}" Id="bidSignedData">${signedData}</bankIdSignedData></Object></Signature>`;
}

function completed(personalNumber: string, signatureDocument: string): CollectResponseBody {
  return {
    orderRef: 'order-1',
    status: 'complete',
    completionData: {
      user: { personalNumber, name: 'Tove Lind', givenName: 'Tove', surname: 'Lind' },
      device: { ipAddress: '192.0.2.1' },
      bankIdIssueDate: '2024-03-01',
      signature: b64(signatureDocument),
      ocspResponse: 'MA==',
    },
  };
}

const visible = (text: string) => `<usrVisibleData charset="UTF-8" visible="wysiwys">${b64(text)}</usrVisibleData>`;

test('the expected signatory, signing the text we sent, counts', () => {
  const result = checkSignatory(completed('198112289874', signatureXml(visible(TEXT) + '<usrNonVisibleData>AAEC</usrNonVisibleData>')), { personalNumber: '19811228-9874', visibleText: TEXT });
  assert.equal(result.counts, true);
});

test('each reason a completed order does not count', () => {
  const expected = { personalNumber: '198112289874', visibleText: TEXT };
  const cases: [string, CollectResponseBody, unknown][] = [
    ['pending', { orderRef: 'o', status: 'pending', hintCode: 'userSign' }, { counts: false, reason: 'notComplete', status: 'pending', hintCode: 'userSign' }],
    ['another person', completed('197905202388', signatureXml(visible(TEXT))), { counts: false, reason: 'otherSigner', expected: '198112289874', signedBy: '197905202388' }],
    ['other text', completed('198112289874', signatureXml(visible(`${TEXT} `))), { counts: false, reason: 'otherText' }],
    ['no visible data', completed('198112289874', signatureXml('')), { counts: false, reason: 'signatureUnreadable', problem: 'the signature holds 0 usrVisibleData elements in its signed data, not one' }],
    ['two visible data', completed('198112289874', signatureXml(visible(TEXT) + visible('other'))), { counts: false, reason: 'signatureUnreadable', problem: 'the signature holds 2 usrVisibleData elements in its signed data, not one' }],
    ['not base64', completed('198112289874', signatureXml('<usrVisibleData>not base64!</usrVisibleData>')), { counts: false, reason: 'signatureUnreadable', problem: 'usrVisibleData in the signature is not base64' }],
  ];
  for (const [label, collected, result] of cases) assert.deepEqual(checkSignatory(collected, expected), result, label);
});

test('visible data outside the signed data, another root, a DOCTYPE or broken XML make the signature unreadable', () => {
  const expected = { personalNumber: '198112289874', visibleText: TEXT };
  const outside = `<Signature xmlns="${XMLDSIG_NS}"><Object>${visible(TEXT).replace('<usrVisibleData', `<usrVisibleData xmlns="${BANKID_SIGNED_DATA_NS}"`)}</Object></Signature>`;
  const documents: [string, string, RegExp][] = [
    ['outside bankIdSignedData', outside, /0 usrVisibleData/],
    ['another root', signatureXml(visible(TEXT), '<Signature xmlns="urn:other">'), /root element is Signature, not ds:Signature/],
    ['doctype', `<!DOCTYPE Signature>${signatureXml(visible(TEXT))}`, /DOCTYPE/],
    ['broken', signatureXml(visible(TEXT)).slice(0, -5), /not readable XML/],
  ];
  for (const [label, document, problem] of documents) {
    const result = checkSignatory(completed('198112289874', document), expected);
    assert.equal(result.counts, false, label);
    assert.equal(!result.counts && result.reason, 'signatureUnreadable', label);
    assert.match(!result.counts && result.reason === 'signatureUnreadable' ? result.problem : '', problem, label);
  }
});

test('an expected personal number that is not 12 digits is the caller\'s mistake', () => {
  assert.throws(() => checkSignatory({ orderRef: 'o', status: 'pending', hintCode: 'userSign' }, { personalNumber: '811228-9874', visibleText: TEXT }), RangeError);
});
