import type { Sql } from '../database.ts';
import type { IsoDate } from '../../core/calendar-date.ts';
import type { ProductKind } from '../../core/charges/charges.ts';
import { standardCoverages, type CoverageType } from '../../core/debit-run.ts';

/**
 * The coverages each insurance carries (insurance_coverages, migration 0023): written
 * when an insurance is created — as applied for, or its kind's standard ones — and
 * read by the debit run, which charges each one's risk premium. Every write goes
 * through the caller's transaction, with the insurance it belongs to.
 */

export interface CoverageRow {
  readonly insuranceNumber: string;
  readonly type: CoverageType;
  readonly fromDate: IsoDate;
}

/** Records coverages; `messageId` is the document or application that gave them. */
export async function insertCoverages(sql: Sql, messageId: string, rows: readonly CoverageRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO insurance_coverages (insurance_number, coverage_type, from_date, message_id)
     SELECT c.insurance_number, c.coverage_type, c.from_date, $4 FROM unnest($1::text[], $2::text[], $3::date[]) AS c(insurance_number, coverage_type, from_date)`,
    [rows.map((row) => row.insuranceNumber), rows.map((row) => row.type), rows.map((row) => row.fromDate), messageId],
  );
}

/** Records each insurance's standard coverages for its product kind (standardCoverages), from its start date. */
export async function insertStandardCoverages(sql: Sql, messageId: string, insuranceNumbers: readonly string[]): Promise<void> {
  const { rows } = await sql.query<{ insuranceNumber: string; kind: ProductKind; startDate: IsoDate }>(
    `SELECT i.insurance_number AS "insuranceNumber", p.kind, i.start_date::text AS "startDate"
       FROM insurances i JOIN products p ON p.code = i.product_code
      WHERE i.insurance_number = ANY($1::text[])`,
    [insuranceNumbers],
  );
  await insertCoverages(sql, messageId, rows.flatMap((row) => standardCoverages(row.kind).map((type) => ({ insuranceNumber: row.insuranceNumber, type, fromDate: row.startDate }))));
}

/** Each insurance's coverages in force on `day` (from_date on or before it); an insurance with none is left out. */
export async function coveragesOn(sql: Sql, insuranceNumbers: readonly string[], day: IsoDate): Promise<Map<string, CoverageType[]>> {
  const { rows } = await sql.query<{ insuranceNumber: string; type: CoverageType }>(
    `SELECT insurance_number AS "insuranceNumber", coverage_type AS type
       FROM insurance_coverages
      WHERE insurance_number = ANY($1::text[]) AND from_date <= $2
      ORDER BY insurance_number, coverage_type DESC`,
    [insuranceNumbers, day],
  );
  const byInsurance = new Map<string, CoverageType[]>();
  for (const row of rows) byInsurance.set(row.insuranceNumber, [...(byInsurance.get(row.insuranceNumber) ?? []), row.type]);
  return byInsurance;
}

/**
 * Each insurance's monthly premium in force on `day`: what a premium waiver is priced
 * on. An insurance paid-up by then, or with no premium, is left out.
 */
export async function monthlyPremiumsOn(sql: Sql, insuranceNumbers: readonly string[], day: IsoDate): Promise<Map<string, string>> {
  const { rows } = await sql.query<{ insuranceNumber: string; monthlyAmount: string }>(
    `SELECT DISTINCT ON (p.insurance_number) p.insurance_number AS "insuranceNumber", p.monthly_amount::text AS "monthlyAmount"
       FROM insurance_premiums p
      WHERE p.insurance_number = ANY($1::text[]) AND p.effective_date <= $2
        AND NOT EXISTS (SELECT 1 FROM insurance_paid_up u WHERE u.insurance_number = p.insurance_number AND u.paid_up_from <= $2)
      ORDER BY p.insurance_number, p.effective_date DESC, p.id DESC`,
    [insuranceNumbers, day],
  );
  return new Map(rows.map((row) => [row.insuranceNumber, row.monthlyAmount]));
}
