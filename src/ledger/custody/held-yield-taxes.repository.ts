import type { Sql } from '../database.ts';
import type { IsoDate } from '../../core/calendar-date.ts';
import type { ProductKind, YieldTaxBasis } from '../../core/charges/charges.ts';
import type { CaughtUpTax, HeldTax, PendingTax } from '../../core/debit-run.ts';

/**
 * Yield tax lines a debit run held back for want of their rate (held_yield_taxes,
 * migration 0035): recorded by the run that held them, found again by every later
 * debit run, and marked debited by the one that takes them. Every write goes through
 * the run's transaction, so a held tax is recorded with its run and debited with the
 * run that takes it, or neither.
 */

/** A held tax with the insurance and account it belongs to, as a run records it. */
export interface HeldTaxOfAccount extends HeldTax {
  readonly insuranceNumber: string;
  readonly accountNumber: string;
}

interface PendingRow {
  runKey: string; insuranceNumber: string; basis: YieldTaxBasis; kind: ProductKind; taxYear: number; base: string; halfBase: boolean;
  periodFrom: IsoDate; periodTo: IsoDate; reason: string;
}

/**
 * The held taxes of these insurances that runs before `runKey` recorded and no run has
 * debited, by insurance. With `lock` their rows stay locked to this transaction: a
 * debit run of another key waits for it, then finds them debited and leaves them.
 */
export async function pendingHeldTaxes(sql: Sql, insuranceNumbers: readonly string[], runKey: string, options: { lock: boolean }): Promise<Map<string, PendingTax[]>> {
  const byInsurance = new Map<string, PendingTax[]>();
  if (insuranceNumbers.length === 0) return byInsurance;
  const { rows } = await sql.query<PendingRow>(
    `SELECT run_key AS "runKey", insurance_number AS "insuranceNumber", basis, kind, tax_year AS "taxYear", base::text AS base, half_base AS "halfBase",
            period_from::text AS "periodFrom", period_to::text AS "periodTo", reason
       FROM held_yield_taxes
      WHERE insurance_number = ANY($1::text[]) AND debited_run_key IS NULL AND run_key < $2
      ORDER BY insurance_number, run_key, basis${options.lock ? ' FOR UPDATE' : ''}`,
    [insuranceNumbers, runKey],
  );
  for (const { runKey: heldBy, insuranceNumber, ...tax } of rows) {
    byInsurance.set(insuranceNumber, [...(byInsurance.get(insuranceNumber) ?? []), { ...tax, heldBy }]);
  }
  return byInsurance;
}

/** Records the taxes a custodian's run held back, in the run's transaction (after its debit_runs row). */
export async function recordHeldTaxes(sql: Sql, runKey: string, custodianId: string, taxes: readonly HeldTaxOfAccount[]): Promise<void> {
  if (taxes.length === 0) return;
  await sql.query(
    `INSERT INTO held_yield_taxes (run_key, custodian_id, insurance_number, account_number, basis, kind, tax_year, base, half_base, period_from, period_to, reason)
     SELECT $1, $2, t.insurance_number, t.account_number, t.basis, t.kind, t.tax_year, t.base::numeric, t.half_base, t.period_from::date, t.period_to::date, t.reason
       FROM jsonb_to_recordset($3::jsonb) AS t(insurance_number text, account_number text, basis text, kind text, tax_year int, base text,
                                                half_base boolean, period_from text, period_to text, reason text)`,
    [runKey, custodianId, JSON.stringify(taxes.map((tax) => ({
      insurance_number: tax.insuranceNumber, account_number: tax.accountNumber, basis: tax.basis, kind: tax.kind, tax_year: tax.taxYear,
      base: tax.base, half_base: tax.halfBase, period_from: tax.periodFrom, period_to: tax.periodTo, reason: tax.reason,
    })))],
  );
}

/**
 * Marks held taxes debited by a custodian's run, in the run's transaction (after its
 * debit_runs row). Throws when one was debited meanwhile: the run then rolls back
 * rather than debit a tax twice (the rows were locked when read, so it does not happen).
 */
export async function markHeldTaxesDebited(
  sql: Sql, runKey: string, custodianId: string, taxes: readonly (CaughtUpTax & { readonly insuranceNumber: string })[],
): Promise<void> {
  if (taxes.length === 0) return;
  const { rows } = await sql.query<{ n: number }>(
    `WITH marked AS (
       UPDATE held_yield_taxes h SET debited_run_key = $1, debited_custodian_id = $2, debited_amount = t.amount::numeric
         FROM jsonb_to_recordset($3::jsonb) AS t(held_by text, insurance_number text, basis text, amount text)
        WHERE h.run_key = t.held_by AND h.insurance_number = t.insurance_number AND h.basis = t.basis AND h.debited_run_key IS NULL
       RETURNING 1)
     SELECT count(*)::int AS n FROM marked`,
    [runKey, custodianId, JSON.stringify(taxes.map((tax) => ({ held_by: tax.heldBy, insurance_number: tax.insuranceNumber, basis: tax.basis, amount: tax.amount })))],
  );
  if (rows[0]?.n !== taxes.length) throw new Error(`debit run ${runKey}: ${taxes.length - (rows[0]?.n ?? 0)} held yield taxes were debited by another run meanwhile`);
}

/** A held tax as staff see it: where it was held, why, and which run debited it. */
export interface HeldTaxEntry {
  readonly runKey: string;
  readonly custodianId: string;
  readonly insuranceNumber: string;
  readonly accountNumber: string;
  readonly basis: YieldTaxBasis;
  readonly kind: ProductKind;
  readonly taxYear: number;
  readonly base: string;
  readonly halfBase: boolean;
  readonly periodFrom: IsoDate;
  readonly periodTo: IsoDate;
  readonly reason: string;
  /** The run that debited it, with the amount; null while it waits for its rate. */
  readonly debited: { readonly runKey: string; readonly amount: string } | null;
}

interface EntryRow extends Omit<HeldTaxEntry, 'debited'> { debitedRunKey: string | null; debitedAmount: string | null }

/** The held taxes of these runs (run keys; all runs when omitted), pending first, at most `limit`. */
export async function listHeldTaxes(sql: Sql, filter: { readonly runKeys?: readonly string[]; readonly limit: number }): Promise<HeldTaxEntry[]> {
  const { rows } = await sql.query<EntryRow>(
    `SELECT run_key AS "runKey", custodian_id AS "custodianId", insurance_number AS "insuranceNumber", account_number AS "accountNumber", basis, kind,
            tax_year AS "taxYear", base::text AS base, half_base AS "halfBase", period_from::text AS "periodFrom", period_to::text AS "periodTo", reason,
            debited_run_key AS "debitedRunKey", debited_amount::text AS "debitedAmount"
       FROM held_yield_taxes
      WHERE $1::text[] IS NULL OR run_key = ANY($1::text[])
      ORDER BY debited_run_key IS NOT NULL, run_key DESC, custodian_id, account_number, basis LIMIT $2`,
    [filter.runKeys ?? null, filter.limit],
  );
  return rows.map(({ debitedRunKey, debitedAmount, ...row }) => ({
    ...row, debited: debitedRunKey === null || debitedAmount === null ? null : { runKey: debitedRunKey, amount: debitedAmount },
  }));
}
