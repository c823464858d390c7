import { parseBankAccount, type BankAccount } from './bank-account.ts';
import { payoutDeadline } from './banking-calendar.ts';
import { addDays, type IsoDate } from './calendar-date.ts';
import { birthDateOf } from './debit-run.ts';
import { requireYearMonth, type YearMonth } from './payout-plan.ts';

/**
 * When an insurance's payout can begin, and the payout the insured starts from then.
 * Pure: the ledger gives the insured, the product's payout age and periods, and any
 * agreed start date.
 *
 * Invariants:
 * - payout can begin on the agreed payout start date when the insurance has one, else
 *   on the insured's birthday at the product's payout age (29 February: 1 March);
 * - a payout is registered over one of the product's periods (`10y`, or `36m` where a
 *   product offers months: the product lists them in months), from a
 *   first month whose payout day (the 22nd, or the banking day before) is on or after
 *   the day payout can begin and which has not passed; the money goes to a Swedish bank
 *   account whose clearing number and check digit hold (bank-account.ts);
 * - life-long payout is offered by no product: a custody insurance is paid out over a
 *   fixed period of its value, and the gateway has no annuity basis to pay for life.
 */

export const LIFE_LONG = 'life-long';

/** The day payout can begin. */
export function payoutCanBegin(input: { insuredPin: string; payoutAge: number; agreedFrom: IsoDate | null }): IsoDate {
  if (input.agreedFrom !== null) return input.agreedFrom;
  const birth = birthDateOf(input.insuredPin);
  const birthday = `${Number(birth.slice(0, 4)) + input.payoutAge}${birth.slice(4)}`;
  // addDays normalises 29 February of a common year to 1 March.
  return addDays(birthday, 0);
}

/** A payout accepted: over how many months, from which month, to which account. */
export interface PayoutRequest {
  readonly months: number;
  readonly firstMonth: YearMonth;
  readonly account: BankAccount;
}

/** A refusal of a well-formed request, with the code staff are answered. */
export type PayoutRefusal = { readonly code: 'PAYOUT_PERIOD_NOT_OFFERED' | 'PAYOUT_NOT_YET_DUE' | 'PAYOUT_MONTH_PASSED' | 'BANK_ACCOUNT_INVALID'; readonly message: string };

/** What staff send: `period` `10y`, `36m` or `life-long`; `firstMonth` YYYY-MM; `withdrawalAccount` digits. */
export interface PayoutRequestBody {
  readonly period: number | typeof LIFE_LONG;
  readonly firstMonth: YearMonth;
  readonly withdrawalAccount: string;
}

const PERIOD = /^(\d{1,3})([ym])$/;

/** Reads a request body, the period as months: every malformed field named at once (REQUEST_INVALID). */
export function readPayoutRequest(body: unknown): { problems: string[] } | PayoutRequestBody {
  const value = (body ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  const match = typeof value.period === 'string' ? PERIOD.exec(value.period) : null;
  const period = value.period === LIFE_LONG ? LIFE_LONG : match ? Number(match[1]) * (match[2] === 'y' ? 12 : 1) : 0;
  if (period === 0) problems.push(`period: years as "10y", months as "36m", or "${LIFE_LONG}"`);
  const firstMonth = value.firstMonth;
  if (typeof firstMonth !== 'string' || !isYearMonth(firstMonth)) problems.push('firstMonth: the month of the first payout, YYYY-MM');
  const withdrawalAccount = value.withdrawalAccount;
  if (typeof withdrawalAccount !== 'string' || withdrawalAccount === '') problems.push('withdrawalAccount: clearing number and account number, digits only');
  if (problems.length > 0) return { problems };
  return { period, firstMonth: firstMonth as string, withdrawalAccount: withdrawalAccount as string };
}

/** Checks a read request against the insurance's product and payout date, as of `today`. */
export function checkPayoutRequest(
  request: PayoutRequestBody,
  facts: { offeredMonths: readonly number[]; canBegin: IsoDate; today: IsoDate },
): { refused: PayoutRefusal } | { accepted: PayoutRequest } {
  const offered = facts.offeredMonths.map(periodText).join(', ');
  if (request.period === LIFE_LONG) return { refused: { code: 'PAYOUT_PERIOD_NOT_OFFERED', message: `Life-long payout is not offered; the product offers ${offered}.` } };
  if (!facts.offeredMonths.includes(request.period)) return { refused: { code: 'PAYOUT_PERIOD_NOT_OFFERED', message: `${periodText(request.period)} is not offered; the product offers ${offered}.` } };
  const { year, month } = requireYearMonth(request.firstMonth);
  const payBy = payoutDeadline(year, month);
  if (payBy < facts.canBegin) return { refused: { code: 'PAYOUT_NOT_YET_DUE', message: `Payout can begin ${facts.canBegin}; ${request.firstMonth} would pay on ${payBy}.` } };
  if (request.firstMonth < facts.today.slice(0, 7)) return { refused: { code: 'PAYOUT_MONTH_PASSED', message: `firstMonth ${request.firstMonth} has passed: the first payout month is this month (${facts.today.slice(0, 7)}) or later.` } };
  const reading = parseBankAccount(request.withdrawalAccount);
  if (!reading.ok) return { refused: { code: 'BANK_ACCOUNT_INVALID', message: `withdrawalAccount: ${reading.problem}.` } };
  return { accepted: { months: request.period, firstMonth: request.firstMonth, account: reading.account } };
}

/** A period as staff write it: `10y` when whole years, else `36m`. */
export function periodText(months: number): string {
  return months % 12 === 0 ? `${months / 12}y` : `${months}m`;
}

function isYearMonth(value: string): boolean {
  try {
    requireYearMonth(value);
    return true;
  } catch {
    return false;
  }
}
