import { Decimal } from 'decimal.js';
import type { ErrorCode } from './error-codes.ts';
import { isValidIsin, isValidOrganisationNumber, isValidPersonalIdentityNumber } from './identifiers.ts';
import type { IsoDate } from './calendar-date.ts';
import type { CoverageType } from './debit-run.ts';

/**
 * The business checks of an individual insurance application, after its JSON schema
 * (shapes, types, unknown fields) has passed: every problem at once, each with the
 * JSON path of the value it is about, so an advisor's system can mark every field in
 * one round. Then the manual-review rules: an application a person must look at
 * before it is approved says why.
 */

export interface InsuranceApplicationInput {
  readonly productId: string;
  readonly advisorCode: string;
  /** `email`: where the policyholder is told when the application goes to manual review; optional. */
  readonly policyholder: { readonly id: string; readonly email?: string };
  /** `email`: where the insured is told that payout can begin; optional (without it, and without the policyholder's own when the same person: a letter). */
  readonly insured: { readonly id: string; readonly email?: string };
  /** P, T or K; needed only where the product offers more than one. */
  readonly taxCategory?: string;
  /** SEK, as decimal strings ("10000.00"); at least one of the two. */
  readonly premium: { readonly single?: string; readonly monthly?: string };
  readonly funds: readonly FundChoice[];
  readonly custodianId: string;
  readonly beneficiary: { readonly choice: 'standard' | 'named'; readonly names?: readonly string[] };
  readonly coverages: { readonly repaymentProtection: boolean; readonly premiumWaiver: boolean };
}

/** A fund for future premiums and its share of them, in percent. */
export interface FundChoice {
  readonly isin: string;
  readonly percent: number;
}

/** Individual insurances are applied for with POST /InsuranceApplication, occupational plans with POST /PlanApplication. */
export type ProductLine = 'individual' | 'occupational';

export interface ApplicationProduct {
  readonly id: string;
  readonly taxCategory: 'P' | 'T' | 'K';
  readonly line: ProductLine;
  readonly minMonthlyPremium: string;
  readonly maxMonthlyPremium: string;
  readonly maxSinglePremium: string;
}

/**
 * What an application is checked against, looked up before the check. A plan
 * application has the same facts; only its product tells less (`Product`: what the
 * application's rules read of it).
 */
export interface ApplicationFacts<Product = ApplicationProduct> {
  /** The product, when it exists and is open for subscription. */
  readonly product: Product | undefined;
  readonly selectableIsins: ReadonlySet<string>;
  /** The advisor, when the code is one of the calling firm's. */
  readonly advisor: { readonly active: boolean } | undefined;
  readonly custodianIds: readonly string[];
}

export interface ApplicationProblem {
  readonly path: string;
  readonly code: ErrorCode;
  readonly message: string;
}

export interface ReviewRules {
  /** A single premium above this (SEK) needs a person's review. */
  readonly singlePremiumAbove: string;
  /** An insured older than this (years, on the day of application) needs a person's review. */
  readonly insuredOlderThan: number;
}

export function checkInsuranceApplication(input: InsuranceApplicationInput, facts: ApplicationFacts): ApplicationProblem[] {
  const problems: ApplicationProblem[] = [];
  const problem = (path: string, code: ErrorCode, message: string) => problems.push({ path, code, message });
  const { product } = facts;

  problems.push(...checkProductAndAdvisor('individual', input, facts));
  if (!isCustomerId(input.policyholder.id)) problem('$.policyholder.id', 'PERSONAL_IDENTITY_NUMBER_INVALID', 'A personnummer (12 digits) or an organisationsnummer (10 digits) whose check digit is right.');
  if (!isValidPersonalIdentityNumber(input.insured.id)) problem('$.insured.id', 'PERSONAL_IDENTITY_NUMBER_INVALID', 'The insured is a person: a personnummer of 12 digits whose check digit is right.');
  if (product && input.taxCategory !== undefined && input.taxCategory !== product.taxCategory) {
    problem('$.taxCategory', 'PRODUCT_KIND_MISMATCH', `${product.id} is offered as ${product.taxCategory} only.`);
  }

  const single = amount(input.premium.single);
  const monthly = amount(input.premium.monthly);
  if (single === undefined && monthly === undefined) problem('$.premium', 'PREMIUM_OUT_OF_BOUNDS', 'Give a single premium, a monthly premium or both.');
  if (single === null || (single && single.lte(0))) problem('$.premium.single', 'PREMIUM_OUT_OF_BOUNDS', 'An amount in SEK above zero, at most two decimals.');
  if (monthly === null || (monthly && monthly.lte(0))) problem('$.premium.monthly', 'PREMIUM_OUT_OF_BOUNDS', 'An amount in SEK above zero, at most two decimals.');
  if (product && single && single.gt(product.maxSinglePremium)) problem('$.premium.single', 'PREMIUM_OUT_OF_BOUNDS', `At most ${product.maxSinglePremium} SEK in ${product.id}.`);
  if (product && monthly && (monthly.lt(product.minMonthlyPremium) || monthly.gt(product.maxMonthlyPremium))) {
    problem('$.premium.monthly', 'PREMIUM_OUT_OF_BOUNDS', `Between ${product.minMonthlyPremium} and ${product.maxMonthlyPremium} SEK a month in ${product.id}.`);
  }

  problems.push(...checkFundChoice(input.funds, product?.id, facts.selectableIsins));

  problems.push(...checkCustodian(input.custodianId, facts.custodianIds));
  if (input.beneficiary.choice === 'named' && (input.beneficiary.names ?? []).length === 0) problem('$.beneficiary.names', 'BENEFICIARY_MISSING', 'A named beneficiary choice names at least one beneficiary.');
  // Every capital insurance carries repayment protection: 101 % of the custody value if the insured dies before payout begins.
  if (product?.taxCategory === 'K' && !input.coverages.repaymentProtection) {
    problem('$.coverages.repaymentProtection', 'REPAYMENT_PROTECTION_REQUIRED', `${product.id} is a capital insurance (K), which always carries repayment protection: set it to true.`);
  }
  return problems;
}

/** Where a product of each line is applied for: an application sent to the other one is told where. */
const APPLICATION_ENDPOINTS: Record<ProductLine, string> = { individual: 'POST /InsuranceApplication', occupational: 'POST /PlanApplication' };

/**
 * The product and the advisor (`$.productId`, `$.advisorCode`), checked alike for an
 * individual insurance and an employer's plan: a product open for subscription in the
 * line applied for, and an active advisor of the calling firm.
 */
export function checkProductAndAdvisor(
  line: ProductLine,
  input: { readonly productId: string; readonly advisorCode: string },
  facts: ApplicationFacts<Pick<ApplicationProduct, 'id' | 'line'>>,
): ApplicationProblem[] {
  const problems: ApplicationProblem[] = [];
  const { product, advisor } = facts;
  if (!product) {
    problems.push({ path: '$.productId', code: 'PRODUCT_UNKNOWN', message: `No product ${input.productId} is open for subscription.` });
  } else if (product.line !== line) {
    problems.push({ path: '$.productId', code: 'PRODUCT_UNKNOWN', message: `${product.id} is an ${product.line} product: apply with ${APPLICATION_ENDPOINTS[product.line]}.` });
  }
  if (!advisor) problems.push({ path: '$.advisorCode', code: 'ADVISOR_UNKNOWN', message: `${input.advisorCode} is not an advisor of your firm.` });
  else if (!advisor.active) problems.push({ path: '$.advisorCode', code: 'ADVISOR_UNKNOWN', message: `${input.advisorCode} is not active.` });
  return problems;
}

/**
 * The funds chosen for future premiums (`$.funds`): each once, each a valid ISIN
 * selectable in the product (not checked when the product is unknown), percentages
 * summing to 100.
 */
export function checkFundChoice(funds: readonly FundChoice[], productId: string | undefined, selectableIsins: ReadonlySet<string>): ApplicationProblem[] {
  const problems: ApplicationProblem[] = [];
  const seen = new Set<string>();
  let total = new Decimal(0);
  for (const [index, fund] of funds.entries()) {
    if (seen.has(fund.isin)) problems.push({ path: `$.funds[${index}].isin`, code: 'ALLOCATION_DUPLICATE_FUND', message: `${fund.isin} is named more than once.` });
    seen.add(fund.isin);
    if (!isValidIsin(fund.isin)) {
      problems.push({ path: `$.funds[${index}].isin`, code: 'ISIN_INVALID', message: `${fund.isin} is not an ISIN: its check digit is wrong.` });
    } else if (productId !== undefined && !selectableIsins.has(fund.isin)) {
      problems.push({ path: `$.funds[${index}].isin`, code: 'FUND_NOT_SELECTABLE', message: `${fund.isin} cannot be chosen in ${productId} (GET /Product/${productId}/Funds).` });
    }
    total = total.plus(fund.percent);
  }
  if (!total.eq(100)) problems.push({ path: '$.funds', code: 'ALLOCATION_NOT_100', message: `The percentages sum to ${total.toString()}, not 100.` });
  return problems;
}

/** The custodian (`$.custodianId`): one of the insurer's, whatever the application is for. */
export function checkCustodian(custodianId: string, custodianIds: readonly string[]): ApplicationProblem[] {
  if (custodianIds.includes(custodianId)) return [];
  return [{ path: '$.custodianId', code: 'CUSTODIAN_UNKNOWN', message: `${custodianId} is not a custodian of the insurer (${custodianIds.join(', ')}).` }];
}

/** Why a person must look at the application before it is approved; none: it is approved at once. */
export function reviewReasons(input: InsuranceApplicationInput, rules: ReviewRules, today: IsoDate): string[] {
  const reasons: string[] = [];
  const single = amount(input.premium.single);
  if (single && single.gt(rules.singlePremiumAbove)) reasons.push(`single premium above ${rules.singlePremiumAbove} SEK`);
  const age = ageOn(input.insured.id, today);
  if (age !== undefined && age > rules.insuredOlderThan) reasons.push(`insured older than ${rules.insuredOlderThan}`);
  if (isValidOrganisationNumber(input.policyholder.id)) reasons.push('the policyholder is an organisation');
  return reasons;
}

/** The coverages an application chose, as the ledger records them. */
export function coverageTypesOf(coverages: InsuranceApplicationInput['coverages']): CoverageType[] {
  return [...(coverages.repaymentProtection ? ['repaymentProtection' as const] : []), ...(coverages.premiumWaiver ? ['premiumWaiver' as const] : [])];
}

function isCustomerId(id: string): boolean {
  return isValidPersonalIdentityNumber(id) || isValidOrganisationNumber(id);
}

/** undefined: not given; null: not an amount. */
function amount(value: string | undefined): Decimal | undefined | null {
  if (value === undefined) return undefined;
  return /^\d{1,12}(\.\d{1,2})?$/.test(value) ? new Decimal(value) : null;
}

/** Whole years on a day, from a personnummer's birth date (a coordination number's day is 60 higher). */
function ageOn(pin: string, today: IsoDate): number | undefined {
  if (!/^\d{12}$/.test(pin)) return undefined;
  const year = Number(pin.slice(0, 4));
  const month = pin.slice(4, 6);
  const day = String(Number(pin.slice(6, 8)) % 60).padStart(2, '0');
  const birthdayPassed = `${month}-${day}` <= today.slice(5);
  return Number(today.slice(0, 4)) - year - (birthdayPassed ? 0 : 1);
}
