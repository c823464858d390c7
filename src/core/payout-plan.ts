import { Decimal } from 'decimal.js';
import { payoutDeadline, sellOrderDeadline } from './banking-calendar.ts';
import type { IsoDate } from './calendar-date.ts';

/**
 * Payouts of an insurance in payout: each month a sell order reaches the custodian by
 * the 10th and the custodian pays by the 22nd, until the insurance is paid out. Pure:
 * the payout run loads the account's value and the installments already made.
 *
 * Invariants:
 * - over a number of months, installment k of n pays value / (n − k + 1), rounded
 *   down to öre, so the payments follow the account's value as it changes and the
 *   last installment pays whatever is left; at a monthly amount, each month pays that
 *   amount and the month the value no longer exceeds it pays the rest and ends;
 * - an installment is never more than the value, never zero: a value of nothing ends
 *   the payout without a payment;
 * - the dates are the banking calendar's (banking-calendar.ts), moved to the earlier
 *   banking day.
 */

/** A month as 'YYYY-MM'. */
export type YearMonth = string;

const YEAR_MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** Throws RangeError unless `month` is 'YYYY-MM'. */
export function requireYearMonth(month: string): { year: number; month: number } {
  const match = YEAR_MONTH.exec(month);
  if (!match) throw new RangeError(`not a month YYYY-MM: ${month}`);
  return { year: Number(match[1]), month: Number(match[2]) };
}

/** The month `count` months after `month` (negative: before). */
export function addMonths(month: YearMonth, count: number): YearMonth {
  const { year, month: m } = requireYearMonth(month);
  const index = year * 12 + (m - 1) + count;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** How the payout is spread: over a number of months, or at a monthly amount until the value is paid out. */
export type PayoutTerms = { readonly months: number } | { readonly monthlyAmount: string };

export interface Installment {
  readonly month: YearMonth;
  /** 1 for the first payment. */
  readonly installment: number;
  readonly amount: string;
  /** Whether this payment ends the payout. */
  readonly final: boolean;
  /** The day the sell order must reach the custodian (by the 10th). */
  readonly sellBy: IsoDate;
  /** The day the custodian must pay (by the 22nd). */
  readonly payBy: IsoDate;
}

/**
 * The payment of one month, given the account's value now and the installment number
 * it would be; undefined when there is nothing left to pay.
 */
export function nextInstallment(input: { month: YearMonth; installment: number; value: string; terms: PayoutTerms }): Installment | undefined {
  const { year, month } = requireYearMonth(input.month);
  if (!Number.isInteger(input.installment) || input.installment < 1) throw new RangeError(`not an installment number: ${input.installment}`);
  const value = new Decimal(input.value);
  if (value.lessThanOrEqualTo(0)) return undefined;
  let amount: Decimal;
  let final: boolean;
  if ('months' in input.terms) {
    const { months } = input.terms;
    if (!Number.isInteger(months) || months < 1) throw new RangeError(`not a number of months: ${months}`);
    final = input.installment >= months;
    amount = final ? value : value.dividedBy(months - input.installment + 1).toDecimalPlaces(2, Decimal.ROUND_DOWN);
  } else {
    const monthly = new Decimal(input.terms.monthlyAmount);
    if (!monthly.greaterThan(0)) throw new RangeError(`not a monthly amount: ${input.terms.monthlyAmount}`);
    final = value.lessThanOrEqualTo(monthly);
    amount = final ? value : monthly;
  }
  if (amount.lessThanOrEqualTo(0)) return undefined;
  return {
    month: input.month, installment: input.installment, amount: amount.toFixed(2), final,
    sellBy: sellOrderDeadline(year, month), payBy: payoutDeadline(year, month),
  };
}

/**
 * The whole plan from a start month, were the value to stay as it is (what the insured
 * is told when payout can begin): one installment a month until the final one.
 */
export function payoutPlan(input: { startMonth: YearMonth; value: string; terms: PayoutTerms }): Installment[] {
  const plan: Installment[] = [];
  let value = new Decimal(input.value);
  for (let k = 1; ; k++) {
    const next = nextInstallment({ month: addMonths(input.startMonth, k - 1), installment: k, value: value.toFixed(2), terms: input.terms });
    if (!next) return plan;
    plan.push(next);
    if (next.final) return plan;
    value = value.minus(next.amount);
  }
}
