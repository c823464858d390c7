import { addDays } from '../../core/calendar-date.ts';
import { checkEffectiveDate, checkPremiumBounds, type AllocationLine, type RuleRejection } from '../../core/plan-rules.ts';
import { findEmployments, findInsurancesOfPersons, type EmploymentFacts } from '../../ledger/plan/plan.repository.ts';
import {
  drawInsuranceNumbers, findProducts, insertPurchasedInsurances, type ProductFacts, type PurchasedInsurance,
} from '../../ledger/plan/insurance-purchase.repository.ts';
import { optionalTextOf, textOf } from '../xml-element.ts';
import { checkAllocationOf, readAllocation } from './insurance-allocation.ts';
import { definePlanMessage, type Decision, type PersonItem, type PlanItemContext } from './plan-message.ts';

/**
 * Insurancepurchase (spelled so in the specification; answered with
 * InsurancePurchaseResponse): the employer or administrator buys an insurance under
 * the agreement for an employee. The gateway numbers it INS-<insurance_number_seq>
 * and returns the number as the accepted item's reference; the agreement's employer
 * is its policyholder.
 * Writes, all from the start date: insurances (created_by_message; custody account as
 * given, else DEPA-<digits of the number>), its first insurance_premiums row, the
 * standard fixed charge (insurance_fees FixedCharge 360 SEK a year) and its initial
 * distribution plan (fund_allocations 'DistributionPlan' and fund_allocation_lines);
 * when the employment covering a back-dated start date has ended since, also
 * insurance_paid_up from the day after the end, as EmploymentEnded does for the rest.
 * Rejections: EMPLOYMENT_UNKNOWN, EMPLOYMENT_ALREADY_ENDED (no employment covers the
 * start date), EFFECTIVE_DATE_TOO_OLD, EFFECTIVE_DATE_BEFORE_START (start date before
 * the employment began), PRODUCT_UNKNOWN, INSURANCE_ALREADY_HELD (a premium-paying
 * insurance of that product, also one bought by an earlier item of the document; one
 * that has ended before the start date is not held),
 * PREMIUM_OUT_OF_BOUNDS, ALLOCATION_DUPLICATE_FUND, FUND_NOT_SELECTABLE, ALLOCATION_NOT_100.
 */
export interface InsurancePurchaseItem extends PersonItem {
  readonly productCode: string;
  readonly startDate: string;
  readonly monthlyPremium: string;
  readonly custodyAccount: string | null;
  readonly allocation: readonly AllocationLine[];
}

interface HeldInsurance {
  readonly insuranceNumber: string;
  readonly productCode: string;
  readonly paidUpFrom: string | null;
  /** Its last day in force, once it has ended (moved to another insurer …): it is not held after that day. */
  readonly lastDay: string | null;
  /** The item of this document that bought it, when one did. */
  readonly boughtByItem?: string;
}

interface PurchaseFacts {
  readonly employments: Map<string, EmploymentFacts[]>;
  /** Each person's insurances under the agreement; an accepted purchase adds its own. */
  readonly held: Map<string, HeldInsurance[]>;
  readonly products: Map<string, ProductFacts>;
  /** Insurance numbers drawn for the document and not yet given, lowest first. */
  readonly numbers: string[];
}

/** The charge every new insurance starts with: the insurer's usual 360 SEK a year (90 a quarter). */
const STANDARD_FIXED_CHARGE = '360';

export const insurancePurchase = definePlanMessage<InsurancePurchaseItem, PurchaseFacts, PurchasedInsurance>({
  name: 'Insurancepurchase',
  responseName: 'InsurancePurchaseResponse',
  readItem: (item): InsurancePurchaseItem => ({
    itemId: textOf(item, 'ItemId'),
    personalIdentityNumber: textOf(item, 'PersonalIdentityNumber'),
    productCode: textOf(item, 'ProductCode'),
    startDate: textOf(item, 'StartDate'),
    monthlyPremium: textOf(item, 'MonthlyPremium'),
    custodyAccount: optionalTextOf(item, 'CustodyAccount') ?? null,
    allocation: readAllocation(item),
  }),
  loadFacts: async (context, items) => {
    const { agreementNumber } = context.agreement;
    const pins = items.map((item) => item.personalIdentityNumber);
    const employments = await findEmployments(context.tx, agreementNumber, pins);
    const insurances = await findInsurancesOfPersons(context.tx, agreementNumber, pins);
    const held = new Map([...insurances].map(([pin, list]) => [pin, list.map(({ insuranceNumber, productCode, paidUpFrom, end }) => ({ insuranceNumber, productCode, paidUpFrom, lastDay: end?.lastDay ?? null }))]));
    const products = await findProducts(context.tx, items.map((item) => item.productCode));
    // One number per item, drawn at once; rejected items leave theirs unused.
    const numbers = await drawInsuranceNumbers(context.tx, items.length);
    return { employments, held, products, numbers };
  },
  decide: decidePurchase,
  write: (context, purchases) => insertPurchasedInsurances(context.tx, context.agreement, context.messageId, purchases),
});

function decidePurchase(context: PlanItemContext, facts: PurchaseFacts, item: InsurancePurchaseItem): Decision<PurchasedInsurance> {
  const employment = checkEmployment(context, facts.employments.get(item.personalIdentityNumber) ?? [], item);
  if ('reject' in employment) return employment;
  const product = facts.products.get(item.productCode);
  if (!product) {
    return { reject: { code: 'PRODUCT_UNKNOWN', text: `Product ${item.productCode} is not one of the insurer's products.` } };
  }
  const held = facts.held.get(item.personalIdentityNumber) ?? [];
  const rejection =
    checkNotHeld(context, held, item) ??
    checkPremiumBounds(item.monthlyPremium, product, product.code) ??
    checkAllocationOf(`Distribution plan of the new ${product.code} insurance`, item.allocation, product.funds, product.code);
  if (rejection) return { reject: rejection };
  const insuranceNumber = facts.numbers.shift();
  if (insuranceNumber === undefined) throw new Error('more accepted purchases than insurance numbers drawn for the document');
  // Bought for an employment that has since ended (a back-dated purchase): paid-up from the day after, as EmploymentEnded makes every other.
  const { endDate } = employment.employment;
  const paidUpFrom = endDate === null ? null : addDays(endDate, 1);
  held.push({ insuranceNumber, productCode: product.code, paidUpFrom, lastDay: null, boughtByItem: item.itemId }); // a later item of the document sees it held
  facts.held.set(item.personalIdentityNumber, held);
  const purchase: PurchasedInsurance = {
    insuranceNumber,
    personalIdentityNumber: item.personalIdentityNumber,
    productCode: product.code,
    startDate: item.startDate,
    custodyAccount: item.custodyAccount ?? `DEPA-${insuranceNumber.replace(/\D/g, '')}`,
    monthlyPremium: item.monthlyPremium,
    fixedCharge: STANDARD_FIXED_CHARGE,
    paidUpFrom,
    allocation: item.allocation,
  };
  return { accept: purchase, reference: insuranceNumber };
}

/** The employment that covers the start date: begun on or before it and not ended before it, within the back-dating window. */
function checkEmployment(context: PlanItemContext, employments: readonly EmploymentFacts[], item: InsurancePurchaseItem): { employment: EmploymentFacts } | { reject: RuleRejection } {
  const { agreementNumber } = context.agreement;
  const pin = item.personalIdentityNumber;
  // Latest start first: the latest employment begun by the start date, else the earliest, whose start the date is before.
  const employment = employments.find((candidate) => candidate.startDate <= item.startDate) ?? employments.at(-1);
  if (!employment) {
    return { reject: { code: 'EMPLOYMENT_UNKNOWN', text: `${pin} has no employment under agreement ${agreementNumber}; an insurance can only be bought for an employee.` } };
  }
  if (employment.endDate !== null && employment.endDate < item.startDate) {
    return {
      reject: {
        code: 'EMPLOYMENT_ALREADY_ENDED',
        text: `The employment of ${pin} under agreement ${agreementNumber} ended on ${employment.endDate}, before the start date ${item.startDate} of the insurance.`,
      },
    };
  }
  const rejection = checkEffectiveDate(item.startDate, {
    today: context.today,
    maxBackdateDays: context.rules.maxBackdateDays,
    startDate: employment.startDate,
    startWhat: `start of the employment of ${pin}`,
  });
  if (!rejection) return { employment };
  // The shared rule speaks of an effective date; the sender's field is StartDate.
  return { reject: { code: rejection.code, text: rejection.text.replace(/^Effective date/, 'Start date') } };
}

/** One premium-paying insurance of a product per person and agreement: one paid-up before the start date does not count. */
function checkNotHeld(context: PlanItemContext, held: readonly HeldInsurance[], item: InsurancePurchaseItem): RuleRejection | undefined {
  const existing = held.find(
    (insurance) => insurance.productCode === item.productCode && (insurance.paidUpFrom === null || insurance.paidUpFrom > item.startDate) &&
      (insurance.lastDay === null || insurance.lastDay >= item.startDate),
  );
  if (!existing) return undefined;
  return {
    code: 'INSURANCE_ALREADY_HELD',
    text:
      `${item.personalIdentityNumber} already holds insurance ${existing.insuranceNumber} of product ${item.productCode} under agreement ` +
      `${context.agreement.agreementNumber}${existing.boughtByItem ? ` (bought by item ${existing.boughtByItem} of this document)` : ''}, ` +
      `premium-paying on ${item.startDate}; change that insurance instead of buying another.`,
  };
}
