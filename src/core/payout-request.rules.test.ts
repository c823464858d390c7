import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { parseBankAccount } from './bank-account.ts';
import { payoutSignatoriesOf, payoutSignText, swedishMonth, swedishPeriod } from './payout-request.rules.ts';

const TOVE = '198506152381';
const EBBE = '199203033452';

test('the insured signs every payout request; the policyholder too where another person owns a private pension or capital insurance; an organisation by its company signatories', () => {
  assert.deepEqual(payoutSignatoriesOf('K', EBBE, EBBE), [{ role: 'insured', personalNumber: EBBE }], 'owned by the insured');
  assert.deepEqual(payoutSignatoriesOf('K', TOVE, EBBE), [{ role: 'policyholder', personalNumber: TOVE }, { role: 'insured', personalNumber: EBBE }]);
  assert.deepEqual(payoutSignatoriesOf('P', TOVE, EBBE), [{ role: 'policyholder', personalNumber: TOVE }, { role: 'insured', personalNumber: EBBE }]);
  assert.equal(payoutSignatoriesOf('K', '5561234567', EBBE), 'company');
  assert.deepEqual(payoutSignatoriesOf('T', '5561234567', EBBE), [{ role: 'insured', personalNumber: EBBE }], "an occupational pension: the employee's to start alone");
  assert.deepEqual(payoutSignatoriesOf('T', TOVE, EBBE), [{ role: 'insured', personalNumber: EBBE }], 'whoever the employer is');
});

test('the BankID text names the insurance, the first month, the period and the account, in Swedish', () => {
  const reading = parseBankAccount('50001234560');
  assert.ok(reading.ok);
  assert.equal(payoutSignText({ insuranceNumber: 'INS-200007', months: 120, firstMonth: '2027-01', account: reading.account }), [
    '# Utbetalning från depåförsäkring',
    '',
    'Jag begär att utbetalningen från försäkring INS-200007 börjar **januari 2027**',
    'och pågår i **10 år**, med en utbetalning i månaden',
    'till konto SEB 5000 1234560.',
  ].join('\n'));
  assert.deepEqual([swedishMonth('2026-12'), swedishPeriod(30), swedishPeriod(60)], ['december 2026', '30 månader', '5 år']);
});
