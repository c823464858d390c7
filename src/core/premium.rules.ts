import { Decimal } from 'decimal.js';
import type { IsoDate } from './calendar-date.ts';
import { checkPremiumPaying, type RuleRejection } from './plan-rules.ts';

/**
 * Rules of the premium documents (PremiumAdjustment, PremiumEnded, ExtraPremium) that
 * need no I/O and that plan-rules.ts does not already have: making an insurance
 * paid-up only once, the product's ceiling on one extra premium and its due date
 * before the paid-up date, and wording the shared rules' rejections with the item's
 * own field and insurance so the sender knows what to fix.
 */

/**
 * An insurance becomes paid-up (fribrev) once: premiums cannot stop twice. Refused
 * whatever the requested date, also when the paid-up date is still ahead, since a
 * second paid-up row would be ignored (the earliest wins) and "Accepted" would change
 * nothing. `byItem` names the item of the same document that made it paid-up.
 */
export function checkNotYetPaidUp(insurance: { insuranceNumber: string; paidUpFrom: IsoDate | null }, byItem?: string): RuleRejection | undefined {
  if (insurance.paidUpFrom === null) return undefined;
  const source = byItem === undefined ? '' : ` by item ${byItem} of this document`;
  return {
    code: 'INSURANCE_PAID_UP',
    text: `Insurance ${insurance.insuranceNumber} is already paid-up from ${insurance.paidUpFrom}${source}; it cannot be made paid-up again.`,
  };
}

/** One extra premium may not exceed the product's maximum for a single payment (SEK). */
export function checkExtraPremiumAmount(
  amount: string,
  insurance: { insuranceNumber: string; productCode: string; maxExtraPremium: string },
): RuleRejection | undefined {
  const value = new Decimal(amount);
  if (value.lessThanOrEqualTo(insurance.maxExtraPremium)) return undefined;
  return {
    code: 'PREMIUM_OUT_OF_BOUNDS',
    text:
      `Extra premium ${value.toFixed(2)} SEK to insurance ${insurance.insuranceNumber} is above ${new Decimal(insurance.maxExtraPremium).toFixed(2)} SEK, ` +
      `the most product ${insurance.productCode} takes in one extra premium.`,
  };
}

/**
 * An extra premium must fall due before the insurance becomes paid-up: from that day it
 * takes no premium (the rule of checkPremiumPaying, worded for an invoice).
 */
export function checkDueBeforePaidUp(insurance: { insuranceNumber: string; paidUpFrom: IsoDate | null }, dueDate: IsoDate): RuleRejection | undefined {
  if (checkPremiumPaying(insurance, dueDate) === undefined) return undefined;
  return {
    code: 'INSURANCE_PAID_UP',
    text: `Insurance ${insurance.insuranceNumber} is paid-up from ${insurance.paidUpFrom}; it takes no extra premium due on or after that day (due date ${dueDate}).`,
  };
}

/**
 * A product-bounds rejection ("… for product TJP-DEPA.") that also names the item's
 * insurance, so a sender with several insurances per person sees which one it was.
 */
export function namingInsurance(rejection: RuleRejection | undefined, insuranceNumber: string): RuleRejection | undefined {
  return rejection && { ...rejection, text: rejection.text.replace(/for product (\S+)\.$/, `for product $1, the product of insurance ${insuranceNumber}.`) };
}


/**
 * The invoice number of an extra premium: XP- and the value of
 * extra_premium_invoice_seq, zero-padded to six digits (XP-000001). Never truncated:
 * the millionth invoice is XP-1000000.
 */
export function extraPremiumInvoiceNumber(sequenceValue: string): string {
  return `XP-${sequenceValue.padStart(6, '0')}`;
}
