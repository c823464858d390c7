import type { Sql } from '../database.ts';
import { annualReportWindow, annualStatusOf, type AnnualReportKind, type AnnualReportStatus } from '../../core/annual-report-deadlines.ts';
import { listRows, lockUnnotifiedRows, markRowsNotified, recordArrivalRow, recordMissingRows, type RecordedRow, type ReportDeadlineTable } from './report-deadline-rows.ts';

/**
 * The ledger side of the yearly custodian reports (CostAndCharges): who is expected to
 * send one for an account year, arrivals, and the recorded outcome per custodian, kind
 * and year. The same rows as the daily reports', keyed by account year instead of due
 * day (report-deadline-rows.ts).
 *
 * Invariants:
 * - the earliest arrival for a (custodian, kind, year) decides on-time or late, in
 *   whatever order arrivals are recorded; a report found missing earlier becomes late
 *   when it arrives, and keeps its `notified_at` (it is never mailed twice);
 * - a missing row is only written by a deadline check, after the window has closed.
 */

/** The yearly reports' rows, one per custodian, kind and account year. */
const ANNUAL: ReportDeadlineTable = { name: 'custodian_annual_report_deadlines', period: 'year', periodType: 'int', periodRead: 'year' };

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
  await recordArrivalRow(tx, ANNUAL, {
    custodianId: arrival.custodianId, kind: arrival.kind, period: arrival.year, deadline: annualReportWindow(arrival.year).closes,
    status: annualStatusOf(arrival.year, arrival.receivedAt, arrival.receivedAt), arrivedAt: arrival.receivedAt, messageId: arrival.messageId,
  });
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

/** The recorded outcomes of one account year, by custodian and kind. */
export async function listRecordedAnnualReports(sql: Sql, year: number): Promise<RecordedAnnualReport[]> {
  return (await listRows<AnnualReportKind, number>(sql, ANNUAL, 'year = $1', [year])).map(withYear);
}

/**
 * Writes a `missing` row for each report that has none yet (a report that arrived in
 * the meantime keeps its own row). Returns how many rows were written.
 */
export async function recordMissingAnnualReports(tx: Sql, reports: readonly Pick<AnnualReportStatus, 'custodianId' | 'kind' | 'year' | 'deadline'>[], checkedAt: Date): Promise<number> {
  return recordMissingRows(tx, ANNUAL, reports.map((r) => ({ ...r, period: r.year })), checkedAt);
}

/**
 * Late and missing reports of account years up to `year` that no notice has listed
 * yet (a late correction of an earlier year included); locked until the transaction ends.
 */
export async function lockUnnotifiedAnnualReports(tx: Sql, year: number): Promise<RecordedAnnualReport[]> {
  return (await lockUnnotifiedRows<AnnualReportKind, number>(tx, ANNUAL, 'year <= $1', [year])).map(withYear);
}

/** Marks reports as listed in a notice sent at `at`. */
export async function markAnnualNotified(tx: Sql, reports: readonly Pick<AnnualReportStatus, 'custodianId' | 'kind' | 'year'>[], at: Date): Promise<void> {
  await markRowsNotified(tx, ANNUAL, reports.map((r) => ({ ...r, period: r.year })), at);
}

function withYear({ custodianId, kind, period, ...outcome }: RecordedRow<AnnualReportKind, number>): RecordedAnnualReport {
  return { custodianId, kind, year: period, ...outcome };
}
