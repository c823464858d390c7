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
  const facts = { offeredMonths: [60, 120, 240], canBegin: '2035-01-23', today: '2035-01-02', firstMonthRunMade: false, accountValidatedForInsured: true };
  const check = (period: string, firstMonth: string, withdrawalAccount = '50001234560', more: Partial<typeof facts> = {}) => {
    const read = readPayoutRequest({ period, firstMonth, withdrawalAccount });
    assert.ok(!('problems' in read));
    const outcome = checkPayoutRequest(read, { ...facts, ...more });
    return 'refused' in outcome ? outcome.refused.code : outcome.accepted.months;
  };
  assert.equal(check('10y', '2035-02'), 120);
  assert.equal(check('120m', '2035-02'), 120);
  assert.equal(check('10y', '2035-01'), 'PAYOUT_NOT_YET_DUE', 'January pays on the 22nd, a day before payout can begin');
  assert.equal(check('3y', '2035-02'), 'PAYOUT_PERIOD_NOT_OFFERED');
  assert.equal(check('life-long', '2035-02'), 'PAYOUT_PERIOD_NOT_OFFERED');
  assert.equal(check('10y', '2035-02', '50001234561'), 'BANK_ACCOUNT_INVALID');
  assert.equal(check('10y', '2035-02', '50001234560', { today: '2035-03-01' }), 'PAYOUT_MONTH_PASSED', 'a month before this one');
  assert.equal(check('10y', '2035-02', '50001234560', { accountValidatedForInsured: false }), 'PAYOUT_ACCOUNT_NOT_VALIDATED', 'an account not registered and validated as the insured\'s');
});

test('the first month is refused once its payout day has passed or its payout run has been made, with the month that can be chosen instead', () => {
  const request = { period: 120, firstMonth: '2026-11', withdrawalAccount: '50001234560' };
  const facts = { offeredMonths: [120], canBegin: '2026-01-01', today: '2026-11-02', firstMonthRunMade: false, accountValidatedForInsured: true };
  assert.ok('accepted' in checkPayoutRequest(request, facts), 'November on 2 November, before its run');
  const ran = checkPayoutRequest(request, { ...facts, firstMonthRunMade: true });
  assert.ok('refused' in ran);
  assert.deepEqual([ran.refused.code, ran.refused.field], ['PAYOUT_MONTH_PASSED', 'firstMonth']);
  assert.match(ran.refused.message, /The payout run of 2026-11 has been made .*: the first payout month is 2026-12 or later/);
  // 27 November: November's payout day (Friday 20 November: the 22nd is a Sunday) has passed, run or not.
  const late = checkPayoutRequest(request, { ...facts, today: '2026-11-27' });
  assert.ok('refused' in late);
  assert.match(late.refused.message, /The payout day of 2026-11 \(2026-11-20\) has passed: the first payout month is 2026-12 or later/);
  // Every problem at once, in the order of the fields.
  const all = checkPayoutRequest({ period: 36, firstMonth: '2026-11', withdrawalAccount: '50001234560' }, { ...facts, today: '2026-11-27', accountValidatedForInsured: false });
  assert.ok('refused' in all);
  assert.deepEqual(all.problems.map((p) => [p.field, p.code]), [['period', 'PAYOUT_PERIOD_NOT_OFFERED'], ['firstMonth', 'PAYOUT_MONTH_PASSED'], ['account', 'PAYOUT_ACCOUNT_NOT_VALIDATED']]);
});
