import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { insuranceStatus } from './insurance-status.ts';

const base = { startDate: '2020-01-01', endDate: null, paidUpFrom: null, inPayout: false };

test('an insurance is in force from its start, paid-up from its paid-up day, in payout once started, ended once its end is recorded', () => {
  assert.equal(insuranceStatus(base, '2026-11-22'), 'in force');
  assert.equal(insuranceStatus({ ...base, startDate: '2026-12-01' }, '2026-11-22'), 'not yet in force');
  assert.equal(insuranceStatus({ ...base, paidUpFrom: '2026-12-01' }, '2026-11-30'), 'in force', 'paid-up only from its day');
  assert.equal(insuranceStatus({ ...base, paidUpFrom: '2026-12-01' }, '2026-12-01'), 'paid-up');
  assert.equal(insuranceStatus({ ...base, paidUpFrom: '2026-07-01', inPayout: true }, '2026-11-22'), 'in payout', 'a paid-up insurance in payout is in payout');
  assert.equal(insuranceStatus({ ...base, inPayout: true, endDate: '2026-12-22' }, '2026-11-22'), 'ended', 'an end is final once recorded, even one dated ahead (the final payout)');
});

test('an insurance moved here from another insurer awaits its money until it arrives; an end still comes first', () => {
  assert.equal(insuranceStatus({ ...base, awaitingTransferMoney: true }, '2026-11-22'), 'awaiting money');
  assert.equal(insuranceStatus({ ...base, awaitingTransferMoney: false }, '2026-11-22'), 'in force');
  assert.equal(insuranceStatus({ ...base, awaitingTransferMoney: true, endDate: '2026-11-30' }, '2026-11-22'), 'ended');
});
