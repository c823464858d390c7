import Holidays from 'date-holidays';
import { addDays, isIsoDate, stockholmDate, type IsoDate } from './calendar-date.ts';

/**
 * Swedish banking days and the dates that hang on them: the custodians' 08:30
 * reporting deadline, the quarterly debit runs and the monthly payout calendar.
 *
 * Pure: holidays come from date-holidays' rules and the Stockholm UTC offset from
 * Node's own Intl (full ICU), so nothing here reads a clock, a file or the network.
 * Malformed arguments are programming errors, not business results, so they throw
 * RangeError rather than a registered GatewayError code.
 */

export type Quarter = 1 | 2 | 3 | 4;

/** The custodians' daily deadline for Holdings and Transactions, Stockholm wall-clock time. */
export const REPORTING_DEADLINE_TIME = '08:30';

// date-holidays marks statutory holidays 'public' and the days banks close without a
// statute (Midsummer Eve, Christmas Eve, New Year's Eve) 'bank'. Its 'optional' half
// days (Twelfth Night Eve, Walpurgis Eve, All Saints' Eve) are banking days.
const CLOSED_TYPES: ReadonlySet<string> = new Set(['public', 'bank']);
const SWEDEN = new Holidays('SE');
// Every lookup would otherwise rebuild a year of holidays from rules; a year's set
// never changes, so caching it cannot go stale.
const closedDaysByYear = new Map<number, ReadonlySet<IsoDate>>();

function closedHolidaysOf(year: number): ReadonlySet<IsoDate> {
  let closed = closedDaysByYear.get(year);
  if (!closed) {
    // Holiday dates read 'YYYY-MM-DD hh:mm:ss' in the country's own zone.
    const holidays = SWEDEN.getHolidays(year).filter((holiday) => CLOSED_TYPES.has(holiday.type));
    closed = new Set(holidays.map((holiday) => holiday.date.slice(0, 10)));
    closedDaysByYear.set(year, closed);
  }
  return closed;
}

function requireIsoDate(date: IsoDate): void {
  // isIsoDate lets '2026-02-30' through (Date.parse rolls it over); the round trip does not.
  if (!isIsoDate(date) || addDays(date, 0) !== date) throw new RangeError(`not a calendar date: ${date}`);
}

/**
 * Whether banks in Sweden are open: Monday–Friday except public holidays and the bank
 * holidays Midsummer Eve, 24 December and 31 December. A holiday on a weekend moves
 * nothing: Sweden has no substitute days.
 */
export function isBankingDay(date: IsoDate): boolean {
  requireIsoDate(date);
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !closedHolidaysOf(Number(date.slice(0, 4))).has(date);
}

function walkToBankingDay(date: IsoDate, step: 1 | -1): IsoDate {
  let day = date;
  while (!isBankingDay(day)) day = addDays(day, step);
  return day;
}

/** The date itself if it is a banking day, else the first banking day after it. */
export function bankingDayOnOrAfter(date: IsoDate): IsoDate {
  return walkToBankingDay(date, 1);
}

/** The date itself if it is a banking day, else the last banking day before it. */
export function bankingDayOnOrBefore(date: IsoDate): IsoDate {
  return walkToBankingDay(date, -1);
}

/** The first banking day strictly after the date. */
export function nextBankingDay(date: IsoDate): IsoDate {
  requireIsoDate(date);
  return walkToBankingDay(addDays(date, 1), 1);
}

/** The last banking day strictly before the date. */
export function previousBankingDay(date: IsoDate): IsoDate {
  requireIsoDate(date);
  return walkToBankingDay(addDays(date, -1), -1);
}

/**
 * The banking days from `from` through `to`, both included, in order; empty when
 * `from` is after `to`. Inclusive because the use is "which days in this period
 * should have a report", where both ends count.
 */
export function bankingDaysBetween(from: IsoDate, to: IsoDate): IsoDate[] {
  requireIsoDate(from);
  requireIsoDate(to);
  const days: IsoDate[] = [];
  for (let day = bankingDayOnOrAfter(from); day <= to; day = nextBankingDay(day)) days.push(day);
  return days;
}

/** The last banking day of a month (1–12): what "end of the month" means for a debit. */
export function lastBankingDayOfMonth(year: number, month: number): IsoDate {
  // Day 0 of the following month is the last day of this one.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return bankingDayOnOrBefore(calendarDate(year, month, daysInMonth));
}

function calendarDate(year: number, month: number, day: number): IsoDate {
  if (!Number.isInteger(year) || year < 1000 || year > 9999) throw new RangeError(`not a four-digit year: ${year}`);
  if (!Number.isInteger(month) || month < 1 || month > 12) throw new RangeError(`not a month 1–12: ${month}`);
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

// ---- Reporting deadline ----------------------------------------------------------

// Building a formatter costs far more than using one: build it once.
const STOCKHOLM_OFFSET = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Stockholm', timeZoneName: 'longOffset' });
const WALL_CLOCK_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Stockholm's offset from UTC in minutes at an instant, e.g. 60 (CET) or 120 (CEST). */
function stockholmOffsetMinutes(instant: number): number {
  const name = STOCKHOLM_OFFSET.formatToParts(instant).find((part) => part.type === 'timeZoneName')?.value ?? '';
  const match = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name);
  if (!match) throw new Error(`Intl gave an offset this module cannot read: '${name}'`);
  const minutes = Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
  return match[1] === '-' ? -minutes : minutes;
}

/**
 * The instant a Stockholm wall-clock time occurs on a date. The offset is first taken
 * at the wall-clock time read as UTC, then again at the instant that gives; the second
 * reading is right whenever the time lies outside the hour a DST change skips or
 * repeats (02:00–03:00 local), which office hours always do.
 */
export function stockholmInstant(date: IsoDate, time: string): Date {
  const wallAsUtc = Date.parse(`${date}T${time}:00Z`);
  const firstGuess = wallAsUtc - stockholmOffsetMinutes(wallAsUtc) * 60_000;
  return new Date(wallAsUtc - stockholmOffsetMinutes(firstGuess) * 60_000);
}

/**
 * The instant a banking day's reports are due: `at` (HH:MM, default 08:30) Stockholm
 * time, CET or CEST as that day has it. Throws RangeError for a day that is not a
 * banking day: no report is due then.
 */
export function reportDeadline(bankingDay: IsoDate, at: string = REPORTING_DEADLINE_TIME): Date {
  if (!WALL_CLOCK_TIME.test(at)) throw new RangeError(`not a time HH:MM: ${at}`);
  if (!isBankingDay(bankingDay)) throw new RangeError(`${bankingDay} is not a banking day; no report is due on it`);
  return stockholmInstant(bankingDay, at);
}

/** Whether a report received at an instant missed the banking day's deadline; one received exactly at the deadline is on time. */
export function isLate(receivedAt: Date, bankingDay: IsoDate, at: string = REPORTING_DEADLINE_TIME): boolean {
  return receivedAt.getTime() > reportDeadline(bankingDay, at).getTime();
}

/**
 * The banking day whose deadline a report received at an instant is counted against:
 * its Stockholm date if that is a banking day, else the next banking day.
 *
 * Why not "the next deadline not yet passed": the report due at 08:30 on day D
 * describes the close of the previous banking day. A report arriving later on D
 * cannot be the report due the day after, which describes D's own close — D's fund
 * prices are not all set until the evening. So it is D's report, late, and `isLate`
 * says so; counting it forward would hide the lateness and show D as missing.
 * Reports sent on a weekend or holiday are early for the next banking day.
 * The price is a report of D's close sent before midnight on D: it counts as late
 * for D. When a report carries its own as-of date, that date decides instead: the
 * report is due on `nextBankingDay(asOf)`.
 */
export function reportingDayFor(receivedAt: Date): IsoDate {
  return bankingDayOnOrAfter(stockholmDate(receivedAt));
}

// ---- Debit calendar ----------------------------------------------------------------

/** One of the four debit runs of a year and what it charges. */
export interface DebitRun {
  /** The banking day the run is made. */
  readonly runDate: IsoDate;
  /** The quarter whose charges and risk premiums the run debits, in arrears. */
  readonly coveredYear: number;
  readonly coveredQuarter: Quarter;
  /**
   * Whether the run also debits the yield tax on the opening value of the run's year
   * (the custody value at 31 December): only the February run does. Every run debits
   * the yield tax on the covered quarter's deposits.
   */
  readonly yieldTaxOnOpeningValue: boolean;
}

// Which month each quarter is debited in, counted from the quarter's own year.
const DEBIT_MONTH = {
  1: { yearsLater: 0, month: 4 },
  2: { yearsLater: 0, month: 7 },
  3: { yearsLater: 0, month: 10 },
  4: { yearsLater: 1, month: 2 },
} as const satisfies Record<Quarter, { yearsLater: number; month: number }>;

/**
 * The date a quarter is debited, named by the quarter covered: Q1 at the end of April,
 * Q2 at the end of July, Q3 at the end of October, Q4 in February of the following
 * year; "end" is the last banking day of the month.
 *
 * The insurer's specification says only "February" for the Q4 run (docs/domain.md,
 * "The debit and payout calendar"). We take its last banking day too,
 * like the other three: it gives the year-end custody values (the base of the yield
 * tax on the opening value) and the custodians' annual statements the longest time
 * to arrive and be corrected before money is taken. Example: Q4 2025 → 2026-02-27.
 */
export function debitRunDate(year: number, quarter: Quarter): IsoDate {
  const { yearsLater, month } = DEBIT_MONTH[quarter];
  return lastBankingDayOfMonth(year + yearsLater, month);
}

/** The four debit runs made in a calendar year, in date order: February (Q4 of the previous year), April, July, October. */
export function debitRunsOf(year: number): readonly DebitRun[] {
  const covered: ReadonlyArray<readonly [number, Quarter]> = [[year - 1, 4], [year, 1], [year, 2], [year, 3]];
  return covered.map(([coveredYear, coveredQuarter]) => ({
    runDate: debitRunDate(coveredYear, coveredQuarter),
    coveredYear,
    coveredQuarter,
    yieldTaxOnOpeningValue: coveredQuarter === 4,
  }));
}

// ---- Payout calendar ---------------------------------------------------------------

/**
 * The day the month's sell orders must reach the custodian: "by the 10th", so the
 * 10th if it is a banking day, else the last banking day before it. Earlier rather
 * than later, because a custodian does not act on an order on a closed day and the
 * sale must settle before the payout deadline.
 */
export function sellOrderDeadline(year: number, month: number): IsoDate {
  return bankingDayOnOrBefore(calendarDate(year, month, 10));
}

/**
 * The day the custodian must pay the month's payouts: "by the 22nd (before the
 * 23rd)", so the 22nd if it is a banking day, else the last banking day before it.
 * Earlier rather than later, because no payment settles on a closed day and the
 * money must reach the insured by the 25th.
 */
export function payoutDeadline(year: number, month: number): IsoDate {
  return bankingDayOnOrBefore(calendarDate(year, month, 22));
}
