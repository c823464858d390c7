import type { Sql } from '../database.ts';
import type { Deposit, ProductKind } from '../../core/charges/charges.ts';
import type { Valuation } from '../../core/debit-run.ts';
import type { IsoDate } from '../../core/calendar-date.ts';

/**
 * Reads and writes of the debit and payout runs (migration 0009): the account facts a
 * debit run needs in three set-based queries, the run rows, their lines and the
 * outgoing documents (delivered after commit: outgoing-documents.repository.ts). Every
 * write goes through the caller's transaction, so a run is stored whole or not at all.
 */

/** One insured custody account as the debit run reads it. */
export interface InsuredAccountRow {
  readonly insuranceNumber: string;
  readonly accountNumber: string;
  readonly custodianId: string;
  readonly kind: ProductKind;
  readonly startDate: IsoDate;
  /** The last day in force, when the insurance has ended. */
  readonly endDate: IsoDate | null;
  readonly insuredPin: string;
  readonly annualFixedCharge: string | null;
  readonly annualCapitalPercent: string | null;
  /** The first month of the insurance's payout ('YYYY-MM'), once one is registered: repayment protection ends before it. */
  readonly payoutStartMonth: string | null;
}

/**
 * The insurances in force on some day from `firstDay` through `lastDay` (started by its
 * end, not ended before its start) on accounts of custodians not in `excluded`, with
 * their fees in force on `lastDay` and their payout's first month.
 */
export async function insuredAccounts(sql: Sql, firstDay: IsoDate, lastDay: IsoDate, excluded: readonly string[]): Promise<InsuredAccountRow[]> {
  const { rows } = await sql.query<InsuredAccountRow>(
    `SELECT i.insurance_number AS "insuranceNumber", i.custody_account AS "accountNumber", a.custodian_id AS "custodianId",
            p.kind, i.start_date::text AS "startDate", i.end_date::text AS "endDate", i.insured_pin AS "insuredPin",
            (SELECT f.value::text FROM insurance_fees f WHERE f.insurance_number = i.insurance_number AND f.fee_type = 'FixedCharge'
                AND f.effective_date <= $1 ORDER BY f.effective_date DESC, f.id DESC LIMIT 1) AS "annualFixedCharge",
            (SELECT f.value::text FROM insurance_fees f WHERE f.insurance_number = i.insurance_number AND f.fee_type = 'CapitalCharge'
                AND f.effective_date <= $1 ORDER BY f.effective_date DESC, f.id DESC LIMIT 1) AS "annualCapitalPercent",
            (SELECT o.start_month FROM payouts o WHERE o.insurance_number = i.insurance_number) AS "payoutStartMonth"
       FROM insurances i
       JOIN products p ON p.code = i.product_code
       JOIN custody_accounts a ON a.account_number = i.custody_account
      WHERE i.start_date <= $1 AND (i.end_date IS NULL OR i.end_date >= $3) AND NOT (a.custodian_id = ANY($2::text[]))
      ORDER BY a.custodian_id, i.custody_account, i.insurance_number`,
    [lastDay, excluded, firstDay],
  );
  return rows;
}

/** Each account's valuations from the last one before `from` through `to`, in date order. */
export async function valuationsOf(sql: Sql, accounts: readonly string[], from: IsoDate, to: IsoDate): Promise<Map<string, Valuation[]>> {
  const { rows } = await sql.query<Valuation & { accountNumber: string }>(
    `SELECT v.account_number AS "accountNumber", v.as_of::text AS "asOf", v.total_value::text AS "totalValue", v.cash::text AS cash
       FROM custody_valuations v
      WHERE v.account_number = ANY($1::text[]) AND v.as_of <= $3
        AND v.as_of >= COALESCE((SELECT max(b.as_of) FROM custody_valuations b WHERE b.account_number = v.account_number AND b.as_of < $2), $2)
      ORDER BY v.account_number, v.as_of`,
    [accounts, from, to],
  );
  const byAccount = new Map<string, Valuation[]>();
  for (const { accountNumber, ...valuation } of rows) byAccount.set(accountNumber, [...(byAccount.get(accountNumber) ?? []), valuation]);
  return byAccount;
}

/** Each account's deposits with a trade date from `from` through `to`. */
export async function depositsOf(sql: Sql, accounts: readonly string[], from: IsoDate, to: IsoDate): Promise<Map<string, Deposit[]>> {
  const { rows } = await sql.query<Deposit & { accountNumber: string }>(
    `SELECT account_number AS "accountNumber", trade_date::text AS date, amount::text AS amount
       FROM custody_transactions
      WHERE account_number = ANY($1::text[]) AND transaction_type = 'Deposit' AND trade_date BETWEEN $2 AND $3
      ORDER BY account_number, trade_date, transaction_id`,
    [accounts, from, to],
  );
  const byAccount = new Map<string, Deposit[]>();
  for (const { accountNumber, ...deposit } of rows) byAccount.set(accountNumber, [...(byAccount.get(accountNumber) ?? []), deposit]);
  return byAccount;
}

/** Takes the run's lock for the rest of the transaction: two runs of one key never interleave. */
export async function lockRun(sql: Sql, runKey: string): Promise<void> {
  await sql.query(`SELECT pg_advisory_xact_lock(4711009, hashtext($1))`, [runKey]);
}

/** The custodians a run key already has a row for. */
export async function custodiansDone(sql: Sql, runKey: string): Promise<string[]> {
  const { rows } = await sql.query<{ custodian_id: string }>('SELECT custodian_id FROM debit_runs WHERE run_key = $1', [runKey]);
  return rows.map((row) => row.custodian_id);
}

export interface StoredRun {
  readonly runKey: string;
  readonly custodianId: string;
  readonly kind: 'debit' | 'payout';
  readonly runDate: IsoDate;
  readonly held: readonly unknown[];
  readonly createdAt: Date;
  readonly document?: { readonly documentId: string; readonly documentType: string; readonly fileName: string; readonly body: string } | undefined;
}

/** Stores a run for one custodian with its outgoing document (when it has one). */
export async function insertRun(sql: Sql, run: StoredRun): Promise<void> {
  if (run.document) {
    await sql.query(
      `INSERT INTO outgoing_documents (document_id, counterparty_id, document_type, file_name, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [run.document.documentId, run.custodianId, run.document.documentType, run.document.fileName, run.document.body, run.createdAt],
    );
  }
  await sql.query(
    `INSERT INTO debit_runs (run_key, custodian_id, kind, run_date, document_id, held, created_at) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)`,
    [run.runKey, run.custodianId, run.kind, run.runDate, run.document?.documentId ?? null, JSON.stringify(run.held), run.createdAt],
  );
}

export interface StoredLine {
  readonly accountNumber: string;
  readonly insuranceNumber: string;
  readonly charge: string;
  readonly basis?: string | undefined;
  readonly amount: string;
  readonly periodFrom: IsoDate;
  readonly periodTo: IsoDate;
}

/** Stores a run's lines in one statement. */
export async function insertLines(sql: Sql, runKey: string, custodianId: string, lines: readonly StoredLine[]): Promise<void> {
  if (lines.length === 0) return;
  await sql.query(
    `INSERT INTO debit_lines (run_key, custodian_id, account_number, insurance_number, charge, basis, amount, period_from, period_to)
     SELECT $1, $2, l.account_number, l.insurance_number, l.charge, l.basis, l.amount::numeric, l.period_from::date, l.period_to::date
       FROM jsonb_to_recordset($3::jsonb) AS l(account_number text, insurance_number text, charge text, basis text, amount text, period_from text, period_to text)`,
    [runKey, custodianId, JSON.stringify(lines.map((l) => ({
      account_number: l.accountNumber, insurance_number: l.insuranceNumber, charge: l.charge, basis: l.basis ?? null,
      amount: l.amount, period_from: l.periodFrom, period_to: l.periodTo,
    })))],
  );
}

/**
 * The documents of a run not yet delivered: those this run recorded and those an
 * earlier run of the key recorded whose delivery has not succeeded yet.
 */
export async function undeliveredRunDocuments(sql: Sql, runKey: string): Promise<string[]> {
  const { rows } = await sql.query<{ document_id: string }>(
    `SELECT o.document_id FROM outgoing_documents o JOIN debit_runs r ON r.document_id = o.document_id
      WHERE r.run_key = $1 AND o.delivered_at IS NULL ORDER BY o.document_id`,
    [runKey],
  );
  return rows.map((row) => row.document_id);
}
