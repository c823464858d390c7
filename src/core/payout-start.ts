import { parseBankAccount, type BankAccount } from './bank-account.ts';
import { payoutDeadline } from './banking-calendar.ts';
import { addDays, type IsoDate } from './calendar-date.ts';
import { birthDateOf } from './debit-run.ts';
import { addMonths, requireYearMonth, type YearMonth } from './payout-plan.ts';

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
 *   the day payout can begin, has not passed, and whose payout run has not been made for
 *   the insurance's custodian (the month's sell orders went out by its 10th);
 * - the money goes only to a Swedish bank account whose clearing number and check digit
 *   hold (bank-account.ts) and which was registered in advance and validated as the
 *   insured's (the withdrawal-account register and its 13:00 validation, as for
 *   withdrawals: withdrawal-account.rules.ts) — never an account given on the day;
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

/** Why a well-formed request is refused: the code answered, the field it is about, and what to do. */
export interface PayoutRefusal {
  readonly code: 'PAYOUT_PERIOD_NOT_OFFERED' | 'PAYOUT_NOT_YET_DUE' | 'PAYOUT_MONTH_PASSED' | 'BANK_ACCOUNT_INVALID' | 'PAYOUT_ACCOUNT_NOT_VALIDATED';
  readonly field: 'period' | 'firstMonth' | 'account';
  readonly message: string;
}

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

/**
 * What the ledger says about the request's month and account, looked up for the request:
 * whether the first month's payout run has been made at the insurance's custodian, and
 * whether the account (as parseBankAccount reads it) is validated for the insured.
 */
export interface PayoutMonthAndAccountFacts {
  readonly offeredMonths: readonly number[];
  readonly canBegin: IsoDate;
  readonly today: IsoDate;
  readonly firstMonthRunMade: boolean;
  readonly accountValidatedForInsured: boolean;
}

/**
 * Checks a read request against the insurance's product and payout date, as of `today`.
 * A refusal names every problem (`problems`, in the order of the fields) and the first of
 * them (`refused`, what staff are answered).
 */
export function checkPayoutRequest(
  request: PayoutRequestBody, facts: PayoutMonthAndAccountFacts,
): { refused: PayoutRefusal; problems: readonly PayoutRefusal[] } | { accepted: PayoutRequest } {
  const problems: PayoutRefusal[] = [];
  const offered = facts.offeredMonths.map(periodText).join(', ');
  if (request.period === LIFE_LONG) problems.push({ code: 'PAYOUT_PERIOD_NOT_OFFERED', field: 'period', message: `Life-long payout is not offered; the product offers ${offered}.` });
  else if (!facts.offeredMonths.includes(request.period)) problems.push({ code: 'PAYOUT_PERIOD_NOT_OFFERED', field: 'period', message: `${periodText(request.period)} is not offered; the product offers ${offered}.` });
  const { year, month } = requireYearMonth(request.firstMonth);
  const payBy = payoutDeadline(year, month);
  const thisMonth = facts.today.slice(0, 7);
  if (payBy < facts.canBegin) problems.push({ code: 'PAYOUT_NOT_YET_DUE', field: 'firstMonth', message: `Payout can begin ${facts.canBegin}; ${request.firstMonth} would pay on ${payBy}.` });
  if (request.firstMonth < thisMonth) {
    problems.push({ code: 'PAYOUT_MONTH_PASSED', field: 'firstMonth', message: `firstMonth ${request.firstMonth} has passed: the first payout month is this month (${thisMonth}) or later.` });
  } else if (payBy < facts.today) {
    problems.push({ code: 'PAYOUT_MONTH_PASSED', field: 'firstMonth', message: `The payout day of ${request.firstMonth} (${payBy}) has passed: the first payout month is ${addMonths(request.firstMonth, 1)} or later.` });
  } else if (facts.firstMonthRunMade) {
    problems.push({ code: 'PAYOUT_MONTH_PASSED', field: 'firstMonth', message: `The payout run of ${request.firstMonth} has been made (its sell orders went to the custodian): the first payout month is ${addMonths(request.firstMonth, 1)} or later.` });
  }
  const reading = parseBankAccount(request.withdrawalAccount);
  if (!reading.ok) problems.push({ code: 'BANK_ACCOUNT_INVALID', field: 'account', message: `${reading.problem}.` });
  else if (!facts.accountValidatedForInsured) {
    problems.push({
      code: 'PAYOUT_ACCOUNT_NOT_VALIDATED', field: 'account',
      message: `The account ${reading.account.digits} is not registered and validated as the insured's: register it for the insured (POST /Customer/{account}/WithdrawalAccount with the insured's personnummer; registered before 07:00 on a banking day, it is validated at 13:00).`,
    });
  }
  // An invalid account and a life-long period are among the problems: the narrowing is TypeScript's.
  if (problems.length > 0 || !reading.ok || request.period === LIFE_LONG) return { refused: problems[0]!, problems };
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
