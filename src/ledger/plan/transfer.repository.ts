import type { DistributionPlan, ProductKind } from '../../core/transfer.rules.ts';
import type { Sql } from '../database.ts';

/**
 * Ledger queries of Transfer: the target products with their selectable funds, the
 * insurances' distribution plans and latest transfers (one query each for the whole
 * document), and the write of the accepted moves. A move is a row in
 * insurance_transfers (product and account before and after); insurances keeps only
 * the current product and account, so the history is the transfers table.
 */
export interface TargetProduct {
  readonly code: string;
  readonly kind: ProductKind;
  readonly funds: ReadonlySet<string>;
}

/** The known products among `codes`, with the funds selectable in each. */
export async function findTargetProducts(sql: Sql, codes: readonly string[]): Promise<Map<string, TargetProduct>> {
  const { rows } = await sql.query<{ code: string; kind: ProductKind; funds: string[] | null }>(
    `SELECT p.code, p.kind, array_remove(array_agg(f.isin), NULL) AS funds
       FROM products p LEFT JOIN product_funds f ON f.product_code = p.code
      WHERE p.code = ANY($1::text[]) GROUP BY p.code, p.kind`,
    [[...new Set(codes)]],
  );
  return new Map(rows.map((row) => [row.code, { code: row.code, kind: row.kind, funds: new Set(row.funds ?? []) }]));
}

/** Every distribution plan of each insurance, by insurance, in effective-date (then recording) order. */
export async function findDistributionPlans(sql: Sql, insuranceNumbers: readonly string[]): Promise<Map<string, DistributionPlan[]>> {
  const { rows } = await sql.query<{ insurance_number: string; effective_date: string; isins: string[] }>(
    `SELECT a.insurance_number, a.effective_date::text AS effective_date, array_agg(l.isin ORDER BY l.isin) AS isins
       FROM fund_allocations a JOIN fund_allocation_lines l ON l.allocation_id = a.id
      WHERE a.purpose = 'DistributionPlan' AND a.insurance_number = ANY($1::text[])
      GROUP BY a.id, a.insurance_number, a.effective_date
      ORDER BY a.insurance_number, a.effective_date, a.id`,
    [[...new Set(insuranceNumbers)]],
  );
  const byInsurance = new Map<string, DistributionPlan[]>();
  for (const row of rows) {
    const list = byInsurance.get(row.insurance_number) ?? [];
    list.push({ effectiveDate: row.effective_date, isins: row.isins });
    byInsurance.set(row.insurance_number, list);
  }
  return byInsurance;
}

/** The effective date of each insurance's latest transfer, for those that were ever transferred. */
export async function findLatestTransferDates(sql: Sql, insuranceNumbers: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await sql.query<{ insurance_number: string; effective_date: string }>(
    `SELECT insurance_number, max(effective_date)::text AS effective_date
       FROM insurance_transfers WHERE insurance_number = ANY($1::text[]) GROUP BY insurance_number`,
    [[...new Set(insuranceNumbers)]],
  );
  return new Map(rows.map((row) => [row.insurance_number, row.effective_date]));
}

export interface NewTransfer {
  readonly insuranceNumber: string;
  readonly effectiveDate: string;
  readonly fromProductCode: string;
  readonly toProductCode: string;
  readonly fromCustodyAccount: string | null;
  readonly toCustodyAccount: string | null;
}

/**
 * Records the transfers (in the document's order) and sets each insurance's current
 * product and account to where its last transfer of the document left it: two
 * statements whatever their number.
 */
export async function insertTransfers(sql: Sql, messageId: string, transfers: readonly NewTransfer[]): Promise<void> {
  if (transfers.length === 0) return;
  await sql.query(
    `INSERT INTO insurance_transfers (insurance_number, effective_date, from_product_code, to_product_code, from_custody_account, to_custody_account, message_id)
     SELECT t.insurance_number, t.effective_date, t.from_product, t.to_product, t.from_account, t.to_account, $7
       FROM unnest($1::text[], $2::date[], $3::text[], $4::text[], $5::text[], $6::text[])
            WITH ORDINALITY AS t(insurance_number, effective_date, from_product, to_product, from_account, to_account, ordinality)
      ORDER BY t.ordinality`,
    [
      transfers.map((t) => t.insuranceNumber), transfers.map((t) => t.effectiveDate), transfers.map((t) => t.fromProductCode),
      transfers.map((t) => t.toProductCode), transfers.map((t) => t.fromCustodyAccount), transfers.map((t) => t.toCustodyAccount), messageId,
    ],
  );
  // UPDATE … FROM takes one arbitrary source row per target row: pass only each insurance's final state.
  const final = [...new Map(transfers.map((t) => [t.insuranceNumber, t])).values()];
  await sql.query(
    `UPDATE insurances i SET product_code = u.product_code, custody_account = u.custody_account
       FROM unnest($1::text[], $2::text[], $3::text[]) AS u(insurance_number, product_code, custody_account)
      WHERE i.insurance_number = u.insurance_number`,
    [final.map((t) => t.insuranceNumber), final.map((t) => t.toProductCode), final.map((t) => t.toCustodyAccount)],
  );
}
