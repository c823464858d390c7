import type { Sql } from '../database.ts';
import type { IsoDate } from '../../core/calendar-date.ts';
import { reportDeadline } from '../../core/banking-calendar.ts';
import { dueDayOf, statusOf, type ReportDeadlineStatus, type ReportKind } from '../../core/report-deadlines.ts';
import { isAnnualHoldingsDate } from '../../core/annual-report-deadlines.ts';
import { listRows, lockUnnotifiedRows, markRowsNotified, recordArrivalRow, recordMissingRows, type RecordedRow, type ReportDeadlineTable } from './report-deadline-rows.ts';

/**
 * The ledger side of custodian report deadlines: arrivals of Holdings and
 * Transactions, and the recorded outcome per custodian, kind and due day.
 *
 * Invariants:
 * - recording an arrival is idempotent by message id: the same message twice changes nothing;
 * - the earliest arrival for a (custodian, kind, due day) decides on-time or late, in
 *   whatever order arrivals are recorded; a report found missing earlier becomes late
 *   when it arrives, and keeps its `notified_at` (it is never mailed twice);
 * - a missing row is only written by a deadline check, after the deadline.
 */

/** The daily reports' rows, one per custodian, kind and due day (report-deadline-rows.ts). */
const DAILY: ReportDeadlineTable = { name: 'custodian_report_deadlines', period: 'due_day', periodType: 'date', periodRead: 'due_day::text' };

/** A received Holdings or Transactions document, as the ingestion knows it. */
export interface ReportArrivalRecord {
  readonly custodianId: string;
  readonly kind: 'Holdings' | 'Transactions';
  /** The report's own as-of date, YYYY-MM-DD: it is due at 08:30 on the next banking day. */
  readonly asOfDate: string;
  readonly receivedAt: Date;
  readonly messageId: string;
}

/**
 * Records that a custodian's report arrived. Call it inside the ingestion's
 * transaction, so the arrival commits with the report itself. Recording the same
 * message again does nothing. A malformed `asOfDate` throws RangeError: the
 * ingestion has validated the document before it gets here. The annual Holdings (as
 * of 31 December) is no day's report: it is not recorded, so it cannot stand in for
 * the daily report due the same morning.
 */
export async function recordReportArrival(tx: Sql, arrival: ReportArrivalRecord): Promise<void> {
  if (arrival.kind === 'Holdings' && isAnnualHoldingsDate(arrival.asOfDate)) return;
  const dueDay = dueDayOf(arrival.asOfDate);
  const inserted = await tx.query(
    `INSERT INTO custodian_report_arrivals (message_id, custodian_id, kind, as_of_date, due_day, received_at)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (message_id) DO NOTHING RETURNING message_id`,
    [arrival.messageId, arrival.custodianId, arrival.kind, arrival.asOfDate, dueDay, arrival.receivedAt],
  );
  if (inserted.rows.length === 0) return;
  await recordArrivalRow(tx, DAILY, {
    custodianId: arrival.custodianId, kind: arrival.kind, period: dueDay, deadline: reportDeadline(dueDay),
    status: statusOf(dueDay, arrival.receivedAt, arrival.receivedAt), arrivedAt: arrival.receivedAt, messageId: arrival.messageId,
  });
}

/** One recorded outcome row. */
export interface RecordedReportDeadline extends ReportDeadlineStatus {
  readonly status: 'on_time' | 'late' | 'missing';
  readonly missingSince: Date | undefined;
  readonly notifiedAt: Date | undefined;
}

/** The recorded outcomes for due days from `from` through `to`, by due day, custodian and kind. */
export async function listRecordedDeadlines(sql: Sql, from: IsoDate, to: IsoDate): Promise<RecordedReportDeadline[]> {
  return (await listRows<ReportKind, IsoDate>(sql, DAILY, 'due_day BETWEEN $1::date AND $2::date', [from, to])).map(withDueDay);
}

/**
 * Writes a `missing` row for each report that has none yet (a report that arrived in
 * the meantime keeps its own row). Returns how many rows were written.
 */
export async function recordMissingReports(tx: Sql, reports: readonly Pick<ReportDeadlineStatus, 'custodianId' | 'kind' | 'dueDay' | 'deadline'>[], checkedAt: Date): Promise<number> {
  return recordMissingRows(tx, DAILY, reports.map((r) => ({ ...r, period: r.dueDay })), checkedAt);
}

/** Late and missing reports with due days in the range that no notice has listed yet; locked until the transaction ends. */
export async function lockUnnotifiedReports(tx: Sql, from: IsoDate, to: IsoDate): Promise<RecordedReportDeadline[]> {
  return (await lockUnnotifiedRows<ReportKind, IsoDate>(tx, DAILY, 'due_day BETWEEN $1::date AND $2::date', [from, to])).map(withDueDay);
}

/** Marks reports as listed in a notice sent at `at`. */
export async function markNotified(tx: Sql, reports: readonly Pick<ReportDeadlineStatus, 'custodianId' | 'kind' | 'dueDay'>[], at: Date): Promise<void> {
  await markRowsNotified(tx, DAILY, reports.map((r) => ({ ...r, period: r.dueDay })), at);
}

function withDueDay({ custodianId, kind, period, ...outcome }: RecordedRow<ReportKind, IsoDate>): RecordedReportDeadline {
  return { custodianId, kind, dueDay: period, ...outcome };
}
