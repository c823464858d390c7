import type { AdvisorFeeCap, CommissionFee, CommissionPeriod } from '../../core/commission.rules.ts';
import type { IsoDate } from '../../core/calendar-date.ts';
import type { Sql } from '../database.ts';

/**
 * Reads and writes of the commission file (migration 0044, docs/commission.md): the facts
 * a CommissionFile's items are decided on, its accepted lines, the fees a debit run takes,
 * the custodian's debit that shows each, and the monthly statements that pay them. Every
 * write goes through the caller's transaction.
 */

/** What a commission item is decided on: the insurance, its product's cap, the firm's powers on its policyholder and its charged periods. */
export interface CommissionInsuranceFacts {
  readonly insuranceNumber: string;
  readonly policyholder: string | null;
  readonly productCode: string;
  readonly startDate: IsoDate;
  readonly endDate: IsoDate | null;
  readonly cap: AdvisorFeeCap;
  /** The firm's intermediation powers on the policyholder, not revoked. */
  readonly powers: readonly { readonly id: string; readonly validFrom: IsoDate; readonly validTo: IsoDate | null }[];
  /** Periods already charged on the insurance, by any firm, with the file and item that reported each. */
  readonly charged: (CommissionPeriod & { readonly messageId: string; readonly itemId: string })[];
}

export async function isAdvisorFirm(sql: Sql, organisationNumber: string): Promise<boolean> {
  const { rows } = await sql.query('SELECT 1 FROM advisor_firms WHERE organisation_number = $1', [organisationNumber]);
  return rows.length > 0;
}

/** The facts of the named insurances for one firm, in one statement (locking their charged periods' insurances is the caller's ordering key). */
export async function commissionFacts(sql: Sql, firm: string, insuranceNumbers: readonly string[]): Promise<Map<string, CommissionInsuranceFacts>> {
  const { rows } = await sql.query<Omit<CommissionInsuranceFacts, 'cap' | 'powers' | 'charged'> & {
    maxPercent: string; maxAmount: string; powers: CommissionInsuranceFacts['powers'] | string | null; charged: CommissionInsuranceFacts['charged'] | string | null;
  }>(
    `SELECT i.insurance_number AS "insuranceNumber", i.policyholder, i.product_code AS "productCode", i.start_date::text AS "startDate",
            i.end_date::text AS "endDate", p.advisor_fee_max_percent::text AS "maxPercent", p.advisor_fee_max_amount::text AS "maxAmount",
            (SELECT json_agg(json_build_object('id', poa.id::text, 'validFrom', poa.valid_from::text, 'validTo', poa.valid_to::text) ORDER BY poa.id)
               FROM powers_of_attorney poa
              WHERE poa.customer_id = i.policyholder AND poa.holder_organisation_number = $1 AND poa.kind = 'intermediation' AND poa.revoked_at IS NULL) AS powers,
            (SELECT json_agg(json_build_object('periodFrom', c.period_from::text, 'periodTo', c.period_to::text, 'messageId', c.message_id, 'itemId', c.item_id)
                             ORDER BY c.period_from)
               FROM commission_lines c WHERE c.insurance_number = i.insurance_number) AS charged
       FROM insurances i JOIN products p ON p.code = i.product_code
      WHERE i.insurance_number = ANY($2::text[])`,
    [firm, insuranceNumbers],
  );
  const json = <T>(value: T | string | null): T | undefined => (typeof value === 'string' ? (JSON.parse(value) as T) : value ?? undefined);
  return new Map(rows.map(({ maxPercent, maxAmount, powers, charged, ...row }) => [row.insuranceNumber, {
    ...row, cap: { maxPercent, maxAmount }, powers: json(powers) ?? [], charged: json(charged) ?? [],
  }]));
}

export interface NewCommissionLine extends CommissionPeriod {
  readonly itemId: string;
  readonly firmOrganisationNumber: string;
  readonly insuranceNumber: string;
  readonly fee: CommissionFee;
  readonly powerOfAttorneyId: string;
}

/** Stores a file's accepted lines in one statement; gives each line's id by item id. */
export async function insertCommissionLines(sql: Sql, messageId: string, lines: readonly NewCommissionLine[]): Promise<Map<string, string>> {
  if (lines.length === 0) return new Map();
  const { rows } = await sql.query<{ id: string; item_id: string }>(
    `INSERT INTO commission_lines (message_id, item_id, firm_organisation_number, insurance_number, period_from, period_to, fee_kind, fee_value, power_of_attorney_id)
     SELECT $1, l.item_id, l.firm, l.insurance_number, l.period_from::date, l.period_to::date, l.fee_kind, l.fee_value::numeric, l.power_id::bigint
       FROM jsonb_to_recordset($2::jsonb) AS l(item_id text, firm text, insurance_number text, period_from text, period_to text, fee_kind text, fee_value text, power_id text)
     RETURNING id::text AS id, item_id`,
    [messageId, JSON.stringify(lines.map((line) => ({
      item_id: line.itemId, firm: line.firmOrganisationNumber, insurance_number: line.insuranceNumber, period_from: line.periodFrom, period_to: line.periodTo,
      fee_kind: line.fee.kind, fee_value: line.fee.value, power_id: line.powerOfAttorneyId,
    })))],
  );
  return new Map(rows.map((row) => [row.item_id, row.id]));
}

// ---- Debit runs --------------------------------------------------------------------

/** An accepted fee no debit run has taken yet, with the custody value a Percent fee is computed on. */
export interface PendingAdvisorFee extends CommissionPeriod {
  readonly lineId: string;
  readonly insuranceNumber: string;
  readonly fee: CommissionFee;
  /** The account's total value on the latest day on or before the period's end or the run date, whichever comes first. */
  readonly custodyValue: string | undefined;
}

/**
 * The accepted fees of the insurances whose period has begun by `lastDay` (the quarter's
 * last day) and that no run has taken; with `lock`, their rows stay locked to the run's
 * transaction so no other run takes them.
 */
export async function pendingAdvisorFees(
  sql: Sql, insuranceNumbers: readonly string[], lastDay: IsoDate, runDate: IsoDate, options: { lock: boolean },
): Promise<Map<string, PendingAdvisorFee[]>> {
  const { rows } = await sql.query<{ lineId: string; insuranceNumber: string; periodFrom: string; periodTo: string; kind: CommissionFee['kind']; value: string; custodyValue: string | null }>(
    `SELECT c.id::text AS "lineId", c.insurance_number AS "insuranceNumber", c.period_from::text AS "periodFrom", c.period_to::text AS "periodTo",
            c.fee_kind AS kind, c.fee_value::text AS value,
            (SELECT v.total_value::text FROM custody_valuations v JOIN insurances i ON i.custody_account = v.account_number
              WHERE i.insurance_number = c.insurance_number AND v.as_of <= least(c.period_to, $3::date) ORDER BY v.as_of DESC LIMIT 1) AS "custodyValue"
       FROM commission_lines c
      WHERE c.insurance_number = ANY($1::text[]) AND c.run_key IS NULL AND c.period_from <= $2
      ORDER BY c.insurance_number, c.period_from, c.id${options.lock ? ' FOR UPDATE OF c' : ''}`,
    [insuranceNumbers, lastDay, runDate],
  );
  const byInsurance = new Map<string, PendingAdvisorFee[]>();
  for (const { kind, value, custodyValue, ...row } of rows) {
    const fee: PendingAdvisorFee = { ...row, fee: { kind, value }, custodyValue: custodyValue ?? undefined };
    byInsurance.set(row.insuranceNumber, [...(byInsurance.get(row.insuranceNumber) ?? []), fee]);
  }
  return byInsurance;
}

/** Marks fees taken by a run, with the amount it debits and the account, in the run's transaction. */
export async function markAdvisorFeesOrdered(
  sql: Sql, runKey: string, custodianId: string, ordered: readonly { readonly lineId: string; readonly accountNumber: string; readonly amount: string }[],
): Promise<void> {
  if (ordered.length === 0) return;
  await sql.query(
    `UPDATE commission_lines c SET run_key = $1, custodian_id = $2, account_number = o.account_number, amount = o.amount::numeric
       FROM jsonb_to_recordset($3::jsonb) AS o(line_id text, account_number text, amount text)
      WHERE c.id = o.line_id::bigint AND c.run_key IS NULL`,
    [runKey, custodianId, JSON.stringify(ordered.map((line) => ({ line_id: line.lineId, account_number: line.accountNumber, amount: line.amount })))],
  );
}

// ---- Debited and paid ---------------------------------------------------------------

/**
 * Finds, for each fee a run ordered and no debit shows yet, the custodian's Fee
 * transaction on its account, traded on or after the run's date and by `through`, that
 * shows it: one of the fee's own amount not shown for another fee, or failing that one of
 * the account's whole debit in that run (every non-sell line), which the run's other fees
 * on the account may share. Records it; gives how many fees it found debited. Fee by fee,
 * oldest first, so two fees of the same amount never take the same transaction.
 */
export async function matchDebitedFees(sql: Sql, through: IsoDate): Promise<number> {
  const { rows: ordered } = await sql.query<{ id: string }>(
    `SELECT c.id::text AS id FROM commission_lines c WHERE c.run_key IS NOT NULL AND c.debited_on IS NULL ORDER BY c.id FOR UPDATE`,
  );
  let found = 0;
  for (const { id } of ordered) {
    const { rows } = await sql.query(
      `WITH line AS (
         SELECT c.id, c.account_number, c.amount, c.run_key, r.run_date,
                (SELECT sum(d.amount) FROM debit_lines d WHERE d.run_key = c.run_key AND d.custodian_id = c.custodian_id
                    AND d.account_number = c.account_number AND d.charge <> 'SellOrder') AS account_total
           FROM commission_lines c JOIN debit_runs r ON r.run_key = c.run_key AND r.custodian_id = c.custodian_id
          WHERE c.id = $2::bigint
       ), shown AS (
         SELECT coalesce(
                  (SELECT t.transaction_id || '|' || t.trade_date::text FROM custody_transactions t, line o
                    WHERE t.account_number = o.account_number AND t.transaction_type = 'Fee' AND -t.amount = o.amount
                      AND t.trade_date BETWEEN o.run_date AND $1
                      AND NOT EXISTS (SELECT 1 FROM commission_lines x WHERE x.account_number = t.account_number AND x.debit_transaction_id = t.transaction_id)
                    ORDER BY t.trade_date, t.transaction_id LIMIT 1),
                  (SELECT t.transaction_id || '|' || t.trade_date::text FROM custody_transactions t, line o
                    WHERE t.account_number = o.account_number AND t.transaction_type = 'Fee' AND -t.amount = o.account_total
                      AND t.trade_date BETWEEN o.run_date AND $1
                      AND NOT EXISTS (SELECT 1 FROM commission_lines x WHERE x.account_number = t.account_number AND x.debit_transaction_id = t.transaction_id
                                         AND x.run_key <> o.run_key)
                    ORDER BY t.trade_date, t.transaction_id LIMIT 1)) AS transaction
       )
       UPDATE commission_lines c SET debit_transaction_id = split_part(s.transaction, '|', 1), debited_on = split_part(s.transaction, '|', 2)::date
         FROM shown s WHERE c.id = $2::bigint AND s.transaction IS NOT NULL
       RETURNING c.id`,
      [through, id],
    );
    found += rows.length;
  }
  return found;
}

/** A debited fee not yet paid, as its statement shows it. */
export interface DebitedFeeRow {
  readonly lineId: string;
  readonly firmOrganisationNumber: string;
  readonly insuranceNumber: string;
  readonly messageId: string;
  readonly commissionFileId: string;
  readonly itemId: string;
  readonly periodFrom: IsoDate;
  readonly periodTo: IsoDate;
  readonly fee: CommissionFee;
  readonly amount: string;
  readonly debitedOn: IsoDate;
  readonly runKey: string;
}

/** The fees debited by `through` and not paid, locked to the caller's transaction, by firm and insurance. */
export async function debitedUnpaidFees(sql: Sql, through: IsoDate): Promise<DebitedFeeRow[]> {
  const { rows } = await sql.query<Omit<DebitedFeeRow, 'fee'> & { kind: CommissionFee['kind']; value: string }>(
    `SELECT c.id::text AS "lineId", c.firm_organisation_number AS "firmOrganisationNumber", c.insurance_number AS "insuranceNumber",
            c.message_id AS "messageId", coalesce(m.header_message_id, c.message_id) AS "commissionFileId", c.item_id AS "itemId",
            c.period_from::text AS "periodFrom", c.period_to::text AS "periodTo", c.fee_kind AS kind, c.fee_value::text AS value,
            c.amount::text AS amount, c.debited_on::text AS "debitedOn", c.run_key AS "runKey"
       FROM commission_lines c LEFT JOIN messages m ON m.id = c.message_id
      WHERE c.debited_on IS NOT NULL AND c.debited_on <= $1 AND c.statement_id IS NULL
      ORDER BY c.firm_organisation_number, c.insurance_number, c.period_from
      FOR UPDATE OF c`,
    [through],
  );
  return rows.map(({ kind, value, ...row }) => ({ ...row, fee: { kind, value } }));
}

export interface NewCommissionStatement {
  readonly statementId: string;
  readonly firmOrganisationNumber: string;
  readonly counterpartyId: string;
  readonly month: string;
  readonly total: string;
  readonly paymentOrderId: string;
  readonly endToEndId: string;
  readonly documentId: string;
  readonly createdAt: Date;
  readonly lineIds: readonly string[];
}

/** Stores a statement and marks its fees paid by it. */
export async function insertCommissionStatement(sql: Sql, statement: NewCommissionStatement): Promise<void> {
  await sql.query(
    `INSERT INTO commission_statements (statement_id, firm_organisation_number, counterparty_id, month, total, payment_order_id, end_to_end_id, document_id, created_at)
     VALUES ($1, $2, $3, $4, $5::numeric, $6, $7, $8, $9)`,
    [statement.statementId, statement.firmOrganisationNumber, statement.counterpartyId, statement.month, statement.total, statement.paymentOrderId,
      statement.endToEndId, statement.documentId, statement.createdAt],
  );
  await sql.query('UPDATE commission_lines SET statement_id = $1 WHERE id = ANY($2::bigint[]) AND statement_id IS NULL', [statement.statementId, statement.lineIds]);
}

// ---- Staff views ---------------------------------------------------------------------

/** One commission line as staff see it: where its fee stands. */
export interface CommissionLineView {
  readonly id: string;
  readonly messageId: string;
  readonly commissionFileId: string | null;
  readonly itemId: string;
  readonly firmOrganisationNumber: string;
  readonly insuranceNumber: string;
  readonly periodFrom: IsoDate;
  readonly periodTo: IsoDate;
  readonly feeKind: CommissionFee['kind'];
  readonly feeValue: string;
  readonly runKey: string | null;
  readonly amount: string | null;
  readonly debitedOn: IsoDate | null;
  readonly statementId: string | null;
}

/** The commission lines, newest first. */
export async function listCommissionLines(sql: Sql, limit: number): Promise<CommissionLineView[]> {
  const { rows } = await sql.query<CommissionLineView>(
    `SELECT c.id::text AS id, c.message_id AS "messageId", m.header_message_id AS "commissionFileId", c.item_id AS "itemId",
            c.firm_organisation_number AS "firmOrganisationNumber", c.insurance_number AS "insuranceNumber", c.period_from::text AS "periodFrom",
            c.period_to::text AS "periodTo", c.fee_kind AS "feeKind", c.fee_value::text AS "feeValue", c.run_key AS "runKey", c.amount::text AS amount,
            c.debited_on::text AS "debitedOn", c.statement_id AS "statementId"
       FROM commission_lines c LEFT JOIN messages m ON m.id = c.message_id
      ORDER BY c.id DESC LIMIT $1`,
    [limit],
  );
  return rows;
}

export interface CommissionStatementView {
  readonly statementId: string;
  readonly firmOrganisationNumber: string;
  readonly counterpartyId: string;
  readonly month: string;
  readonly total: string;
  readonly paymentOrderId: string;
  readonly fees: number;
  readonly createdAt: Date;
  readonly deliveredAt: Date | null;
}

/** The commission statements, newest first, with whether each was delivered. */
export async function listCommissionStatements(sql: Sql, limit: number): Promise<CommissionStatementView[]> {
  const { rows } = await sql.query<CommissionStatementView>(
    `SELECT s.statement_id AS "statementId", s.firm_organisation_number AS "firmOrganisationNumber", s.counterparty_id AS "counterpartyId", s.month,
            s.total::text AS total, s.payment_order_id AS "paymentOrderId",
            (SELECT count(*)::int FROM commission_lines c WHERE c.statement_id = s.statement_id) AS fees, s.created_at AS "createdAt", o.delivered_at AS "deliveredAt"
       FROM commission_statements s JOIN outgoing_documents o ON o.document_id = s.document_id
      ORDER BY s.month DESC, s.statement_id LIMIT $1`,
    [limit],
  );
  return rows;
}
