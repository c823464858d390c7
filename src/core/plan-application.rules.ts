import { Decimal } from 'decimal.js';
import type { IsoDate } from './calendar-date.ts';
import type { ErrorCode } from './error-codes.ts';
import { isValidOrganisationNumber, isValidPersonalIdentityNumber } from './identifiers.ts';
import { incomeBaseAmount, SALARY_CAP_INCOME_BASE_AMOUNTS } from './income-base-amounts.ts';
import {
  checkCustodian, checkFundChoice, checkProductAndAdvisor, type ApplicationFacts, type ApplicationProblem, type FundChoice, type ProductLine,
} from './insurance-application.rules.ts';

/**
 * The business checks of a pension plan application (an employer's occupational plan),
 * after its JSON schema has passed: every problem at once, each with the JSON path of
 * the value it is about. Then what the plan's terms give each employee — the monthly
 * premium of the employee's category — and the manual-review rules.
 *
 * A category's premium rule is the one the plan-administration ledger holds
 * (agreement_categories): a percent of the monthly salary, with a higher percent on
 * the part above 7.5 income base amounts a year when given, or a fixed monthly amount.
 * The income base amount is the one of the year the application was submitted, so the
 * premiums issued are the ones the check showed.
 */

export type PremiumRuleInput =
  | { readonly percentOfSalary: string; readonly percentAboveCap?: string }
  | { readonly fixedMonthly: string };

export interface PlanCategoryInput {
  readonly code: string;
  readonly name: string;
  readonly premium: PremiumRuleInput;
}

export interface PlanEmployeeInput {
  readonly personalIdentityNumber: string;
  readonly category: string;
  readonly costCenter: string;
  /** SEK a year, as a decimal string. */
  readonly annualSalary: string;
  readonly employmentStart: IsoDate;
}

export interface PlanApplicationInput {
  readonly productId: string;
  readonly advisorCode: string;
  /** `contactEmail`: where the employer is told when the application goes to manual review; optional. */
  readonly employer: { readonly organisationNumber: string; readonly name: string; readonly contactEmail?: string };
  readonly agreement: {
    readonly categories: readonly PlanCategoryInput[];
    readonly costCenters: readonly { readonly code: string; readonly name: string }[];
  };
  /** The distribution plan every employee's insurance starts with. */
  readonly funds: readonly FundChoice[];
  readonly custodianId: string;
  readonly employees: readonly PlanEmployeeInput[];
}

export interface PlanProduct {
  readonly id: string;
  readonly line: ProductLine;
  readonly minMonthlyPremium: string;
  readonly maxMonthlyPremium: string;
}

export type PlanApplicationFacts = ApplicationFacts<PlanProduct>;

export interface PlanReviewRules {
  /** A plan with more employees than this needs a person's review. */
  readonly planEmployeesAbove: number;
}

export function checkPlanApplication(input: PlanApplicationInput, facts: PlanApplicationFacts, submittedOn: IsoDate): ApplicationProblem[] {
  const problems: ApplicationProblem[] = [];
  const problem = (path: string, code: ErrorCode, message: string) => problems.push({ path, code, message });
  const { product } = facts;

  problems.push(...checkProductAndAdvisor('occupational', input, facts));
  if (!isValidOrganisationNumber(input.employer.organisationNumber)) {
    problem('$.employer.organisationNumber', 'ORGANISATION_NUMBER_INVALID', 'An organisationsnummer of 10 digits whose check digit is right.');
  }

  const categories = firstOfEach(input.agreement.categories, (category, index) =>
    problem(`$.agreement.categories[${index}].code`, 'CATEGORY_ALREADY_DEFINED', `Category ${category.code} is defined more than once.`));
  const costCenters = firstOfEach(input.agreement.costCenters, (costCenter, index) =>
    problem(`$.agreement.costCenters[${index}].code`, 'COST_CENTER_ALREADY_DEFINED', `Cost center ${costCenter.code} is defined more than once.`));
  const capNeeded = input.agreement.categories.findIndex((category) => 'percentOfSalary' in category.premium && category.premium.percentAboveCap !== undefined);
  if (capNeeded >= 0 && incomeBaseAmount(yearOf(submittedOn)) === undefined) {
    problem(`$.agreement.categories[${capNeeded}].premium.percentAboveCap`, 'INCOME_BASE_AMOUNT_UNKNOWN', `The income base amount of ${yearOf(submittedOn)} is not yet known to the insurer's gateway.`);
  }

  problems.push(...checkFundChoice(input.funds, product?.id, facts.selectableIsins));
  problems.push(...checkCustodian(input.custodianId, facts.custodianIds));

  const seen = new Set<string>();
  for (const [index, employee] of input.employees.entries()) {
    const path = `$.employees[${index}]`;
    const pin = employee.personalIdentityNumber;
    if (!isValidPersonalIdentityNumber(pin)) problem(`${path}.personalIdentityNumber`, 'PERSONAL_IDENTITY_NUMBER_INVALID', 'A personnummer of 12 digits whose check digit is right.');
    else if (seen.has(pin)) problem(`${path}.personalIdentityNumber`, 'EMPLOYEE_LISTED_TWICE', `${pin} is listed more than once.`);
    seen.add(pin);
    const category = categories.get(employee.category);
    if (!category) problem(`${path}.category`, 'CATEGORY_UNKNOWN', `Category ${employee.category} is not one of the plan's (${[...categories.keys()].join(', ')}).`);
    if (!costCenters.has(employee.costCenter)) problem(`${path}.costCenter`, 'COST_CENTER_UNKNOWN', `Cost center ${employee.costCenter} is not one of the plan's (${[...costCenters.keys()].join(', ')}).`);
    if (category && product) {
      const monthly = employeePremium(category, employee, submittedOn);
      if (monthly !== undefined && (new Decimal(monthly).lt(product.minMonthlyPremium) || new Decimal(monthly).gt(product.maxMonthlyPremium))) {
        problem(path, 'PREMIUM_OUT_OF_BOUNDS', `Category ${category.code} gives ${monthly} SEK a month; ${product.id} takes between ${product.minMonthlyPremium} and ${product.maxMonthlyPremium}.`);
      }
    }
  }
  return problems;
}

/** Each employee's monthly premium under the plan's terms, in the order of `employees`; the application has passed its checks. */
export function planPremiums(input: PlanApplicationInput, submittedOn: IsoDate): { readonly personalIdentityNumber: string; readonly monthlyPremium: string }[] {
  const categories = new Map(input.agreement.categories.map((category) => [category.code, category]));
  return input.employees.map((employee) => {
    const category = categories.get(employee.category);
    const monthly = category && employeePremium(category, employee, submittedOn);
    if (monthly === undefined) throw new Error(`no premium for ${employee.personalIdentityNumber}: the application was not checked`);
    return { personalIdentityNumber: employee.personalIdentityNumber, monthlyPremium: monthly };
  });
}

/**
 * The monthly premium a category's rule gives an annual salary: p % of the monthly
 * salary up to the cap (7.5 income base amounts / 12) and q % of the part above it, or
 * p % of all of it when no q is given, or the fixed amount; rounded to the öre (half up).
 * Undefined when the rule has a cap and the year's income base amount is not known.
 */
export function employeePremium(category: PlanCategoryInput, employee: Pick<PlanEmployeeInput, 'annualSalary'>, submittedOn: IsoDate): string | undefined {
  const rule = category.premium;
  if ('fixedMonthly' in rule) return new Decimal(rule.fixedMonthly).toFixed(2);
  const monthlySalary = new Decimal(employee.annualSalary).dividedBy(12);
  if (rule.percentAboveCap === undefined) return monthlySalary.times(rule.percentOfSalary).dividedBy(100).toFixed(2, Decimal.ROUND_HALF_UP);
  const base = incomeBaseAmount(yearOf(submittedOn));
  if (base === undefined) return undefined;
  const cap = new Decimal(base).times(SALARY_CAP_INCOME_BASE_AMOUNTS).dividedBy(12);
  const below = Decimal.min(monthlySalary, cap);
  const above = Decimal.max(monthlySalary.minus(cap), 0);
  return below.times(rule.percentOfSalary).plus(above.times(rule.percentAboveCap)).dividedBy(100).toFixed(2, Decimal.ROUND_HALF_UP);
}

/** Why a person must look at a plan before it is approved. */
export interface ReviewReason {
  readonly text: string;
  /**
   * It tells what the insurer knows of the employer (an agreement it already has): shown
   * to staff, and to a firm only when it holds a power of attorney on the employer; any
   * other firm would learn from it who is a customer.
   */
  readonly aboutEmployer: boolean;
}

/** Why a person must look at the plan before it is approved; none: it is approved at once. */
export function planReviewReasons(input: PlanApplicationInput, rules: PlanReviewRules, employerAgreements: readonly string[]): ReviewReason[] {
  const reasons: ReviewReason[] = [];
  if (input.employees.length > rules.planEmployeesAbove) reasons.push({ text: `more than ${rules.planEmployeesAbove} employees`, aboutEmployer: false });
  if (employerAgreements.length > 0) reasons.push({ text: `the employer already has agreement ${employerAgreements.join(', ')} with the insurer`, aboutEmployer: true });
  return reasons;
}

/** The reasons a firm is shown: those about the employer only when it may see the employer. */
export function reviewReasonsShown(reasons: readonly ReviewReason[], firmMaySeeEmployer: boolean): string[] {
  return reasons.filter((reason) => firmMaySeeEmployer || !reason.aboutEmployer).map((reason) => reason.text);
}

/** What a firm reads as the reason of a review when it may be shown none of the reasons. */
export const REVIEW_REASON_WITHHELD = "the insurer's staff review the application";

/** The first entry of each code, by code; `repeated` is told of every later one. */
function firstOfEach<T extends { readonly code: string }>(entries: readonly T[], repeated: (entry: T, index: number) => void): Map<string, T> {
  const first = new Map<string, T>();
  for (const [index, entry] of entries.entries()) {
    if (first.has(entry.code)) repeated(entry, index);
    else first.set(entry.code, entry);
  }
  return first;
}

function yearOf(day: IsoDate): number {
  return Number(day.slice(0, 4));
}
