import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { isValidIsin, maskPersonalIdentityNumbers } from './identifiers.ts';

test('personal identity numbers in text are masked to their date of birth, in every form', () => {
  assert.equal(maskPersonalIdentityNumbers('197001011233'), '19700101-****');
  assert.equal(maskPersonalIdentityNumbers('person 19700101-1233 and 7001011233, 700101-1233, 700101+1233'),
    'person 19700101-**** and 700101-****, 700101-****, 700101-****');
  assert.equal(maskPersonalIdentityNumbers('coordination number 197001611238'), 'coordination number 19700161-****');
  assert.equal(maskPersonalIdentityNumbers("Element 'PersonalIdentityNumber': [facet 'pattern'] The value '19700101123' is not accepted"),
    "Element 'PersonalIdentityNumber': [facet 'pattern'] The value '19700101123' is not accepted", 'eleven digits are not a number of either form');
  assert.equal(maskPersonalIdentityNumbers('Key (insurance_number, personal_identity_number)=(INS-1, 198002021239) already exists'),
    'Key (insurance_number, personal_identity_number)=(INS-1, 19800202-****) already exists');
  assert.equal(maskPersonalIdentityNumbers('/api/agreements/AGR-1001/persons/197001011233?asOf=2026-11-22'), '/api/agreements/AGR-1001/persons/19700101-****?asOf=2026-11-22');
});

test('what only looks like digits is left alone: organisation numbers, times, dates, hashes, longer numbers', () => {
  for (const text of ['5561234567', '165561234567', '"time":1795604407514', '2026-11-22T10:00:00Z', 'sha256 ab197001011233cd', '1197001011233', '01JD8Z3Q4X5Y6Z7A8B9C0D1E2F']) {
    assert.equal(maskPersonalIdentityNumbers(text), text, text);
  }
});

test('ISINs: the country, nine characters and a check digit that matches', () => {
  for (const isin of ['SE0000108656', 'US0378331005', 'SE000DEPA010', 'LU00GLOBAL16']) assert.equal(isValidIsin(isin), true, isin);
  for (const isin of ['SE0000108657', 'SE000DEPA019', 'se0000108656', 'SE000010865', '120000108656']) assert.equal(isValidIsin(isin), false, isin);
});
