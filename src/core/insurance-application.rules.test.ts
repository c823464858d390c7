import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { checkInsuranceApplication, reviewReasons, type ApplicationFacts, type InsuranceApplicationInput } from './insurance-application.rules.ts';

const input: InsuranceApplicationInput = {
  productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: '197001011233' }, insured: { id: '197001011233' },
  premium: { single: '50000.00', monthly: '1000' }, funds: [{ isin: 'SE000DEPA010', percent: 60 }, { isin: 'SE000DEPA044', percent: 40 }],
  custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
};
const facts: ApplicationFacts = {
  product: { id: 'KF-DEPA', taxCategory: 'K', line: 'individual', minMonthlyPremium: '0', maxMonthlyPremium: '100000', maxSinglePremium: '5000000' },
  selectableIsins: new Set(['SE000DEPA010', 'SE000DEPA044']),
  advisor: { active: true },
  custodianIds: ['demo-custodian'],
};
const rules = { singlePremiumAbove: '1000000', insuredOlderThan: 75 };

test('a complete application has no problems', () => {
  assert.deepEqual(checkInsuranceApplication(input, facts), []);
});

test('every problem at once, each at its JSON path', () => {
  const bad: InsuranceApplicationInput = {
    ...input, taxCategory: 'P', policyholder: { id: '197001011234' }, insured: { id: '5561234567' },
    premium: { single: '10.005', monthly: '200000' },
    funds: [{ isin: 'SE000DEPA010', percent: 50 }, { isin: 'SE000DEPA010', percent: 20 }, { isin: 'SE000DEPA028', percent: 20 }, { isin: 'SE000DEPA019', percent: 5 }],
    custodianId: 'nobody', beneficiary: { choice: 'named', names: [] },
  };
  const found = checkInsuranceApplication(bad, { ...facts, advisor: { active: false } }).map((p) => [p.path, p.code]);
  assert.deepEqual(found, [
    ['$.advisorCode', 'ADVISOR_UNKNOWN'],
    ['$.policyholder.id', 'PERSONAL_IDENTITY_NUMBER_INVALID'],
    ['$.insured.id', 'PERSONAL_IDENTITY_NUMBER_INVALID'],
    ['$.taxCategory', 'PRODUCT_KIND_MISMATCH'],
    ['$.premium.single', 'PREMIUM_OUT_OF_BOUNDS'],
    ['$.premium.monthly', 'PREMIUM_OUT_OF_BOUNDS'],
    ['$.funds[1].isin', 'ALLOCATION_DUPLICATE_FUND'],
    ['$.funds[2].isin', 'FUND_NOT_SELECTABLE'],
    ['$.funds[3].isin', 'ISIN_INVALID'],
    ['$.funds', 'ALLOCATION_NOT_100'],
    ['$.custodianId', 'CUSTODIAN_UNKNOWN'],
    ['$.beneficiary.names', 'BENEFICIARY_MISSING'],
  ]);
});

test('an unknown product, an occupational product, and no premium at all', () => {
  assert.deepEqual(checkInsuranceApplication({ ...input, premium: {} }, { ...facts, product: undefined }).map((p) => p.code), ['PRODUCT_UNKNOWN', 'PREMIUM_OUT_OF_BOUNDS']);
  const occupational = { ...facts, product: { ...facts.product!, line: 'occupational' as const } };
  assert.deepEqual(checkInsuranceApplication(input, occupational).map((p) => p.path), ['$.productId']);
});

test('a capital insurance is applied for with repayment protection; P and T may leave it out', () => {
  const without = { ...input, coverages: { repaymentProtection: false, premiumWaiver: true } };
  assert.deepEqual(checkInsuranceApplication(without, facts), [{
    path: '$.coverages.repaymentProtection', code: 'REPAYMENT_PROTECTION_REQUIRED',
    message: 'KF-DEPA is a capital insurance (K), which always carries repayment protection: set it to true.',
  }]);
  const pension = { ...facts, product: { ...facts.product!, id: 'PPF-DEPA', taxCategory: 'P' as const } };
  assert.deepEqual(checkInsuranceApplication({ ...without, productId: 'PPF-DEPA' }, pension), []);
  // An unknown product says so; whether it needs the protection cannot be known.
  assert.deepEqual(checkInsuranceApplication(without, { ...facts, product: undefined }).map((p) => p.code), ['PRODUCT_UNKNOWN']);
});

test('manual review: a large single premium, an old insured, an organisation as policyholder', () => {
  assert.deepEqual(reviewReasons(input, rules, '2026-11-25'), []);
  assert.deepEqual(reviewReasons({ ...input, premium: { single: '1000000.01' } }, rules, '2026-11-25'), ['single premium above 1000000 SEK']);
  const born1950 = { ...input, insured: { id: '195011251237' } };
  assert.deepEqual(reviewReasons(born1950, rules, '2026-11-24'), [], '75 until the day before the 76th birthday');
  assert.deepEqual(reviewReasons(born1950, rules, '2026-11-25'), ['insured older than 75']);
  assert.deepEqual(reviewReasons({ ...input, policyholder: { id: '5561234567' } }, rules, '2026-11-25'), ['the policyholder is an organisation']);
});
