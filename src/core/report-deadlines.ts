import { isLate, nextBankingDay, reportDeadline } from './banking-calendar.ts';
import type { IsoDate } from './calendar-date.ts';
import { stockholmTime } from './stockholm-time.ts';

/**
 * Whether each custodian's daily Holdings and Transactions came in by the 08:30
 * deadline (Europe/Stockholm). A report whose as-of date is R describes the close of
 * R and is due at 08:30 on the banking day after R (its "due day").
 *
 * Invariants kept here, pure (no clock, no I/O — "now" is an argument):
 * - one status per (custodian, kind, due day), decided by the earliest arrival: a
 *   second, later copy of a report never turns on-time into late;
 * - an arrival at exactly 08:30 is on time (`isLate`);
 * - with no arrival the status is `pending` up to and including the deadline and
 *   `missing` after it; a later arrival makes it `late`, never on-time.
 */

export const REPORT_KINDS = ['Holdings', 'Transactions'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

export const REPORT_STATUSES = ['on_time', 'late', 'missing', 'pending'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** One received report, counted against its due day. */
export interface ReportArrival {
  readonly custodianId: string;
  readonly kind: ReportKind;
  readonly dueDay: IsoDate;
  readonly arrivedAt: Date;
  readonly messageId: string;
}

/** The state of one expected report. */
export interface ReportDeadlineStatus {
  readonly custodianId: string;
  readonly kind: ReportKind;
  readonly dueDay: IsoDate;
  readonly deadline: Date;
  readonly status: ReportStatus;
  /** The earliest arrival, when there is one. */
  readonly arrivedAt: Date | undefined;
  readonly messageId: string | undefined;
}

export interface ReportStatusQuestion {
  /** The custodians that must report (configured, not opted out). */
  readonly custodians: readonly string[];
  /** The banking days whose deadlines are asked about. */
  readonly dueDays: readonly IsoDate[];
  /** Arrivals; those of other custodians or days are still listed when they fall on one of `dueDays`. */
  readonly arrivals: readonly ReportArrival[];
  readonly now: Date;
  readonly kinds?: readonly ReportKind[];
}

/** The banking day a report with this as-of date is due on (at 08:30). */
export function dueDayOf(asOfDate: IsoDate): IsoDate {
  return nextBankingDay(asOfDate);
}

/** The status of one report from its earliest arrival (if any) and the current time. */
export function statusOf(dueDay: IsoDate, arrivedAt: Date | undefined, now: Date): ReportStatus {
  if (arrivedAt) return isLate(arrivedAt, dueDay) ? 'late' : 'on_time';
  return now.getTime() > reportDeadline(dueDay).getTime() ? 'missing' : 'pending';
}

/**
 * Every (custodian, kind, due day) status for the expected custodians, plus any other
 * custodian that did send a report for one of the days, ordered by due day, custodian
 * and kind.
 */
export function reportStatuses(question: ReportStatusQuestion): ReportDeadlineStatus[] {
  const kinds = question.kinds ?? REPORT_KINDS;
  const days = new Set(question.dueDays);
  const earliest = new Map<string, ReportArrival>();
  for (const arrival of question.arrivals) {
    if (!days.has(arrival.dueDay) || !kinds.includes(arrival.kind)) continue;
    const key = keyOf(arrival.custodianId, arrival.kind, arrival.dueDay);
    const known = earliest.get(key);
    if (!known || arrival.arrivedAt.getTime() < known.arrivedAt.getTime()) earliest.set(key, arrival);
  }
  const custodians = new Set(question.custodians);
  for (const arrival of earliest.values()) custodians.add(arrival.custodianId);

  const result: ReportDeadlineStatus[] = [];
  for (const dueDay of [...days].sort()) {
    for (const custodianId of [...custodians].sort()) {
      for (const kind of kinds) {
        const arrival = earliest.get(keyOf(custodianId, kind, dueDay));
        result.push({
          custodianId, kind, dueDay,
          deadline: reportDeadline(dueDay),
          status: statusOf(dueDay, arrival?.arrivedAt, question.now),
          arrivedAt: arrival?.arrivedAt,
          messageId: arrival?.messageId,
        });
      }
    }
  }
  return result;
}

/** Late and missing reports: what the operations team is told about. */
export function needsNotice(status: Pick<ReportDeadlineStatus, 'status'>): boolean {
  return status.status === 'late' || status.status === 'missing';
}

/** The subject and plain-text body of one notice listing late and missing reports. */
export function noticeText(reports: readonly ReportDeadlineStatus[], checkedAt: Date): { subject: string; text: string } {
  const missing = reports.filter((r) => r.status === 'missing');
  const late = reports.filter((r) => r.status === 'late');
  const parts = [missing.length ? `${missing.length} missing` : '', late.length ? `${late.length} late` : ''].filter(Boolean);
  const line = (r: ReportDeadlineStatus) =>
    `  ${r.dueDay}  ${r.custodianId.padEnd(20)} ${r.kind.padEnd(12)} due ${stockholmTime(r.deadline)}` +
    (r.arrivedAt ? `  arrived ${stockholmTime(r.arrivedAt)}  message ${r.messageId ?? '-'}` : '');
  const sections = [
    missing.length ? `Missing (not received by the deadline):\n${missing.map(line).join('\n')}` : '',
    late.length ? `Late (received after the deadline):\n${late.map(line).join('\n')}` : '',
  ].filter(Boolean);
  return {
    subject: `depot-gateway: custodian reports ${parts.join(', ')}`,
    text:
      `Custodian Holdings and Transactions are due at 08:30 Stockholm time each banking day.\n` +
      `Check made at ${stockholmTime(checkedAt)}. All times are Stockholm time.\n\n${sections.join('\n\n')}\n\n` +
      `See them with: depot-gateway reports --late\n`,
  };
}

function keyOf(custodianId: string, kind: ReportKind, dueDay: IsoDate): string {
  return `${custodianId}\u0000${kind}\u0000${dueDay}`;
}
