import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { decideDeathBenefit, insurerShare } from './death-benefit.ts';

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
