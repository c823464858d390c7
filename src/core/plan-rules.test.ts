import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { checkEffectiveDate, checkFeeBounds } from './plan-rules.ts';
import { addDays, stockholmDate } from './calendar-date.ts';
import { isValidOrganisationNumber, isValidPersonalIdentityNumber } from './identifiers.ts';

const bounds = { minFixedCharge: '0', maxFixedCharge: '1200', minCapitalCharge: '0', maxCapitalCharge: '2' };

test('an effective date inside the window and after the start is accepted', () => {
  assert.equal(checkEffectiveDate('2026-12-01', { today: '2026-11-22', maxBackdateDays: 365, startDate: '2020-01-01' }), undefined);
});

test('an effective date further back than the window is EFFECTIVE_DATE_TOO_OLD, naming the earliest date', () => {
  const rejection = checkEffectiveDate('2025-11-21', { today: '2026-11-22', maxBackdateDays: 365 });
  assert.equal(rejection?.code, 'EFFECTIVE_DATE_TOO_OLD');
  assert.match(rejection.text, /2025-11-22/);
  assert.equal(checkEffectiveDate('2025-11-22', { today: '2026-11-22', maxBackdateDays: 365 }), undefined);
});

test('an effective date before the start is EFFECTIVE_DATE_BEFORE_START', () => {
  const rejection = checkEffectiveDate('2026-01-01', { today: '2026-11-22', maxBackdateDays: 365, startDate: '2026-03-01', startWhat: 'insurance start' });
  assert.equal(rejection?.code, 'EFFECTIVE_DATE_BEFORE_START');
  assert.match(rejection.text, /insurance start on 2026-03-01/);
});

test("a date rule's text names the item's own field when given", () => {
  const tooOld = checkEffectiveDate('2025-11-21', { today: '2026-11-22', maxBackdateDays: 365, dateName: 'Due date' });
  assert.equal(tooOld?.code, 'EFFECTIVE_DATE_TOO_OLD');
  assert.match(tooOld.text, /^Due date 2025-11-21 is before 2025-11-22/);
  const beforeStart = checkEffectiveDate('2026-01-01', { today: '2026-11-22', maxBackdateDays: 365, startDate: '2026-03-01', dateName: 'Stop date' });
  assert.match(beforeStart?.text ?? '', /^Stop date 2026-01-01 is before the start on 2026-03-01/);
});

test('fees are compared as decimals against the product bounds, inclusive', () => {
  assert.equal(checkFeeBounds('CapitalCharge', '2.0000', bounds, 'P1'), undefined);
  assert.equal(checkFeeBounds('CapitalCharge', '2.0001', bounds, 'P1')?.code, 'FEE_OUT_OF_BOUNDS');
  assert.equal(checkFeeBounds('FixedCharge', '1200.00', bounds, 'P1'), undefined);
  assert.match(checkFeeBounds('FixedCharge', '1200.01', bounds, 'P1')?.text ?? '', /1200\.01 is outside 0–1200 SEK a year for product P1/);
});

test('calendar dates add across month ends and leap days; Stockholm date follows the local midnight', () => {
  assert.equal(addDays('2028-02-28', 1), '2028-02-29');
  assert.equal(addDays('2026-03-01', -1), '2026-02-28');
  assert.equal(stockholmDate(new Date('2026-06-30T22:30:00Z')), '2026-07-01');
  assert.equal(stockholmDate(new Date('2026-12-31T22:59:00Z')), '2026-12-31');
});

test('identifiers: check digits and coordination numbers', () => {
  assert.equal(isValidPersonalIdentityNumber('197001011233'), true);
  assert.equal(isValidPersonalIdentityNumber('197001011234'), false);
  assert.equal(isValidPersonalIdentityNumber('7001011233'), false, '10-digit form is refused');
  assert.equal(isValidPersonalIdentityNumber('197001611230'), true, 'coordination number (day + 60)');
  assert.equal(isValidOrganisationNumber('5561234567'), true);
  assert.equal(isValidOrganisationNumber('5561234568'), false);
});
