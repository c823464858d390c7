import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { requestProblems, signatoriesOf, statusBeforeOrder, swedishAmount, withdrawalOrderDays } from './withdrawal-request.rules.ts';
import type { WithdrawalBounds } from './withdrawal-information.rules.ts';

const bounds: WithdrawalBounds = {
  allowed: true, minimum: '1000.00', maximum: '119991.44', value: '120000.00', valueAsOf: '2026-11-25', reservedForCharges: '8.56', reservedForTax: '0.00', requested: '0.00',
};

test('the worked example: within the bounds to a validated account is no problem; a cent above, below the smallest, or an unvalidated account are', () => {
  assert.deepEqual(requestProblems({ bounds, amount: '119991.44', accountValidated: true, accountDigits: '50001234560' }), []);
  assert.deepEqual(requestProblems({ bounds, amount: '119991.45', accountValidated: true, accountDigits: '50001234560' }).map((p) => p.code), ['WITHDRAWAL_AMOUNT_OUT_OF_BOUNDS']);
  assert.deepEqual(requestProblems({ bounds, amount: '999.99', accountValidated: false, accountDigits: '50001234560' }).map((p) => [p.path, p.code]), [
    ['$.amount', 'WITHDRAWAL_AMOUNT_OUT_OF_BOUNDS'], ['$.accountNumber', 'WITHDRAWAL_ACCOUNT_NOT_VALIDATED'],
  ]);
  assert.deepEqual(requestProblems({ bounds: { allowed: false, reason: 'the insurance is in payout' }, amount: '5000', accountValidated: true, accountDigits: '50001234560' }).map((p) => p.message), [
    'The insurance allows no withdrawal: the insurance is in payout.',
  ]);
});

test('signatories: the policyholder, and the insured when another person; none known for an organisation', () => {
  assert.deepEqual(signatoriesOf('198506152381', '198506152381'), [{ role: 'policyholder', personalNumber: '198506152381' }]);
  assert.deepEqual(signatoriesOf('198506152381', '199203033452')?.map((s) => s.role), ['policyholder', 'insured']);
  assert.equal(signatoriesOf('5565555553', '199203033452'), undefined);
});

test('status from decision and signatures; order days from the banking calendar; amounts as Swedes write them', () => {
  assert.equal(statusBeforeOrder(null, false), 'requested');
  assert.equal(statusBeforeOrder(null, true), 'signed');
  assert.equal(statusBeforeOrder('approved', false), 'approved');
  assert.equal(statusBeforeOrder('approved', true), 'ordered');
  assert.equal(statusBeforeOrder('rejected', true), 'rejected');
  // Ordered on Wednesday 23 December: 24–26 December are closed, so sold Monday 28, paid Wednesday 30 December.
  assert.deepEqual(withdrawalOrderDays('2026-12-23'), { sellBy: '2026-12-28', payBy: '2026-12-30' });
  assert.equal(swedishAmount('1234567.5'), '1 234 567,50');
  assert.equal(swedishAmount('999'), '999,00');
});
