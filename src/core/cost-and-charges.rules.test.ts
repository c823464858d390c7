import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { checkAccountOpenInYear, checkCostCategories, checkCostReportYear, normaliseCosts } from './cost-and-charges.rules.ts';

const BALANCED = { investmentServices: '120.00', thirdPartyPayments: '30.00', investmentProductCost: '810.00', refund: '40.00', totalCosts: '1000.00' };

test('categories that sum to the total costs after refund pass', () => {
  assert.equal(checkCostCategories(BALANCED), undefined);
  assert.equal(checkCostCategories({ investmentServices: '0', thirdPartyPayments: '0', investmentProductCost: '0', totalCosts: '0' }), undefined);
  assert.equal(checkCostCategories({ investmentServices: '0.1', thirdPartyPayments: '0.2', investmentProductCost: '.7', totalCosts: '1.' }), undefined, 'exact decimals: 0.1 + 0.2 + 0.7 is 1');
});

test('categories that fall short state both sums and the difference', () => {
  const rejection = checkCostCategories({ ...BALANCED, investmentProductCost: '800.00' });
  assert.deepEqual(rejection, {
    code: 'COST_CATEGORIES_MISMATCH',
    text: 'InvestmentServices 120.00 + ThirdPartyPayments 30.00 + InvestmentProductCost 800.00 = 950.00, but TotalCosts 1000.00 − Refund 40.00 = 960.00: the categories are 10.00 short.',
  });
});

test('categories over the total, or a missing refund, are named too', () => {
  assert.equal(
    checkCostCategories({ investmentServices: '100', thirdPartyPayments: '0.5', investmentProductCost: '0.01', totalCosts: '100.50' })?.text,
    'InvestmentServices 100.00 + ThirdPartyPayments 0.50 + InvestmentProductCost 0.01 = 100.51, but TotalCosts 100.50 − Refund 0.00 = 100.50: the categories are 0.01 over.',
  );
  // A refund left out of the categories' side is a mismatch of exactly the refund.
  assert.match(checkCostCategories({ ...BALANCED, investmentProductCost: '850.00' })?.text ?? '', /= 1000\.00, but TotalCosts 1000\.00 − Refund 40\.00 = 960\.00: the categories are 40\.00 over\.$/);
});

test('amounts in any xs:decimal form are normalised to öre', () => {
  assert.deepEqual(normaliseCosts({ investmentServices: '+1', thirdPartyPayments: '.5', investmentProductCost: '007.10', totalCosts: '8.60' }), {
    investmentServices: '1.00', thirdPartyPayments: '0.50', investmentProductCost: '7.10', refund: '0.00', totalCosts: '8.60',
  });
  assert.throws(() => normaliseCosts({ ...BALANCED, totalCosts: '1e3' }), /TotalCosts must be a decimal amount/);
});

test('the reported year must have ended and be at most five years back', () => {
  assert.equal(checkCostReportYear(2025, '2026-03-15'), undefined);
  assert.equal(checkCostReportYear(2021, '2026-11-22'), undefined);
  assert.deepEqual(checkCostReportYear(2026, '2026-11-22'), {
    code: 'REPORT_YEAR_OUT_OF_RANGE',
    text: 'Year 2026 has not ended yet (today is 2026-11-22): report the costs of a year after it ends; the latest year accepted now is 2025.',
  });
  assert.equal(checkCostReportYear(2031, '2026-11-22')?.code, 'REPORT_YEAR_OUT_OF_RANGE');
  assert.deepEqual(checkCostReportYear(2020, '2026-01-01'), {
    code: 'REPORT_YEAR_OUT_OF_RANGE',
    text: 'Year 2020 is more than 5 years back; years 2021–2025 are accepted now.',
  });
});

test('an account has costs only for a year it was open in', () => {
  assert.equal(checkAccountOpenInYear('DEPA-1', { openedOn: '2025-12-31', closedOn: null }, 2025), undefined);
  assert.equal(checkAccountOpenInYear('DEPA-1', { openedOn: '2020-01-01', closedOn: '2025-01-01' }, 2025), undefined);
  assert.equal(
    checkAccountOpenInYear('DEPA-1', { openedOn: '2026-03-01', closedOn: null }, 2025)?.text,
    'Custody account DEPA-1 was opened on 2026-03-01, after 2025: it has no costs for that year.',
  );
  assert.equal(checkAccountOpenInYear('DEPA-1', { openedOn: '2020-01-01', closedOn: '2024-12-31' }, 2025)?.code, 'CUSTODY_ACCOUNT_UNKNOWN');
});
