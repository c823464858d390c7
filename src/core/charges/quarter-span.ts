import { addDays, daysBetween, isIsoDate, type IsoDate } from '../calendar-date.ts';
import type { Quarter } from '../banking-calendar.ts';

/**
 * The calendar facts the charges hang on: a quarter's days, the part of it an
 * insurance was in force, a year's length and the insured's age. Malformed arguments
 * are programming errors and throw RangeError, as in banking-calendar.ts.
 */

/** A calendar quarter, with the insurance's own start and end when they cut into it. */
export interface QuarterPeriod {
  readonly year: number;
  readonly quarter: Quarter;
  /** The first day the insurance was in force. Default: in force before the quarter began. */
  readonly insuredFrom?: IsoDate;
  /** The last day the insurance was in force, included. Default: still in force after the quarter. */
  readonly insuredThrough?: IsoDate;
}

export interface QuarterSpan {
  readonly firstDay: IsoDate;
  readonly lastDay: IsoDate;
  /** 90, 91 or 92. */
  readonly daysInQuarter: number;
  /** The days of the quarter the insurance was in force, both ends included; 0 when none. */
  readonly insuredDays: number;
  /** The first of those days; undefined when there are none. */
  readonly firstInsuredDay: IsoDate | undefined;
}

/** Throws RangeError unless the year has four digits. */
export function requireYear(year: number): void {
  if (!Number.isInteger(year) || year < 1000 || year > 9999) throw new RangeError(`not a four-digit year: ${year}`);
}

/** Throws RangeError unless the date is a real calendar date YYYY-MM-DD; `what` names it. */
export function requireDate(date: IsoDate, what: string): void {
  // isIsoDate lets '2026-02-30' through (Date.parse rolls it over); the round trip does not.
  if (!isIsoDate(date) || addDays(date, 0) !== date) throw new RangeError(`${what} is not a calendar date: ${date}`);
}

/** The quarter (1–4) a date falls in. */
export function quarterOf(date: IsoDate): Quarter {
  return Math.ceil(Number(date.slice(5, 7)) / 3) as Quarter;
}

/** The quarter's days and how many of them the insurance was in force. */
export function quarterSpan(period: QuarterPeriod): QuarterSpan {
  const { year, quarter, insuredFrom, insuredThrough } = period;
  requireYear(year);
  if (![1, 2, 3, 4].includes(quarter)) throw new RangeError(`not a quarter 1–4: ${String(quarter)}`);
  if (insuredFrom !== undefined) requireDate(insuredFrom, 'insuredFrom');
  if (insuredThrough !== undefined) requireDate(insuredThrough, 'insuredThrough');
  if (insuredFrom !== undefined && insuredThrough !== undefined && insuredThrough < insuredFrom) {
    throw new RangeError(`insuredThrough ${insuredThrough} is before insuredFrom ${insuredFrom}`);
  }
  const firstMonth = (quarter - 1) * 3 + 1;
  const firstDay = `${year}-${String(firstMonth).padStart(2, '0')}-01`;
  const nextFirstDay = quarter === 4 ? `${year + 1}-01-01` : `${year}-${String(firstMonth + 3).padStart(2, '0')}-01`;
  const lastDay = addDays(nextFirstDay, -1);
  const from = insuredFrom !== undefined && insuredFrom > firstDay ? insuredFrom : firstDay;
  const through = insuredThrough !== undefined && insuredThrough < lastDay ? insuredThrough : lastDay;
  const insured = from <= through;
  return {
    firstDay,
    lastDay,
    daysInQuarter: daysBetween(firstDay, nextFirstDay),
    insuredDays: insured ? daysBetween(from, through) + 1 : 0,
    firstInsuredDay: insured ? from : undefined,
  };
}

/** 365, or 366 in a leap year. */
export function daysInYear(year: number): number {
  requireYear(year);
  return daysBetween(`${year}-01-01`, `${year + 1}-01-01`);
}

/** Age in completed years on a date: the birthday itself counts as having turned. */
export function ageOn(birthDate: IsoDate, date: IsoDate): number {
  requireDate(birthDate, 'birthDate');
  if (birthDate > date) throw new RangeError(`birthDate ${birthDate} is after ${date}`);
  const years = Number(date.slice(0, 4)) - Number(birthDate.slice(0, 4));
  return date.slice(5) < birthDate.slice(5) ? years - 1 : years;
}
