import type { Sql } from '../database.ts';
import { annualReportWindow, annualStatusOf, type AnnualReportKind, type AnnualReportStatus } from '../../core/annual-report-deadlines.ts';
import { optionalDate } from './report-deadlines.repository.ts';

/**
 * The ledger side of the yearly custodian reports (CostAndCharges): who is expected to
 * send one for an account year, arrivals, and the recorded outcome per custodian, kind
 * and year. The same shape as the daily reports' repository, keyed by account year
 * instead of due day.
 *
 * Invariants:
 * - the earliest arrival for a (custodian, kind, year) decides on-time or late, in
 *   whatever order arrivals are recorded; a report found missing earlier becomes late
 *   when it arrives, and keeps its `notified_at` (it is never mailed twice);
 * - a missing row is only written by a deadline check, after the window has closed.
 */

/** A yearly report with at least one account taken into the ledger. */
export interface AnnualReportArrivalRecord {
  readonly custodianId: string;
  readonly kind: AnnualReportKind;
  /** The account year the report covers. */
  readonly year: number;
  readonly receivedAt: Date;
  readonly messageId: string;
}

/**
 * Records that a custodian's yearly report arrived. Call it inside the apply
 * transaction, so the arrival commits with the report itself. An arrival later than
 * one already recorded (a correction, the same message again) changes nothing.
 */
export async function recordAnnualReportArrival(tx: Sql, arrival: AnnualReportArrivalRecord): Promise<void> {
  const status = annualStatusOf(arrival.year, arrival.receivedAt, arrival.receivedAt);
  await tx.query(
    `INSERT INTO custodian_annual_report_deadlines (custodian_id, kind, year, deadline, status, arrived_at, message_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (custodian_id, kind, year) DO UPDATE
       SET status = EXCLUDED.status, arrived_at = EXCLUDED.arrived_at, message_id = EXCLUDED.message_id, updated_at = now()
     WHERE custodian_annual_report_deadlines.arrived_at IS NULL OR EXCLUDED.arrived_at < custodian_annual_report_deadlines.arrived_at`,
    [arrival.custodianId, arrival.kind, arrival.year, annualReportWindow(arrival.year).closes, status, arrival.receivedAt, arrival.messageId],
  );
}

/** The custodians that owe a report for `year`: those holding a custody account that was open on at least one day of it. */
export async function custodiansWithAccountsOpenIn(sql: Sql, year: number): Promise<string[]> {
  const { rows } = await sql.query<{ custodian_id: string }>(
    `SELECT DISTINCT custodian_id FROM custody_accounts
      WHERE opened_on <= make_date($1, 12, 31) AND (closed_on IS NULL OR closed_on >= make_date($1, 1, 1))
      ORDER BY custodian_id`,
    [year],
  );
  return rows.map((row) => row.custodian_id);
}

/** One recorded outcome row. */
export interface RecordedAnnualReport extends AnnualReportStatus {
  readonly status: 'on_time' | 'late' | 'missing';
  readonly missingSince: Date | undefined;
  readonly notifiedAt: Date | undefined;
}

interface AnnualRow {
  custodian_id: string;
  kind: AnnualReportKind;
  year: number;
  deadline: Date | string;
  status: 'on_time' | 'late' | 'missing';
  arrived_at: Date | string | null;
  message_id: string | null;
  missing_since: Date | string | null;
  notified_at: Date | string | null;
}

const COLUMNS = 'custodian_id, kind, year, deadline, status, arrived_at, message_id, missing_since, notified_at';

/** The recorded outcomes of one account year, by custodian and kind. */
export async function listRecordedAnnualReports(sql: Sql, year: number): Promise<RecordedAnnualReport[]> {
  const { rows } = await sql.query<AnnualRow>(
    `SELECT ${COLUMNS} FROM custodian_annual_report_deadlines WHERE year = $1 ORDER BY custodian_id, kind`,
    [year],
  );
  return rows.map(toRecorded);
}

/**
 * Writes a `missing` row for each report that has none yet (a report that arrived in
 * the meantime keeps its own row). Returns how many rows were written.
 */
export async function recordMissingAnnualReports(
  tx: Sql,
  reports: readonly Pick<AnnualReportStatus, 'custodianId' | 'kind' | 'year' | 'deadline'>[],
  checkedAt: Date,
): Promise<number> {
  if (reports.length === 0) return 0;
  const { rows } = await tx.query(
    `INSERT INTO custodian_annual_report_deadlines (custodian_id, kind, year, deadline, status, missing_since)
     SELECT c, k, y, dl, 'missing', $5 FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[]) AS r(c, k, y, dl)
     ON CONFLICT (custodian_id, kind, year) DO NOTHING RETURNING custodian_id`,
    [reports.map((r) => r.custodianId), reports.map((r) => r.kind), reports.map((r) => r.year), reports.map((r) => r.deadline), checkedAt],
  );
  return rows.length;
}

/**
 * Late and missing reports of account years up to `year` that no notice has listed
 * yet (a late correction of an earlier year included); locked until the transaction ends.
 */
export async function lockUnnotifiedAnnualReports(tx: Sql, year: number): Promise<RecordedAnnualReport[]> {
  const { rows } = await tx.query<AnnualRow>(
    `SELECT ${COLUMNS} FROM custodian_annual_report_deadlines
     WHERE year <= $1 AND status IN ('late', 'missing') AND notified_at IS NULL
     ORDER BY year, custodian_id, kind FOR UPDATE`,
    [year],
  );
  return rows.map(toRecorded);
}

/** Marks reports as listed in a notice sent at `at`. */
export async function markAnnualNotified(tx: Sql, reports: readonly Pick<AnnualReportStatus, 'custodianId' | 'kind' | 'year'>[], at: Date): Promise<void> {
  if (reports.length === 0) return;
  await tx.query(
    `UPDATE custodian_annual_report_deadlines d SET notified_at = $4, updated_at = now()
     FROM unnest($1::text[], $2::text[], $3::int[]) AS r(c, k, y)
     WHERE d.custodian_id = r.c AND d.kind = r.k AND d.year = r.y AND d.notified_at IS NULL`,
    [reports.map((r) => r.custodianId), reports.map((r) => r.kind), reports.map((r) => r.year), at],
  );
}

function toRecorded(row: AnnualRow): RecordedAnnualReport {
  return {
    custodianId: row.custodian_id,
    kind: row.kind,
    year: row.year,
    deadline: new Date(row.deadline),
    status: row.status,
    arrivedAt: optionalDate(row.arrived_at),
    messageId: row.message_id ?? undefined,
    missingSince: optionalDate(row.missing_since),
    notifiedAt: optionalDate(row.notified_at),
  };
}
