import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { decideDeathBenefit, insurerShare, readBeneficiary } from './death-benefit.ts';

test('only a capital insurance with repayment protection, not in payout, pays a death benefit', () => {
  assert.equal(decideDeathBenefit({ kind: 'K', repaymentProtection: true, inPayout: false }), 'due');
  assert.equal(decideDeathBenefit({ kind: 'K', repaymentProtection: false, inPayout: false }), 'no-repayment-protection');
  assert.equal(decideDeathBenefit({ kind: 'K', repaymentProtection: true, inPayout: true }), 'in-payout');
  assert.equal(decideDeathBenefit({ kind: 'P', repaymentProtection: true, inPayout: false }), 'not-capital-insurance');
  assert.equal(decideDeathBenefit({ kind: 'T', repaymentProtection: false, inPayout: false }), 'not-capital-insurance');
});

test("the insurer's 1 % is rounded half up to öre, and nothing of an empty or negative account", () => {
  assert.equal(insurerShare('123456.78'), '1234.57'); // 1 234.5678
  assert.equal(insurerShare('100.50'), '1.01'); // 1.005, exactly half an öre: up
  assert.equal(insurerShare('100.49'), '1.00'); // 1.0049
  assert.equal(insurerShare('0.00'), '0.00');
  assert.equal(insurerShare('-250.00'), '0.00');
});

test('a beneficiary: a name and a Swedish account by the bank rules, with its IBAN; a bad body, account or bank refused with its code', () => {
  assert.deepEqual(readBeneficiary({ name: '  Eva   Svensson ', account: '50001234560' }), {
    ok: true,
    beneficiary: { name: 'Eva Svensson', account: { clearingNumber: '5000', accountNumber: '1234560', bankName: 'SEB', digits: '50001234560' }, iban: 'SE6950000000050001234560' },
  });
  assert.deepEqual(readBeneficiary({ name: '', account: 50001234560 }), {
    ok: false, code: 'REQUEST_INVALID', problem: 'beneficiary.name: the beneficiary\'s name, 1–70 characters; beneficiary.account: clearing number and account number, digits only',
  });
  const badCheckDigit = readBeneficiary({ name: 'Eva Svensson', account: '50001234561' });
  assert.ok(!badCheckDigit.ok && badCheckDigit.code === 'BANK_ACCOUNT_INVALID' && /^beneficiary\.account: the check digit of SEB account 5000 1234561 is wrong/.test(badCheckDigit.problem), JSON.stringify(badCheckDigit));
  const noIban = readBeneficiary({ name: 'Eva Svensson', account: '95801234567' }, 'body');
  assert.ok(!noIban.ok && noIban.code === 'BANK_ACCOUNT_INVALID', JSON.stringify(noIban));
});
