import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { checkCategoryOn, employmentForChange, type AgreementCategory, type DatedEmployment } from './employment-change.rules.ts';

const change = { agreementNumber: 'AGR-1', personalIdentityNumber: '197001011233', today: '2026-11-22', maxBackdateDays: 365 };
const current: DatedEmployment = { id: '2', startDate: '2026-05-01', endDate: null };
const earlier: DatedEmployment = { id: '1', startDate: '2018-01-01', endDate: '2026-03-31' };

test('a change belongs to the latest employment that began on or before its date', () => {
  const found = employmentForChange([current, earlier], { ...change, effectiveDate: '2026-12-01' });
  assert.deepEqual(found, { employment: current });
  assert.deepEqual(employmentForChange([current], { ...change, effectiveDate: '2026-05-01' }), { employment: current }, 'on the start day');
  assert.deepEqual(employmentForChange([current, earlier], { ...change, effectiveDate: '2026-03-31' }), { employment: earlier }, 'the earlier one on its last day');
});

test('a person without employment under the agreement is refused', () => {
  const found = employmentForChange([], { ...change, effectiveDate: '2026-12-01' });
  assert.ok('reject' in found);
  assert.equal(found.reject.code, 'EMPLOYMENT_UNKNOWN');
  assert.match(found.reject.text, /197001011233 has no employment under agreement AGR-1/);
});

test('an employment that ended before the date is refused, naming the end; a change on the last day is not', () => {
  const ended: DatedEmployment = { id: '3', startDate: '2020-01-01', endDate: '2026-06-30' };
  const found = employmentForChange([ended], { ...change, effectiveDate: '2026-07-01' });
  assert.ok('reject' in found);
  assert.equal(found.reject.code, 'EMPLOYMENT_ALREADY_ENDED');
  assert.match(found.reject.text, /ended on 2026-06-30, before the effective date 2026-07-01/);
  assert.deepEqual(employmentForChange([ended], { ...change, effectiveDate: '2026-06-30' }), { employment: ended });
});

test('a date before every employment began is refused with the start of the earliest', () => {
  const before = employmentForChange([{ id: '4', startDate: '2026-10-01', endDate: null }], { ...change, effectiveDate: '2026-09-30' });
  assert.ok('reject' in before);
  assert.equal(before.reject.code, 'EFFECTIVE_DATE_BEFORE_START');
  assert.match(before.reject.text, /2026-09-30 is before the start of the employment of 197001011233 on 2026-10-01/);
});

test('a date outside the back-dating window is refused', () => {
  const found = employmentForChange([earlier], { ...change, effectiveDate: '2025-11-21' });
  assert.ok('reject' in found);
  assert.equal(found.reject.code, 'EFFECTIVE_DATE_TOO_OLD');
  assert.deepEqual(employmentForChange([earlier], { ...change, effectiveDate: '2025-11-22' }), { employment: earlier });
});

const categories = new Map<string, AgreementCategory>([
  ['TJM', { code: 'TJM', name: 'Tjänstemän', validFrom: '2020-01-01' }],
  ['NY', { code: 'NY', name: 'Nya', validFrom: '2027-01-01' }],
]);

test('a category must be defined on the agreement; the text lists the defined ones', () => {
  assert.equal(checkCategoryOn('TJM', '2026-12-01', categories, 'AGR-1'), undefined);
  const rejection = checkCategoryOn('XYZ', '2026-12-01', categories, 'AGR-1');
  assert.equal(rejection?.code, 'CATEGORY_UNKNOWN');
  assert.match(rejection.text, /Category XYZ is not defined on agreement AGR-1 \(defined: NY, TJM\)/);
});

test('a category cannot be used before it is valid; from that day it can', () => {
  const rejection = checkCategoryOn('NY', '2026-12-31', categories, 'AGR-1');
  assert.equal(rejection?.code, 'CATEGORY_UNKNOWN');
  assert.match(rejection.text, /valid from 2027-01-01, after the effective date 2026-12-31/);
  assert.equal(checkCategoryOn('NY', '2027-01-01', categories, 'AGR-1'), undefined);
});
