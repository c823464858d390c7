import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { addMonths, nextInstallment, payoutPlan } from './payout-plan.ts';

test('over a number of months: equal shares of what is left, the last pays the rest', () => {
  // 10 000.00 over 3 months: 10 000 / 3 = 3 333.333… → 3 333.33 (down); 6 666.67 / 2 = 3 333.335 → 3 333.33; rest 3 333.34.
  const plan = payoutPlan({ startMonth: '2026-05', value: '10000.00', terms: { months: 3 } });
  assert.deepEqual(plan.map((p) => [p.month, p.installment, p.amount, p.final]), [
    ['2026-05', 1, '3333.33', false],
    ['2026-06', 2, '3333.33', false],
    ['2026-07', 3, '3333.34', true],
  ]);
  // 10 May 2026 is a Sunday: the sell order is due Friday the 8th; 22 May is a Friday.
  assert.deepEqual([plan[0]?.sellBy, plan[0]?.payBy], ['2026-05-08', '2026-05-22']);
});

test('at a monthly amount until paid out; the month the value no longer exceeds it pays the rest', () => {
  const plan = payoutPlan({ startMonth: '2026-11', value: '2500.00', terms: { monthlyAmount: '1000.00' } });
  assert.deepEqual(plan.map((p) => [p.month, p.amount, p.final]), [['2026-11', '1000.00', false], ['2026-12', '1000.00', false], ['2027-01', '500.00', true]]);
  // 22 August 2026 is a Saturday: paid by Friday the 21st.
  assert.equal(nextInstallment({ month: '2026-08', installment: 1, value: '1.00', terms: { months: 2 } })?.payBy, '2026-08-21');
});

test('the value decides each month: nothing left, nothing paid', () => {
  assert.equal(nextInstallment({ month: '2026-05', installment: 2, value: '0.00', terms: { months: 3 } }), undefined);
  // The value rose to 9 000.00 before the second of three: 9 000 / 2 = 4 500.00.
  assert.equal(nextInstallment({ month: '2026-06', installment: 2, value: '9000.00', terms: { months: 3 } })?.amount, '4500.00');
  // A late month past the planned number pays everything.
  assert.equal(nextInstallment({ month: '2026-09', installment: 5, value: '77.70', terms: { months: 3 } })?.final, true);
  assert.equal(addMonths('2026-12', 1), '2027-01');
  assert.equal(addMonths('2026-01', -1), '2025-12');
  assert.throws(() => addMonths('2026-13', 1), /not a month/);
});
