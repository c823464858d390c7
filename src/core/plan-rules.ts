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

/** An effective date must lie within the back-dating window and not before `startDate`. */
export function checkEffectiveDate(
  effective: IsoDate,
  facts: { today: IsoDate; maxBackdateDays: number; startDate?: IsoDate; startWhat?: string },
): RuleRejection | undefined {
  const earliest = addDays(facts.today, -facts.maxBackdateDays);
  if (effective < earliest) {
    return { code: 'EFFECTIVE_DATE_TOO_OLD', text: `Effective date ${effective} is before ${earliest}, the earliest date accepted today (${facts.maxBackdateDays} days back).` };
  }
  if (facts.startDate && effective < facts.startDate) {
    return { code: 'EFFECTIVE_DATE_BEFORE_START', text: `Effective date ${effective} is before the ${facts.startWhat ?? 'start'} on ${facts.startDate}.` };
  }
  return undefined;
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
