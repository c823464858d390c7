import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { extractDocumentKeys, normaliseKey } from './document-keys.ts';

test('the keys of a typed plan document, each once, identity numbers as digits', () => {
  const document = {
    header: { messageId: 'XP-1', agreementNumber: 'AGR-1001', employerOrganisationNumber: '5561234567' },
    items: [
      { itemId: '1', personalIdentityNumber: '19700101-1233', insuranceNumber: 'INS-100001' },
      { itemId: '2', personalIdentityNumber: '197001011233', insuranceNumber: 'INS-100006', toCustodyAccount: 'DEPA-9' },
    ],
  };
  assert.deepEqual(extractDocumentKeys(document), [
    { kind: 'agreement', value: 'AGR-1001' },
    { kind: 'organisationsnummer', value: '5561234567' },
    { kind: 'personnummer', value: '197001011233' },
    { kind: 'insurance', value: 'INS-100001' },
    { kind: 'insurance', value: 'INS-100006' },
    { kind: 'custody-account', value: 'DEPA-9' },
  ]);
  assert.deepEqual(extractDocumentKeys(null), []);
  assert.deepEqual(extractDocumentKeys({ items: [{ personalIdentityNumber: '' }] }), []);
});

test('a searched key is normalised like a stored one', () => {
  assert.equal(normaliseKey('personnummer', ' 19700101-1233 '), '197001011233');
  assert.equal(normaliseKey('organisationsnummer', '556123-4567'), '5561234567');
  assert.equal(normaliseKey('agreement', ' AGR-1001 '), 'AGR-1001');
});
