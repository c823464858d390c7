import { Decimal } from 'decimal.js';
import { addDays, daysBetween, type IsoDate } from './calendar-date.ts';
import { daysInYear } from './charges/quarter-span.ts';
import { yieldTaxOnOpeningValue, type Deposit, type ProductKind } from './charges/charges.ts';
import type { YieldTaxRateTable } from './charges/yield-tax-rates.ts';

/**
 * Whether an insurance allows a withdrawal (buy-back) today, and between which amounts.
 *
 * - **Tax category.** Only capital insurance (K) can be bought back at the
 *   policyholder's wish. Private pension insurance (P) may be bought back only under
 *   the narrow exceptions of the tax rules, and occupational pension (T) is paid out,
 *   never bought back: both are answered "no" here, with the reason.
 * - **Product rules.** The insurance must be in force and not in payout, and the
 *   custodian must have reported a value for its account. The smallest withdrawal is
 *   WITHDRAWAL_MINIMUM (1,000 SEK).
 * - **The largest** is the latest custody value minus what is reserved for what the
 *   debit runs have not yet taken: the fixed and capital charges from the day after the
 *   last debited period to today (pro rata by days, rounded up to the öre), the yield
 *   tax on the year's opening value until the February run has taken it, the K tax on
 *   deposits made since the last debited period (half for deposits from 1 July), and
 *   withdrawals already requested and not yet paid out. Below the smallest: no.
 *
 * Pure: the caller brings the facts from the ledger.
 */
export const WITHDRAWAL_MINIMUM = '1000.00';

export interface WithdrawalFacts {
  readonly kind: ProductKind;
  readonly startDate: IsoDate;
  /** The insurance has ended (paid out, surrendered, moved, death). */
  readonly ended: boolean;
  readonly inPayout: boolean;
  /** The latest custody value reported on or before today; null when none is. */
  readonly value: { readonly asOf: IsoDate; readonly total: string } | null;
  /** SEK a year. */
  readonly annualFixedCharge: string;
  /** Percent a year of the value. */
  readonly annualCapitalPercent: string;
  /** The last day the debited charges cover; null before the first debit. */
  readonly chargedThrough: IsoDate | null;
  /** The custody value at 31 December of last year, when this year's tax on it has not been debited yet; null once it has (or when there is none). */
  readonly untaxedOpeningValue: string | null;
  /** Deposits booked after `chargedThrough` (their tax not yet debited). */
  readonly deposits: readonly Deposit[];
  /** Withdrawals requested and not yet paid out, SEK. */
  readonly requested: string;
}

export type WithdrawalBounds =
  | {
      readonly allowed: true;
      readonly minimum: string;
      readonly maximum: string;
      readonly value: string;
      readonly valueAsOf: IsoDate;
      readonly reservedForCharges: string;
      readonly reservedForTax: string;
      readonly requested: string;
    }
  | { readonly allowed: false; readonly reason: string };

export function withdrawalBounds(facts: WithdrawalFacts, today: IsoDate, rates?: YieldTaxRateTable): WithdrawalBounds {
  if (facts.kind !== 'K') return { allowed: false, reason: facts.kind === 'T' ? 'occupational pension insurance is paid out, not bought back' : 'private pension insurance cannot be bought back at the policyholder\'s wish' };
  if (facts.ended) return { allowed: false, reason: 'the insurance has ended' };
  if (facts.inPayout) return { allowed: false, reason: 'the insurance is in payout' };
  if (!facts.value) return { allowed: false, reason: 'the custodian has not reported a value for the account yet' };
  const value = new Decimal(facts.value.total);
  const charges = chargesNotDebited(facts, value, today);
  let tax: Decimal;
  try {
    tax = taxNotDebited(facts, today, rates);
  } catch (error) {
    if (error instanceof RangeError) return { allowed: false, reason: `the yield tax cannot be reserved: ${error.message}` };
    throw error;
  }
  const maximum = value.minus(charges).minus(tax).minus(facts.requested).toDecimalPlaces(2, Decimal.ROUND_DOWN);
  if (maximum.lessThan(WITHDRAWAL_MINIMUM)) return { allowed: false, reason: `what can be withdrawn (${maximum.toFixed(2)} SEK) is less than the smallest withdrawal, ${WITHDRAWAL_MINIMUM} SEK` };
  return {
    allowed: true, minimum: WITHDRAWAL_MINIMUM, maximum: maximum.toFixed(2), value: value.toFixed(2), valueAsOf: facts.value.asOf,
    reservedForCharges: charges.toFixed(2), reservedForTax: tax.toFixed(2), requested: new Decimal(facts.requested).toFixed(2),
  };
}

/** Fixed and capital charges from the day after the last debited one through today, each rounded up to the öre. */
export function chargesNotDebited(facts: Pick<WithdrawalFacts, 'startDate' | 'chargedThrough' | 'annualFixedCharge' | 'annualCapitalPercent'>, value: Decimal, today: IsoDate): Decimal {
  const from = facts.chargedThrough ?? addDays(facts.startDate, -1);
  const days = Math.max(0, daysBetween(from, today));
  const yearDays = daysInYear(Number(today.slice(0, 4)));
  const fixed = new Decimal(facts.annualFixedCharge).times(days).dividedBy(yearDays).toDecimalPlaces(2, Decimal.ROUND_UP);
  const capital = value.times(facts.annualCapitalPercent).times(days).dividedBy(100 * yearDays).toDecimalPlaces(2, Decimal.ROUND_UP);
  return fixed.plus(capital);
}

/** This year's yield tax not yet debited: on the opening value, and for K on the deposits since the last debit (half from 1 July). */
export function taxNotDebited(facts: Pick<WithdrawalFacts, 'kind' | 'untaxedOpeningValue' | 'deposits'>, today: IsoDate, rates?: YieldTaxRateTable): Decimal {
  const year = Number(today.slice(0, 4));
  const depositBase = facts.kind === 'K'
    ? facts.deposits.reduce((sum, deposit) => sum.plus(Number(deposit.date.slice(5, 7)) >= 7 ? new Decimal(deposit.amount).dividedBy(2) : deposit.amount), new Decimal(0))
    : new Decimal(0);
  const base = depositBase.plus(facts.untaxedOpeningValue ?? '0');
  if (base.isZero()) return base;
  return new Decimal(yieldTaxOnOpeningValue({ kind: facts.kind, year, openingValue: base.toFixed(), ...(rates ? { rates } : {}) }).amount);
}
