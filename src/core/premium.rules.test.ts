import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { checkPremiumBounds } from './plan-rules.ts';
import {
  checkDueBeforePaidUp, checkExtraPremiumAmount, checkNotYetPaidUp, extraPremiumInvoiceNumber, namingInsurance,
} from './premium.rules.ts';

const tjp = { insuranceNumber: 'INS-1', productCode: 'TJP-DEPA', maxExtraPremium: '1000000.00' };

test('a premium-paying insurance may be made paid-up', () => {
  assert.equal(checkNotYetPaidUp({ insuranceNumber: 'INS-1', paidUpFrom: null }), undefined);
});

test('a paid-up insurance cannot be made paid-up again, whatever the date, and the text gives the date', () => {
  const rejection = checkNotYetPaidUp({ insuranceNumber: 'INS-1', paidUpFrom: '2026-07-01' });
  assert.equal(rejection?.code, 'INSURANCE_PAID_UP');
  assert.match(rejection.text, /INS-1 is already paid-up from 2026-07-01;/);
});

test('a paid-up made by an earlier item of the document names that item', () => {
  const rejection = checkNotYetPaidUp({ insuranceNumber: 'INS-1', paidUpFrom: '2027-01-01' }, 'PE-1');
  assert.match(rejection?.text ?? '', /from 2027-01-01 by item PE-1 of this document/);
});

test('an extra premium up to the product maximum is accepted; one öre more is PREMIUM_OUT_OF_BOUNDS', () => {
  assert.equal(checkExtraPremiumAmount('0.01', tjp), undefined);
  assert.equal(checkExtraPremiumAmount('1000000', tjp), undefined);
  assert.equal(checkExtraPremiumAmount('1000000.00', tjp), undefined);
  const rejection = checkExtraPremiumAmount('1000000.01', tjp);
  assert.equal(rejection?.code, 'PREMIUM_OUT_OF_BOUNDS');
  assert.match(rejection.text, /1000000\.01 SEK to insurance INS-1 is above 1000000\.00 SEK, the most product TJP-DEPA takes/);
});

test('amounts are compared as decimals, not floating point', () => {
  assert.equal(checkExtraPremiumAmount('0.3', { ...tjp, maxExtraPremium: '0.30' }), undefined);
  assert.equal(checkExtraPremiumAmount('9007199254740993.01', { ...tjp, maxExtraPremium: '9007199254740993.00' })?.code, 'PREMIUM_OUT_OF_BOUNDS');
});


test('invoice numbers are XP- and the sequence value padded to six digits, never cut', () => {
  assert.equal(extraPremiumInvoiceNumber('1'), 'XP-000001');
  assert.equal(extraPremiumInvoiceNumber('123456'), 'XP-123456');
  assert.equal(extraPremiumInvoiceNumber('1234567'), 'XP-1234567');
});

test('an extra premium must fall due before the paid-up day; the day before is fine', () => {
  const paidUp = { insuranceNumber: 'INS-1', paidUpFrom: '2026-07-01' };
  assert.equal(checkDueBeforePaidUp(paidUp, '2026-06-30'), undefined);
  assert.equal(checkDueBeforePaidUp({ insuranceNumber: 'INS-1', paidUpFrom: null }, '2030-01-01'), undefined);
  const rejection = checkDueBeforePaidUp(paidUp, '2026-07-01');
  assert.equal(rejection?.code, 'INSURANCE_PAID_UP');
  assert.match(rejection.text, /INS-1 is paid-up from 2026-07-01; it takes no extra premium due on or after that day \(due date 2026-07-01\)/);
});

test('a product-bounds rejection names the insurance', () => {
  const rejection = namingInsurance(checkPremiumBounds('99.99', { minMonthlyPremium: '100', maxMonthlyPremium: '50000' }, 'TJP-DEPA'), 'INS-1');
  assert.equal(rejection?.code, 'PREMIUM_OUT_OF_BOUNDS');
  assert.match(rejection.text, /99\.99 SEK is outside 100\.00–50000\.00 SEK for product TJP-DEPA, the product of insurance INS-1\.$/);
  assert.equal(namingInsurance(undefined, 'INS-1'), undefined);
});
