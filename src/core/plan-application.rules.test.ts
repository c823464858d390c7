import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { checkPlanApplication, employeePremium, planPremiums, planReviewReasons, reviewReasonsShown, type PlanApplicationFacts, type PlanApplicationInput } from './plan-application.rules.ts';

const facts: PlanApplicationFacts = {
  product: { id: 'TJP-DEPA', line: 'occupational', minMonthlyPremium: '100', maxMonthlyPremium: '50000' },
  selectableIsins: new Set(['SE000DEPA010', 'SE000DEPA044']),
  advisor: { active: true },
  custodianIds: ['demo-custodian'],
};

/** A category or cost center (its code is not an error code). */
function coded<T extends object>(code: string, name: string, rest?: T): { code: string; name: string } & T {
  return { code, name, ...(rest as T) };
}

const plan: PlanApplicationInput = {
  productId: 'TJP-DEPA', advisorCode: 'ADV-001',
  employer: { organisationNumber: '8020000009', name: 'Other Employer AB' },
  agreement: {
    categories: [
      coded('TJM', 'Tjänstemän', { premium: { percentOfSalary: '4.5', percentAboveCap: '30' } }),
      coded('ARB', 'Arbetare', { premium: { percentOfSalary: '4.5' } }),
      coded('FAST', 'Fast premie', { premium: { fixedMonthly: '1500' } }),
    ],
    costCenters: [coded('100', 'Ekonomi'), coded('200', 'Produktion')],
  },
  funds: [{ isin: 'SE000DEPA010', percent: 100 }],
  custodianId: 'demo-custodian',
  employees: [
    { personalIdentityNumber: '199506151233', category: 'TJM', costCenter: '100', annualSalary: '720000.00', employmentStart: '2024-03-01' },
    { personalIdentityNumber: '198803031239', category: 'ARB', costCenter: '200', annualSalary: '400000', employmentStart: '2027-01-01' },
  ],
};

test('a sound plan has no problems', () => {
  assert.deepEqual(checkPlanApplication(plan, facts, '2026-11-25'), []);
});

test('every problem at once, each at its JSON path', () => {
  const broken: PlanApplicationInput = {
    ...plan,
    employer: { organisationNumber: '8020000008', name: 'Other Employer AB' },
    agreement: { categories: [...plan.agreement.categories, plan.agreement.categories[0]!], costCenters: [...plan.agreement.costCenters, coded('100', 'Again')] },
    employees: [
      plan.employees[0]!,
      { ...plan.employees[1]!, category: 'NONE', costCenter: '999' },
      { ...plan.employees[0]!, category: 'FAST' },
      { ...plan.employees[0]!, personalIdentityNumber: '199506151234' },
    ],
  };
  assert.deepEqual(checkPlanApplication(broken, facts, '2026-11-25').map((problem) => [problem.path, problem.code]), [
    ['$.employer.organisationNumber', 'ORGANISATION_NUMBER_INVALID'],
    ['$.agreement.categories[3].code', 'CATEGORY_ALREADY_DEFINED'],
    ['$.agreement.costCenters[2].code', 'COST_CENTER_ALREADY_DEFINED'],
    ['$.employees[1].category', 'CATEGORY_UNKNOWN'],
    ['$.employees[1].costCenter', 'COST_CENTER_UNKNOWN'],
    ['$.employees[2].personalIdentityNumber', 'EMPLOYEE_LISTED_TWICE'],
    ['$.employees[3].personalIdentityNumber', 'PERSONAL_IDENTITY_NUMBER_INVALID'],
  ]);
});

test('an individual product, an unknown advisor and custodian, and funds the product does not offer', () => {
  const problems = checkPlanApplication({ ...plan, funds: [{ isin: 'SE000DEPA036', percent: 90 }], custodianId: 'nobody' }, {
    ...facts, product: { ...facts.product!, id: 'KF-DEPA', line: 'individual' }, advisor: undefined,
  }, '2026-11-25');
  assert.deepEqual(problems.map((problem) => [problem.path, problem.code]), [
    ['$.productId', 'PRODUCT_UNKNOWN'], ['$.advisorCode', 'ADVISOR_UNKNOWN'],
    ['$.funds[0].isin', 'FUND_NOT_SELECTABLE'], ['$.funds', 'ALLOCATION_NOT_100'], ['$.custodianId', 'CUSTODIAN_UNKNOWN'],
  ]);
});

test("a category's rule: percent up to 7.5 income base amounts and a higher one above, a flat percent, or a fixed amount", () => {
  const [tjm, arb, fast] = plan.agreement.categories;
  // 2026: 83 400 × 7.5 / 12 = 52 125 a month. 60 000: 4.5 % × 52 125 + 30 % × 7 875 = 2 345.625 + 2 362.50 = 4 708.125 → 4 708.13.
  assert.equal(employeePremium(tjm!, { annualSalary: '720000.00' }, '2026-11-25'), '4708.13');
  assert.equal(employeePremium(tjm!, { annualSalary: '480000' }, '2026-11-25'), '1800.00', 'below the cap: 4.5 % of 40 000');
  // 2025: 80 600 × 7.5 / 12 = 50 375. 60 000: 2 266.875 + 30 % × 9 625 = 2 887.50 → 5 154.375 → 5 154.38.
  assert.equal(employeePremium(tjm!, { annualSalary: '720000' }, '2025-06-01'), '5154.38');
  assert.equal(employeePremium(tjm!, { annualSalary: '720000' }, '2031-01-02'), undefined, 'no income base amount for 2031');
  assert.equal(employeePremium(arb!, { annualSalary: '400000' }, '2031-01-02'), '1500.00', 'no cap, no income base amount needed: 4.5 % of 33 333.33…');
  assert.equal(employeePremium(fast!, { annualSalary: '1' }, '2026-11-25'), '1500.00');
  assert.deepEqual(planPremiums(plan, '2026-11-25'), [
    { personalIdentityNumber: '199506151233', monthlyPremium: '4708.13' }, { personalIdentityNumber: '198803031239', monthlyPremium: '1500.00' },
  ]);
});

test("a premium outside the product's bounds, and a capped rule in a year without its income base amount", () => {
  const low: PlanApplicationInput = { ...plan, employees: [{ ...plan.employees[1]!, annualSalary: '20000' }] }; // 4.5 % of 1 666.67 = 75.00
  assert.deepEqual(checkPlanApplication(low, facts, '2026-11-25').map((problem) => [problem.path, problem.code, problem.message]), [
    ['$.employees[0]', 'PREMIUM_OUT_OF_BOUNDS', 'Category ARB gives 75.00 SEK a month; TJP-DEPA takes between 100 and 50000.'],
  ]);
  assert.deepEqual(checkPlanApplication(plan, facts, '2031-01-02').map((problem) => [problem.path, problem.code]), [
    ['$.agreement.categories[0].premium.percentAboveCap', 'INCOME_BASE_AMOUNT_UNKNOWN'],
  ]);
});

test('a person looks at a large plan, and at an employer that already has an agreement', () => {
  assert.deepEqual(planReviewReasons(plan, { planEmployeesAbove: 50 }, []), []);
  assert.deepEqual(planReviewReasons(plan, { planEmployeesAbove: 1 }, ['AGR-1001']), [
    { text: 'more than 1 employees', aboutEmployer: false }, { text: 'the employer already has agreement AGR-1001 with the insurer', aboutEmployer: true },
  ]);
});

test("a firm is told of the employer's agreement only when it may see the employer", () => {
  const reasons = planReviewReasons(plan, { planEmployeesAbove: 1 }, ['AGR-1001']);
  assert.deepEqual(reviewReasonsShown(reasons, true), ['more than 1 employees', 'the employer already has agreement AGR-1001 with the insurer']);
  assert.deepEqual(reviewReasonsShown(reasons, false), ['more than 1 employees']);
  assert.deepEqual(reviewReasonsShown(planReviewReasons(plan, { planEmployeesAbove: 50 }, ['AGR-1001']), false), []);
});
