import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { checkPayoutRequest, payoutCanBegin, readPayoutRequest } from './payout-start.ts';

test('payout can begin on the agreed date, else the birthday at the payout age (29 February: 1 March; coordination numbers less 60)', () => {
  assert.equal(payoutCanBegin({ insuredPin: '197001011233', payoutAge: 65, agreedFrom: null }), '2035-01-01');
  assert.equal(payoutCanBegin({ insuredPin: '196002291230', payoutAge: 65, agreedFrom: null }), '2025-03-01');
  assert.equal(payoutCanBegin({ insuredPin: '197001711231', payoutAge: 62, agreedFrom: null }), '2032-01-11');
  assert.equal(payoutCanBegin({ insuredPin: '197001011233', payoutAge: 65, agreedFrom: '2031-06-01' }), '2031-06-01');
});

test('a payout request: periods as years or months, the first payout day not before payout can begin, an account whose check digit holds', () => {
  assert.deepEqual(readPayoutRequest({ period: 10, firstMonth: '2035-13' }), {
    problems: ['period: years as "10y", months as "36m", or "life-long"', 'firstMonth: the month of the first payout, YYYY-MM', 'withdrawalAccount: clearing number and account number, digits only'],
  });
  const facts = { offeredMonths: [60, 120, 240], canBegin: '2035-01-23', today: '2035-01-02' };
  const check = (period: string, firstMonth: string, withdrawalAccount = '50001234560') => {
    const read = readPayoutRequest({ period, firstMonth, withdrawalAccount });
    assert.ok(!('problems' in read));
    const outcome = checkPayoutRequest(read, facts);
    return 'refused' in outcome ? outcome.refused.code : outcome.accepted.months;
  };
  assert.equal(check('10y', '2035-02'), 120);
  assert.equal(check('120m', '2035-02'), 120);
  assert.equal(check('10y', '2035-01'), 'PAYOUT_NOT_YET_DUE', 'January pays on the 22nd, a day before payout can begin');
  assert.equal(check('3y', '2035-02'), 'PAYOUT_PERIOD_NOT_OFFERED');
  assert.equal(check('life-long', '2035-02'), 'PAYOUT_PERIOD_NOT_OFFERED');
  assert.equal(check('10y', '2035-02', '50001234561'), 'BANK_ACCOUNT_INVALID');
  const passed = checkPayoutRequest({ period: 120, firstMonth: '2035-02', withdrawalAccount: '50001234560' }, { ...facts, today: '2035-03-01' });
  assert.deepEqual('refused' in passed && passed.refused.code, 'PAYOUT_MONTH_PASSED');
});
