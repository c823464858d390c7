import type { Sql } from '../database.ts';
import type { ReportStatus } from '../../core/report-deadlines.ts';

/**
 * The rows both custodian report deadline tables keep: one expected report per
 * custodian, kind and period, with its status, earliest arrival, missing-since and
 * notice. The daily reports (`custodian_report_deadlines`) count periods in due days,
 * the yearly ones (`custodian_annual_report_deadlines`) in account years; otherwise the
 * tables and their statements are the same, so they are written here once and each
 * repository names its table and how it picks periods.
 *
 * Invariants (the repositories state them for their own reports):
 * - the earliest arrival decides on-time or late, in whatever order arrivals are
 *   recorded; a report found missing earlier becomes late when it arrives, and keeps
 *   its `notified_at` (it is never mailed twice);
 * - a missing row never replaces a row that is there.
 */

/** One of the two tables, and its period column. */
export interface ReportDeadlineTable {
  readonly name: 'custodian_report_deadlines' | 'custodian_annual_report_deadlines';
  readonly period: 'due_day' | 'year';
  /** The period column's SQL type, for the arrays a batch of reports is passed in. */
  readonly periodType: 'date' | 'int';
  /** How the period is read: a due day as text YYYY-MM-DD (a Date would be local midnight), a year as it is. */
  readonly periodRead: 'due_day::text' | 'year';
}

/** One recorded outcome row; `period` is the due day or the account year. */
export interface RecordedRow<Kind extends string, Period extends string | number> {
  readonly custodianId: string;
  readonly kind: Kind;
  readonly period: Period;
  readonly deadline: Date;
  readonly status: 'on_time' | 'late' | 'missing';
  readonly arrivedAt: Date | undefined;
  readonly messageId: string | undefined;
  readonly missingSince: Date | undefined;
  readonly notifiedAt: Date | undefined;
}

/** One expected report, as far as its row's key and deadline go. */
export interface ExpectedReport<Kind extends string, Period extends string | number> {
  readonly custodianId: string;
  readonly kind: Kind;
  readonly period: Period;
  readonly deadline: Date;
}

/** A report that arrived, with the status its arrival gives it (on time or late). */
export interface ArrivedReport<Kind extends string, Period extends string | number> extends ExpectedReport<Kind, Period> {
  readonly status: ReportStatus;
  readonly arrivedAt: Date;
  readonly messageId: string;
}

interface Row<Kind extends string, Period extends string | number> {
  custodian_id: string;
  kind: Kind;
  period: Period;
  deadline: Date | string;
  status: 'on_time' | 'late' | 'missing';
  arrived_at: Date | string | null;
  message_id: string | null;
  missing_since: Date | string | null;
  notified_at: Date | string | null;
}

/**
 * Records an arrival in its report's row: writes the row, or replaces the arrival,
 * status and message of one that has no arrival yet or a later one.
 */
export async function recordArrivalRow<Kind extends string, Period extends string | number>(
  tx: Sql,
  table: ReportDeadlineTable,
  report: ArrivedReport<Kind, Period>,
): Promise<void> {
  await tx.query(
    `INSERT INTO ${table.name} (custodian_id, kind, ${table.period}, deadline, status, arrived_at, message_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (custodian_id, kind, ${table.period}) DO UPDATE
       SET status = EXCLUDED.status, arrived_at = EXCLUDED.arrived_at, message_id = EXCLUDED.message_id, updated_at = now()
     WHERE ${table.name}.arrived_at IS NULL OR EXCLUDED.arrived_at < ${table.name}.arrived_at`,
    [report.custodianId, report.kind, report.period, report.deadline, report.status, report.arrivedAt, report.messageId],
  );
}

/**
 * The rows whose period meets `periodCondition` (SQL over the period column, with
 * `params`), by period, custodian and kind.
 */
export async function listRows<Kind extends string, Period extends string | number>(
  sql: Sql,
  table: ReportDeadlineTable,
  periodCondition: string,
  params: readonly unknown[],
): Promise<RecordedRow<Kind, Period>[]> {
  return selectRows(sql, table, periodCondition, params, '');
}

/**
 * Writes a `missing` row for each report that has none yet (a report that arrived in
 * the meantime keeps its own row). Returns how many rows were written.
 */
export async function recordMissingRows<Kind extends string, Period extends string | number>(
  tx: Sql,
  table: ReportDeadlineTable,
  reports: readonly ExpectedReport<Kind, Period>[],
  checkedAt: Date,
): Promise<number> {
  if (reports.length === 0) return 0;
  const { rows } = await tx.query(
    `INSERT INTO ${table.name} (custodian_id, kind, ${table.period}, deadline, status, missing_since)
     SELECT c, k, p, dl, 'missing', $5 FROM unnest($1::text[], $2::text[], $3::${table.periodType}[], $4::timestamptz[]) AS r(c, k, p, dl)
     ON CONFLICT (custodian_id, kind, ${table.period}) DO NOTHING RETURNING custodian_id`,
    [reports.map((r) => r.custodianId), reports.map((r) => r.kind), reports.map((r) => r.period), reports.map((r) => r.deadline), checkedAt],
  );
  return rows.length;
}

/**
 * Late and missing reports whose period meets `periodCondition` that no notice has
 * listed yet, by period, custodian and kind; locked until the transaction ends.
 */
export async function lockUnnotifiedRows<Kind extends string, Period extends string | number>(
  tx: Sql,
  table: ReportDeadlineTable,
  periodCondition: string,
  params: readonly unknown[],
): Promise<RecordedRow<Kind, Period>[]> {
  return selectRows(tx, table, `${periodCondition} AND status IN ('late', 'missing') AND notified_at IS NULL`, params, ' FOR UPDATE');
}

/** Marks reports as listed in a notice sent at `at`; one already marked keeps its first notice. */
export async function markRowsNotified<Kind extends string, Period extends string | number>(
  tx: Sql,
  table: ReportDeadlineTable,
  reports: readonly Pick<ExpectedReport<Kind, Period>, 'custodianId' | 'kind' | 'period'>[],
  at: Date,
): Promise<void> {
  if (reports.length === 0) return;
  await tx.query(
    `UPDATE ${table.name} d SET notified_at = $4, updated_at = now()
     FROM unnest($1::text[], $2::text[], $3::${table.periodType}[]) AS r(c, k, p)
     WHERE d.custodian_id = r.c AND d.kind = r.k AND d.${table.period} = r.p AND d.notified_at IS NULL`,
    [reports.map((r) => r.custodianId), reports.map((r) => r.kind), reports.map((r) => r.period), at],
  );
}

/** The rows that meet `where`, by period, custodian and kind; with ` FOR UPDATE` locked until the transaction ends. */
async function selectRows<Kind extends string, Period extends string | number>(
  sql: Sql,
  table: ReportDeadlineTable,
  where: string,
  params: readonly unknown[],
  lock: '' | ' FOR UPDATE',
): Promise<RecordedRow<Kind, Period>[]> {
  const { rows } = await sql.query<Row<Kind, Period>>(
    `SELECT custodian_id, kind, ${table.periodRead} AS period, deadline, status, arrived_at, message_id, missing_since, notified_at
     FROM ${table.name} WHERE ${where} ORDER BY ${table.period}, custodian_id, kind${lock}`,
    params,
  );
  return rows.map(toRecorded);
}

function toRecorded<Kind extends string, Period extends string | number>(row: Row<Kind, Period>): RecordedRow<Kind, Period> {
  return {
    custodianId: row.custodian_id,
    kind: row.kind,
    period: row.period,
    deadline: new Date(row.deadline),
    status: row.status,
    arrivedAt: optionalDate(row.arrived_at),
    messageId: row.message_id ?? undefined,
    missingSince: optionalDate(row.missing_since),
    notifiedAt: optionalDate(row.notified_at),
  };
}

/** A nullable timestamp column as a Date, or undefined. */
function optionalDate(value: Date | string | null): Date | undefined {
  return value === null ? undefined : new Date(value);
}
