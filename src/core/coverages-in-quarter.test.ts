import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { coveragesInQuarter, payoutBeginsOn, standardCoverages } from './debit-run.ts';

test('standard coverages: repayment protection on a capital insurance, none on P and T', () => {
  assert.deepEqual(standardCoverages('K'), ['repaymentProtection']);
  assert.deepEqual(standardCoverages('P'), []);
  assert.deepEqual(standardCoverages('T'), []);
});

test('a premium waiver is priced on the monthly premium once for each month of the quarter with a day in force', () => {
  const both = ['repaymentProtection', 'premiumWaiver'] as const;
  assert.deepEqual(coveragesInQuarter(both, '1000.00', { year: 2026, quarter: 1 }), [
    { type: 'repaymentProtection' }, { type: 'premiumWaiver', premiums: '3000.00' },
  ]);
  // From 31 January: January and its one day count, so do February and March.
  assert.deepEqual(coveragesInQuarter(['premiumWaiver'], '450.50', { year: 2026, quarter: 1, insuredFrom: '2026-01-31' }), [{ type: 'premiumWaiver', premiums: '1351.50' }]);
  // From 10 November through 1 December (Q4): November and December.
  assert.deepEqual(coveragesInQuarter(['premiumWaiver'], '1000', { year: 2026, quarter: 4, insuredFrom: '2026-11-10', insuredThrough: '2026-12-01' }), [{ type: 'premiumWaiver', premiums: '2000.00' }]);
  // No premium (paid-up, or none recorded): the waiver costs nothing.
  assert.deepEqual(coveragesInQuarter(['premiumWaiver'], undefined, { year: 2026, quarter: 2 }), [{ type: 'premiumWaiver', premiums: '0.00' }]);
  assert.deepEqual(coveragesInQuarter([], '1000', { year: 2026, quarter: 2 }), []);
});

test('repayment protection is priced to the day before the payout’s first month', () => {
  assert.deepEqual(coveragesInQuarter(['repaymentProtection', 'premiumWaiver'], '1000', { year: 2026, quarter: 4 }, '2026-11'), [
    { type: 'repaymentProtection', through: '2026-10-31' }, { type: 'premiumWaiver', premiums: '3000.00' },
  ]);
  assert.deepEqual(coveragesInQuarter(['repaymentProtection'], undefined, { year: 2027, quarter: 1 }, '2027-03'), [{ type: 'repaymentProtection', through: '2027-02-28' }]);
  assert.equal(payoutBeginsOn('2027-01'), '2027-01-01');
  assert.throws(() => payoutBeginsOn('2027-13'), /not a month YYYY-MM/);
});
