import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { checkBillingCanStart, checkBillingCanStop } from './billing.rules.ts';

test('billing that never stopped may stop on any day', () => {
  assert.equal(checkBillingCanStop('INS-1', null, '2026-12-01'), undefined);
});

test('billing already stopped cannot stop again, whatever the date, and the text gives the stop date', () => {
  const rejection = checkBillingCanStop('INS-1', { event: 'Stop', effectiveDate: '2026-09-01' }, '2026-12-01');
  assert.equal(rejection?.code, 'BILLING_ALREADY_STOPPED');
  assert.match(rejection.text, /INS-1 is already stopped from 2026-09-01/);
  assert.equal(checkBillingCanStop('INS-1', { event: 'Stop', effectiveDate: '2026-09-01' }, '2026-08-01')?.code, 'BILLING_ALREADY_STOPPED');
});

test('a stop may not reach back before the day billing last resumed; on that day it may', () => {
  const resumed = { event: 'Start', effectiveDate: '2026-03-01' } as const;
  const rejection = checkBillingCanStop('INS-1', resumed, '2026-02-28');
  assert.equal(rejection?.code, 'BILLING_STOP_BEFORE_START');
  assert.match(rejection.text, /2026-02-28 is before 2026-03-01/);
  assert.equal(checkBillingCanStop('INS-1', resumed, '2026-03-01'), undefined);
  assert.equal(checkBillingCanStop('INS-1', resumed, '2026-10-01'), undefined);
});

test('billing that is not stopped cannot start: never stopped, or already resumed', () => {
  assert.equal(checkBillingCanStart('INS-1', null, '2026-12-01')?.code, 'BILLING_NOT_STOPPED');
  const rejection = checkBillingCanStart('INS-1', { event: 'Start', effectiveDate: '2026-03-01' }, '2026-12-01');
  assert.equal(rejection?.code, 'BILLING_NOT_STOPPED');
  assert.match(rejection.text, /resumed on 2026-03-01/);
});

test('a start may not be before the stop; on the stop day or later it may', () => {
  const stopped = { event: 'Stop', effectiveDate: '2026-09-01' } as const;
  const rejection = checkBillingCanStart('INS-1', stopped, '2026-08-31');
  assert.equal(rejection?.code, 'BILLING_START_BEFORE_STOP');
  assert.match(rejection.text, /2026-08-31 is before 2026-09-01/);
  assert.equal(checkBillingCanStart('INS-1', stopped, '2026-09-01'), undefined);
  assert.equal(checkBillingCanStart('INS-1', stopped, '2027-03-01'), undefined);
});

