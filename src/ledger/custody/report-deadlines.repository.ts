import type { Sql } from '../database.ts';
import type { IsoDate } from '../../core/calendar-date.ts';
import { reportDeadline } from '../../core/banking-calendar.ts';
import { dueDayOf, statusOf, type ReportDeadlineStatus, type ReportKind } from '../../core/report-deadlines.ts';
import { isAnnualHoldingsDate } from '../../core/annual-report-deadlines.ts';

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
  const status = statusOf(dueDay, arrival.receivedAt, arrival.receivedAt);
  await tx.query(
    `INSERT INTO custodian_report_deadlines (custodian_id, kind, due_day, deadline, status, arrived_at, message_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (custodian_id, kind, due_day) DO UPDATE
       SET status = EXCLUDED.status, arrived_at = EXCLUDED.arrived_at, message_id = EXCLUDED.message_id, updated_at = now()
     WHERE custodian_report_deadlines.arrived_at IS NULL OR EXCLUDED.arrived_at < custodian_report_deadlines.arrived_at`,
    [arrival.custodianId, arrival.kind, dueDay, reportDeadline(dueDay), status, arrival.receivedAt, arrival.messageId],
  );
}

/** One recorded outcome row. */
export interface RecordedReportDeadline extends ReportDeadlineStatus {
  readonly status: 'on_time' | 'late' | 'missing';
  readonly missingSince: Date | undefined;
  readonly notifiedAt: Date | undefined;
}

interface DeadlineRow {
  custodian_id: string;
  kind: ReportKind;
  due_day: string;
  deadline: Date | string;
  status: 'on_time' | 'late' | 'missing';
  arrived_at: Date | string | null;
  message_id: string | null;
  missing_since: Date | string | null;
  notified_at: Date | string | null;
}

const DEADLINE_COLUMNS = 'custodian_id, kind, due_day::text AS due_day, deadline, status, arrived_at, message_id, missing_since, notified_at';

/** The recorded outcomes for due days from `from` through `to`, by due day, custodian and kind. */
export async function listRecordedDeadlines(sql: Sql, from: IsoDate, to: IsoDate): Promise<RecordedReportDeadline[]> {
  const { rows } = await sql.query<DeadlineRow>(
    `SELECT ${DEADLINE_COLUMNS} FROM custodian_report_deadlines
     WHERE due_day BETWEEN $1::date AND $2::date ORDER BY due_day, custodian_id, kind`,
    [from, to],
  );
  return rows.map(toRecorded);
}

/**
 * Writes a `missing` row for each report that has none yet (a report that arrived in
 * the meantime keeps its own row). Returns how many rows were written.
 */
export async function recordMissingReports(
  tx: Sql,
  reports: readonly Pick<ReportDeadlineStatus, 'custodianId' | 'kind' | 'dueDay' | 'deadline'>[],
  checkedAt: Date,
): Promise<number> {
  if (reports.length === 0) return 0;
  const { rows } = await tx.query(
    `INSERT INTO custodian_report_deadlines (custodian_id, kind, due_day, deadline, status, missing_since)
     SELECT c, k, d, dl, 'missing', $5 FROM unnest($1::text[], $2::text[], $3::date[], $4::timestamptz[]) AS r(c, k, d, dl)
     ON CONFLICT (custodian_id, kind, due_day) DO NOTHING RETURNING custodian_id`,
    [reports.map((r) => r.custodianId), reports.map((r) => r.kind), reports.map((r) => r.dueDay), reports.map((r) => r.deadline), checkedAt],
  );
  return rows.length;
}

/** Late and missing reports with due days in the range that no notice has listed yet; locked until the transaction ends. */
export async function lockUnnotifiedReports(tx: Sql, from: IsoDate, to: IsoDate): Promise<RecordedReportDeadline[]> {
  const { rows } = await tx.query<DeadlineRow>(
    `SELECT ${DEADLINE_COLUMNS} FROM custodian_report_deadlines
     WHERE due_day BETWEEN $1::date AND $2::date AND status IN ('late', 'missing') AND notified_at IS NULL
     ORDER BY due_day, custodian_id, kind FOR UPDATE`,
    [from, to],
  );
  return rows.map(toRecorded);
}

/** Marks reports as listed in a notice sent at `at`. */
export async function markNotified(tx: Sql, reports: readonly Pick<ReportDeadlineStatus, 'custodianId' | 'kind' | 'dueDay'>[], at: Date): Promise<void> {
  if (reports.length === 0) return;
  await tx.query(
    `UPDATE custodian_report_deadlines d SET notified_at = $4, updated_at = now()
     FROM unnest($1::text[], $2::text[], $3::date[]) AS r(c, k, dd)
     WHERE d.custodian_id = r.c AND d.kind = r.k AND d.due_day = r.dd AND d.notified_at IS NULL`,
    [reports.map((r) => r.custodianId), reports.map((r) => r.kind), reports.map((r) => r.dueDay), at],
  );
}

function toRecorded(row: DeadlineRow): RecordedReportDeadline {
  return {
    custodianId: row.custodian_id,
    kind: row.kind,
    dueDay: row.due_day,
    deadline: new Date(row.deadline),
    status: row.status,
    arrivedAt: optionalDate(row.arrived_at),
    messageId: row.message_id ?? undefined,
    missingSince: optionalDate(row.missing_since),
    notifiedAt: optionalDate(row.notified_at),
  };
}

/** A nullable timestamp column as a Date, or undefined. */
export function optionalDate(value: Date | string | null): Date | undefined {
  return value === null ? undefined : new Date(value);
}
