import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { latestOn, personStateAsOf, type PersonHistory } from './person-history.ts';

const history: PersonHistory = {
  agreementNumber: 'AGR-1',
  personalIdentityNumber: '199204221239',
  employment: { startDate: '2026-10-01', endDate: '2026-12-31', endReason: 'Resignation' },
  salaries: [{ effectiveDate: '2026-10-01', annualSalary: '480000.00' }, { effectiveDate: '2026-11-01', annualSalary: '540000.00' }],
  categories: [{ effectiveDate: '2026-10-01', categoryCode: 'TJM' }, { effectiveDate: '2026-11-01', categoryCode: 'ARB' }],
  costCenters: [{ effectiveDate: '2026-10-01', costCenter: '300' }],
  insurances: [{
    insuranceNumber: 'INS-200001', productCode: 'TJP-DEPA-ESG', startDate: '2026-11-01', paidUpFrom: '2027-01-01', end: null,
    premiums: [{ effectiveDate: '2026-11-01', monthlyAmount: '2000.00' }],
    fees: [],
    billing: [{ effectiveDate: '2026-11-15', event: 'Stop', reason: 'ParentalLeave' }, { effectiveDate: '2026-12-01', event: 'Start', reason: null }],
    extraPremiums: [],
    allocations: [{ effectiveDate: '2026-11-01', purpose: 'DistributionPlan', funds: [{ isin: 'SE000DEPA036', percent: '100' }] }],
    transfers: [{ effectiveDate: '2026-12-01', fromProductCode: 'TJP-DEPA', toProductCode: 'TJP-DEPA-ESG' }],
  }],
};

test('the state as of a date is the latest row of each kind on or before it', () => {
  assert.deepEqual(personStateAsOf(history, '2026-11-20'), {
    asOf: '2026-11-20', employed: true, annualSalary: '540000.00', categoryCode: 'ARB', costCenter: '300',
    insurances: [{
      insuranceNumber: 'INS-200001', productCode: 'TJP-DEPA', ended: null, paidUp: false, billingStopped: true, monthlyPremium: '2000.00',
      distributionPlan: [{ isin: 'SE000DEPA036', percent: '100' }],
    }],
  });
});

test('before the insurance began it is not listed; after the end the person is not employed and the insurance is paid-up', () => {
  assert.equal(personStateAsOf(history, '2026-10-15').insurances.length, 0);
  assert.equal(personStateAsOf(history, '2026-10-15').annualSalary, '480000.00');
  const later = personStateAsOf(history, '2027-01-01');
  assert.equal(later.employed, false);
  assert.equal(later.insurances[0]?.paidUp, true);
  assert.equal(later.insurances[0]?.billingStopped, false);
  assert.equal(later.insurances[0]?.productCode, 'TJP-DEPA-ESG', 'after the transfer, the new product');
  assert.equal(personStateAsOf(history, '2026-12-31').employed, true, 'the end date is the last day of employment');
});

test('an ended insurance shows its end and no premium after its last day in force; on that day it is still in force', () => {
  const insurance = history.insurances[0]!;
  const ended: PersonHistory = { ...history, insurances: [{ ...insurance, end: { lastDay: '2026-11-30', cause: 'transferred-out' } }] };
  const lastDay = personStateAsOf(ended, '2026-11-30').insurances[0];
  assert.deepEqual([lastDay?.ended, lastDay?.monthlyPremium, lastDay?.billingStopped], [null, '2000.00', true]);
  const after = personStateAsOf(ended, '2026-12-01').insurances[0];
  assert.deepEqual([after?.ended, after?.monthlyPremium, after?.billingStopped], [{ lastDay: '2026-11-30', cause: 'transferred-out' }, null, false]);
  assert.equal(personStateAsOf(ended, '2026-12-01').insurances.length, 1, 'still listed, as ended');
});

test('latestOn: a tie on the date goes to the row recorded later', () => {
  const rows = [{ effectiveDate: '2026-01-01', v: 1 }, { effectiveDate: '2026-01-01', v: 2 }, { effectiveDate: '2026-02-01', v: 3 }];
  assert.equal(latestOn(rows, '2026-01-31')?.v, 2);
  assert.equal(latestOn(rows, '2025-12-31'), undefined);
});
