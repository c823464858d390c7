import { stockholmInstant } from './banking-calendar.ts';
import { stockholmDate, type IsoDate } from './calendar-date.ts';
import type { ReportStatus } from './report-deadlines.ts';
import { stockholmTime } from './stockholm-time.ts';

/**
 * Whether each custodian's yearly CostAndCharges came in: the report of account year Y
 * is due from 1 March to 30 April of Y+1 (Europe/Stockholm). The window closes at the
 * end of 30 April — the instant 1 May 00:00 Stockholm time — not on April's last
 * banking day: the custodian's commitment is the calendar months March–April, the
 * report travels by channels that take files on any day, and 1 May is itself a
 * holiday, so a banking-day rule would only move the close back to before a weekend.
 *
 * Invariants kept here, pure (no clock, no I/O — "now" is an argument):
 * - one status per (custodian, kind, account year), decided by the earliest arrival:
 *   a second, later copy never turns on-time into late;
 * - an arrival up to and including the close is on time, and so is one before
 *   1 March (early is not late); a later one is late;
 * - with no arrival the status is `pending` up to and including the close and
 *   `missing` after it.
 *
 * The annual Holdings is told apart from the daily one here as well
 * (`isAnnualHoldingsDate`); it is not counted against any daily deadline.
 */

export const ANNUAL_REPORT_KINDS = ['CostAndCharges'] as const;
export type AnnualReportKind = (typeof ANNUAL_REPORT_KINDS)[number];

/** When the report of an account year may come and by when it must. */
export interface AnnualReportWindow {
  /** 1 March of the next year, 00:00 Stockholm time. */
  readonly opens: Date;
  /** The end of 30 April of the next year: 1 May 00:00 Stockholm time. */
  readonly closes: Date;
}

/** One received annual report, counted against its account year. */
export interface AnnualReportArrival {
  readonly custodianId: string;
  readonly kind: AnnualReportKind;
  readonly year: number;
  readonly arrivedAt: Date;
  readonly messageId: string;
}

/** The state of one expected annual report. */
export interface AnnualReportStatus {
  readonly custodianId: string;
  readonly kind: AnnualReportKind;
  readonly year: number;
  readonly deadline: Date;
  readonly status: ReportStatus;
  /** The earliest arrival, when there is one. */
  readonly arrivedAt: Date | undefined;
  readonly messageId: string | undefined;
}

export interface AnnualReportQuestion {
  /** The custodians that must report: those holding a custody account open during `year`. */
  readonly custodians: readonly string[];
  readonly year: number;
  /** Arrivals; those of other years are ignored, those of other custodians listed. */
  readonly arrivals: readonly AnnualReportArrival[];
  readonly now: Date;
}

/** The reporting window of account year `year` (a four-digit year). */
export function annualReportWindow(year: number): AnnualReportWindow {
  if (!Number.isInteger(year) || year < 1000 || year > 9998) throw new RangeError(`not an account year: ${year}`);
  const next = year + 1;
  return { opens: stockholmInstant(`${next}-03-01`, '00:00'), closes: stockholmInstant(`${next}-05-01`, '00:00') };
}

/** The status of one annual report from its earliest arrival (if any) and the current time. */
export function annualStatusOf(year: number, arrivedAt: Date | undefined, now: Date): ReportStatus {
  const { closes } = annualReportWindow(year);
  if (arrivedAt) return arrivedAt.getTime() > closes.getTime() ? 'late' : 'on_time';
  return now.getTime() > closes.getTime() ? 'missing' : 'pending';
}

/**
 * The latest account year whose window has closed at `now`: in May–December of Y+1
 * that is Y, in January–April of Y+1 it is Y−1.
 */
export function latestClosedAccountYear(now: Date): number {
  const guess = Number(stockholmDate(now).slice(0, 4)) - 1;
  return now.getTime() > annualReportWindow(guess).closes.getTime() ? guess : guess - 1;
}

/**
 * Every (custodian, kind) status of one account year for the expected custodians, plus
 * any other custodian that did send one, ordered by custodian and kind.
 */
export function annualReportStatuses(question: AnnualReportQuestion): AnnualReportStatus[] {
  const earliest = new Map<string, AnnualReportArrival>();
  for (const arrival of question.arrivals) {
    if (arrival.year !== question.year) continue;
    const key = `${arrival.custodianId}\u0000${arrival.kind}`;
    const known = earliest.get(key);
    if (!known || arrival.arrivedAt.getTime() < known.arrivedAt.getTime()) earliest.set(key, arrival);
  }
  const custodians = new Set(question.custodians);
  for (const arrival of earliest.values()) custodians.add(arrival.custodianId);
  const deadline = annualReportWindow(question.year).closes;
  return [...custodians].sort().flatMap((custodianId) => ANNUAL_REPORT_KINDS.map((kind) => {
    const arrival = earliest.get(`${custodianId}\u0000${kind}`);
    return {
      custodianId, kind, year: question.year, deadline,
      status: annualStatusOf(question.year, arrival?.arrivedAt, question.now),
      arrivedAt: arrival?.arrivedAt, messageId: arrival?.messageId,
    };
  }));
}

/** The subject and plain-text body of one notice listing late and missing annual reports. */
export function annualNoticeText(reports: readonly AnnualReportStatus[], checkedAt: Date): { subject: string; text: string } {
  const missing = reports.filter((r) => r.status === 'missing');
  const late = reports.filter((r) => r.status === 'late');
  const parts = [missing.length ? `${missing.length} missing` : '', late.length ? `${late.length} late` : ''].filter(Boolean);
  // The deadline is the end of 30 April: written as that day, not as the midnight after it.
  const line = (r: AnnualReportStatus) =>
    `  ${r.year}  ${r.custodianId.padEnd(20)} ${r.kind.padEnd(15)} due by the end of ${r.year + 1}-04-30` +
    (r.arrivedAt ? `  arrived ${stockholmTime(r.arrivedAt)}  message ${r.messageId ?? '-'}` : '');
  const sections = [
    missing.length ? `Missing (not received by the end of April):\n${missing.map(line).join('\n')}` : '',
    late.length ? `Late (received after the end of April):\n${late.map(line).join('\n')}` : '',
  ].filter(Boolean);
  return {
    subject: `depot-gateway: annual custodian reports ${parts.join(', ')}`,
    text:
      `Each custodian's CostAndCharges for an account year is due from 1 March to the end of 30 April of the next year, Stockholm time.\n` +
      `Check made at ${stockholmTime(checkedAt)}. All times are Stockholm time.\n\n${sections.join('\n\n')}\n\n` +
      `See them with: depot-gateway reports --annual --late\n`,
  };
}

/**
 * Whether a Holdings with this as-of date is the annual one. A daily Holdings
 * describes the close of a banking day, and 31 December is never one (see the banking
 * calendar), so a Holdings as of 31 December is the year-end report — the value the
 * yield tax of the next year is based on — and is not counted as any day's report.
 */
export function isAnnualHoldingsDate(asOfDate: IsoDate): boolean {
  return /^\d{4}-12-31$/.test(asOfDate);
}

