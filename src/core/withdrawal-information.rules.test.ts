import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { withdrawalBounds, type WithdrawalFacts } from './withdrawal-information.rules.ts';

// Worked by hand (a year of 365 days; the K yield tax rate of 2026 is 1.065 %).
const capitalInsurance: WithdrawalFacts = {
  kind: 'K', startDate: '2024-03-01', ended: false, inPayout: false,
  value: { asOf: '2026-11-24', total: '250000.00' }, annualFixedCharge: '360', annualCapitalPercent: '0.35',
  chargedThrough: '2026-09-30', untaxedOpeningValue: null, deposits: [{ date: '2026-10-15', amount: '10000.00' }], requested: '20000.00',
};

test('K in the autumn: value minus Q4 charges so far, the tax on the October deposit and what is already requested', () => {
  // 56 days from 1 October to 25 November: fixed 360 × 56 / 365 = 55.2329 → 55.24 (rounded up);
  // capital 250 000 × 0.35 % × 56 / 365 = 134.2466 → 134.25; tax on the deposit, half (second half of the year):
  // 5 000 × 1.065 % = 53.25; largest 250 000 − 189.49 − 53.25 − 20 000 = 229 757.26.
  assert.deepEqual(withdrawalBounds(capitalInsurance, '2026-11-25'), {
    allowed: true, minimum: '1000.00', maximum: '229757.26', value: '250000.00', valueAsOf: '2026-11-24',
    reservedForCharges: '189.49', reservedForTax: '53.25', requested: '20000.00',
  });
});

test('K in January before the February run: the tax on the opening value is reserved too', () => {
  // 20 days into the year: fixed 360 × 20 / 365 = 19.726 → 19.73; capital 100 000 × 0.35 % × 20 / 365 = 19.178 → 19.18;
  // tax 98 000 × 1.065 % = 1 043.70; largest 100 000 − 38.91 − 1 043.70 = 98 917.39.
  const january = withdrawalBounds({
    ...capitalInsurance, value: { asOf: '2026-01-19', total: '100000.00' }, chargedThrough: '2025-12-31', untaxedOpeningValue: '98000.00', deposits: [], requested: '0',
  }, '2026-01-20');
  assert.deepEqual(january, {
    allowed: true, minimum: '1000.00', maximum: '98917.39', value: '100000.00', valueAsOf: '2026-01-19',
    reservedForCharges: '38.91', reservedForTax: '1043.70', requested: '0.00',
  });
});

test('an insurance never debited is reserved for from its start', () => {
  // Started 2026-11-01: 25 days, fixed 24.66 (24.657 up), capital 50 000 × 0.35 % × 25 / 365 = 11.986 → 11.99.
  const fresh = withdrawalBounds({ ...capitalInsurance, startDate: '2026-11-01', chargedThrough: null, value: { asOf: '2026-11-24', total: '50000.00' }, deposits: [], requested: '0' }, '2026-11-25');
  assert.equal(fresh.allowed && fresh.reservedForCharges, '36.65');
  assert.equal(fresh.allowed && fresh.maximum, '49963.35');
});

test('no withdrawal: pension insurances, an ended one, one in payout, one without a value, one below the smallest amount, a year without a tax rate', () => {
  const no = (facts: Partial<WithdrawalFacts>, today = '2026-11-25') => {
    const bounds = withdrawalBounds({ ...capitalInsurance, ...facts }, today);
    return bounds.allowed ? 'allowed' : bounds.reason;
  };
  assert.equal(no({ kind: 'T' }), 'occupational pension insurance is paid out, not bought back');
  assert.equal(no({ kind: 'P' }), "private pension insurance cannot be bought back at the policyholder's wish");
  assert.equal(no({ ended: true }), 'the insurance has ended');
  assert.equal(no({ inPayout: true }), 'the insurance is in payout');
  assert.equal(no({ value: null }), 'the custodian has not reported a value for the account yet');
  // 1 300 − 55.24 fixed (56 days of 360 a year), capital 1 300 × 0.35 % × 56 / 365 = 0.698 → 0.70, tax 53.25, requested 200: 990.81 left.
  assert.equal(no({ value: { asOf: '2026-11-24', total: '1300.00' }, requested: '200' }), 'what can be withdrawn (990.81 SEK) is less than the smallest withdrawal, 1000.00 SEK');
  assert.match(no({}, '2031-03-01'), /^the yield tax cannot be reserved: No yield tax rate for K in tax year 2031/);
});
