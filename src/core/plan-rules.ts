import { Decimal } from 'decimal.js';
import type { ErrorCode } from './error-codes.ts';
import { addDays, type IsoDate } from './calendar-date.ts';

/**
 * Rules of plan administration that need no I/O: which effective dates and fee
 * values are acceptable. Handlers load the facts and ask these functions.
 */
export interface RuleRejection {
  readonly code: ErrorCode;
  readonly text: string;
}

/**
 * An effective date must lie within the back-dating window and not before `startDate`.
 * `dateName` words the text with the item's own field ("Stop date 2025-11-21 is before …").
 */
export function checkEffectiveDate(
  effective: IsoDate,
  facts: { today: IsoDate; maxBackdateDays: number; startDate?: IsoDate; startWhat?: string; dateName?: string },
): RuleRejection | undefined {
  const earliest = earliestDate(facts.today, facts.maxBackdateDays);
  const dateName = facts.dateName ?? 'Effective date';
  if (effective < earliest) {
    return { code: 'EFFECTIVE_DATE_TOO_OLD', text: `${dateName} ${effective} is before ${earliest}, the earliest date accepted today (${facts.maxBackdateDays} days back).` };
  }
  if (facts.startDate && effective < facts.startDate) {
    return { code: 'EFFECTIVE_DATE_BEFORE_START', text: `${dateName} ${effective} is before the ${facts.startWhat ?? 'start'} on ${facts.startDate}.` };
  }
  return undefined;
}

/** The earliest date accepted `today`: asked for every item, so the last answer is kept. */
let lastEarliest = { today: '', maxBackdateDays: NaN, earliest: '' };
function earliestDate(today: IsoDate, maxBackdateDays: number): IsoDate {
  if (lastEarliest.today !== today || lastEarliest.maxBackdateDays !== maxBackdateDays) {
    lastEarliest = { today, maxBackdateDays, earliest: addDays(today, -maxBackdateDays) };
  }
  return lastEarliest.earliest;
}

export type FeeType = 'FixedCharge' | 'CapitalCharge';

export interface FeeBounds {
  readonly minFixedCharge: string;
  readonly maxFixedCharge: string;
  readonly minCapitalCharge: string;
  readonly maxCapitalCharge: string;
}

/** A fee must lie within the product's bounds (SEK a year, or percent a year). */
export function checkFeeBounds(feeType: FeeType, value: string, bounds: FeeBounds, productCode: string): RuleRejection | undefined {
  const [min, max, unit] =
    feeType === 'FixedCharge'
      ? [bounds.minFixedCharge, bounds.maxFixedCharge, 'SEK a year']
      : [bounds.minCapitalCharge, bounds.maxCapitalCharge, '% a year'];
  const fee = new Decimal(value);
  if (fee.lessThan(min) || fee.greaterThan(max)) {
    return {
      code: 'FEE_OUT_OF_BOUNDS',
      text: `${feeType} ${fee.toString()} is outside ${new Decimal(min).toString()}–${new Decimal(max).toString()} ${unit} for product ${productCode}.`,
    };
  }
  return undefined;
}

export interface AllocationLine {
  readonly isin: string;
  readonly percent: string;
}

/**
 * A fund allocation (distribution plan or reallocation) names each fund once, only
 * funds selectable in the product, and sums to exactly 100 percent.
 */
export function checkAllocation(lines: readonly AllocationLine[], selectable: ReadonlySet<string>, productCode: string): RuleRejection | undefined {
  const seen = new Set<string>();
  for (const line of lines) {
    if (seen.has(line.isin)) {
      return { code: 'ALLOCATION_DUPLICATE_FUND', text: `Fund ${line.isin} appears more than once in the allocation.` };
    }
    seen.add(line.isin);
    if (!selectable.has(line.isin)) {
      return { code: 'FUND_NOT_SELECTABLE', text: `Fund ${line.isin} cannot be chosen in product ${productCode}.` };
    }
  }
  const sum = lines.reduce((total, line) => total.plus(line.percent), new Decimal(0));
  if (!sum.equals(100)) {
    return { code: 'ALLOCATION_NOT_100', text: `The allocation's percentages sum to ${sum.toString()}, not 100.` };
  }
  return undefined;
}

export interface PremiumBounds {
  readonly minMonthlyPremium: string;
  readonly maxMonthlyPremium: string;
}

/** A monthly premium must lie within the product's bounds. */
export function checkPremiumBounds(monthlyAmount: string, bounds: PremiumBounds, productCode: string): RuleRejection | undefined {
  const amount = new Decimal(monthlyAmount);
  if (amount.lessThan(bounds.minMonthlyPremium) || amount.greaterThan(bounds.maxMonthlyPremium)) {
    return {
      code: 'PREMIUM_OUT_OF_BOUNDS',
      text: `Monthly premium ${amount.toFixed(2)} SEK is outside ${new Decimal(bounds.minMonthlyPremium).toFixed(2)}–${new Decimal(bounds.maxMonthlyPremium).toFixed(2)} SEK for product ${productCode}.`,
    };
  }
  return undefined;
}

/** Premium changes (premium, extra premium, billing) are refused from the day an insurance is paid-up. */
export function checkPremiumPaying(insurance: { insuranceNumber: string; paidUpFrom: string | null }, effective: IsoDate): RuleRejection | undefined {
  if (insurance.paidUpFrom !== null && effective >= insurance.paidUpFrom) {
    return { code: 'INSURANCE_PAID_UP', text: `Insurance ${insurance.insuranceNumber} is paid-up from ${insurance.paidUpFrom}; it takes no premium changes from then on.` };
  }
  return undefined;
}
