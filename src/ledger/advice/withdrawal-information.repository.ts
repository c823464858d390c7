import type { Sql } from '../database.ts';
import { accessFactsOf, customerAccessColumns, type AccessGate, type CustomerAccessRow } from './powers-of-attorney.repository.ts';
import type { IsoDate } from '../../core/calendar-date.ts';
import type { WithdrawalFacts } from '../../core/withdrawal-information.rules.ts';

/**
 * The ledger facts withdrawalBounds needs for insurances, in one query: the product's
 * tax category, whether the insurance has ended or is in payout, its latest custody
 * value on or before today, its charges in force, the last day the debit runs charged,
 * the opening value while this year's tax on it has not been debited, the deposits
 * since, and withdrawals requested and not yet paid out (every request not rejected
 * until the custodian reports its Withdrawal or Payout: withdrawal-requests.repository.ts).
 */
export interface InsuranceWithdrawalFacts extends WithdrawalFacts {
  readonly insuranceNumber: string;
  readonly policyholder: string;
  readonly productId: string;
  readonly custodianId: string;
  readonly custodyAccount: string;
}

interface Row {
  insuranceNumber: string; policyholder: string; productId: string; kind: 'P' | 'T' | 'K'; startDate: string; ended: boolean; inPayout: boolean;
  custodianId: string; custodyAccount: string; valueAsOf: string | null; valueTotal: string | null; fixedCharge: string | null; capitalPercent: string | null;
  chargedThrough: string | null; openingValue: string | null; openingTaxed: boolean; deposits: { date: string; amount: string }[] | null;
  requested: string;
}

/**
 * Facts of the insurances chosen by policyholder or by number, as of `today`; with
 * `mayReach`, only those the caller may reach (its access decided on facts read in the
 * same statement).
 */
export async function withdrawalFactsOf(
  sql: Sql, which: { policyholders: readonly string[] } | { insuranceNumber: string }, today: IsoDate, mayReach?: AccessGate,
): Promise<InsuranceWithdrawalFacts[]> {
  const yearStart = `${today.slice(0, 4)}-01-01`;
  const { rows } = await sql.query<Row & Partial<CustomerAccessRow>>(
    `SELECT i.insurance_number AS "insuranceNumber", i.policyholder, i.product_code AS "productId", p.kind, i.start_date::text AS "startDate",
            i.end_date IS NOT NULL AND i.end_date < $2 AS ended,
            EXISTS (SELECT 1 FROM payouts po WHERE po.insurance_number = i.insurance_number AND po.status <> 'completed') AS "inPayout",
            a.custodian_id AS "custodianId", i.custody_account AS "custodyAccount",
            v.as_of::text AS "valueAsOf", v.total_value::text AS "valueTotal",
            (SELECT f.value::text FROM insurance_fees f WHERE f.insurance_number = i.insurance_number AND f.fee_type = 'FixedCharge' AND f.effective_date <= $2 ORDER BY f.effective_date DESC, f.id DESC LIMIT 1) AS "fixedCharge",
            (SELECT f.value::text FROM insurance_fees f WHERE f.insurance_number = i.insurance_number AND f.fee_type = 'CapitalCharge' AND f.effective_date <= $2 ORDER BY f.effective_date DESC, f.id DESC LIMIT 1) AS "capitalPercent",
            (SELECT max(l.period_to)::text FROM debit_lines l WHERE l.insurance_number = i.insurance_number AND l.charge IN ('FixedCharge', 'CapitalCharge')) AS "chargedThrough",
            (SELECT o.total_value::text FROM custody_valuations o WHERE o.account_number = i.custody_account AND o.as_of < $3::date ORDER BY o.as_of DESC LIMIT 1) AS "openingValue",
            EXISTS (SELECT 1 FROM debit_lines l WHERE l.insurance_number = i.insurance_number AND l.charge = 'YieldTax' AND l.basis = 'OpeningValue' AND l.period_from = $3::date) AS "openingTaxed",
            (SELECT json_agg(json_build_object('date', t.trade_date::text, 'amount', t.amount::text) ORDER BY t.trade_date)
               FROM custody_transactions t
              WHERE t.account_number = i.custody_account AND t.transaction_type = 'Deposit' AND t.trade_date <= $2
                AND t.trade_date > COALESCE((SELECT max(l.period_to) FROM debit_lines l WHERE l.insurance_number = i.insurance_number AND l.charge = 'YieldTax' AND l.basis = 'Deposits'), i.start_date - 1)) AS deposits,
            (SELECT COALESCE(sum(r.amount), 0)::text FROM withdrawal_requests r
              WHERE r.insurance_number = i.insurance_number AND r.status <> 'rejected'
                AND NOT EXISTS (SELECT 1 FROM custody_transactions t WHERE r.ordered_on IS NOT NULL AND t.account_number = i.custody_account
                                   AND t.transaction_type IN ('Withdrawal', 'Payout') AND abs(t.amount) = r.amount AND t.trade_date >= r.ordered_on)) AS requested
            ${mayReach ? `, ${customerAccessColumns('i.policyholder')}` : ''}
       FROM insurances i
       JOIN products p ON p.code = i.product_code
       JOIN custody_accounts a ON a.account_number = i.custody_account
       LEFT JOIN LATERAL (SELECT c.as_of, c.total_value FROM custody_valuations c WHERE c.account_number = i.custody_account AND c.as_of <= $2 ORDER BY c.as_of DESC LIMIT 1) v ON true
      WHERE ${'insuranceNumber' in which ? 'i.insurance_number = $1' : 'i.policyholder = ANY($1::text[])'}
      ORDER BY i.policyholder, i.insurance_number`,
    ['insuranceNumber' in which ? which.insuranceNumber : which.policyholders, today, yearStart],
  );
  const reachable = mayReach ? rows.filter((row) => mayReach(accessFactsOf(row as CustomerAccessRow), row.custodianId)) : rows;
  return reachable.map((row) => ({
    insuranceNumber: row.insuranceNumber, policyholder: row.policyholder, productId: row.productId, custodianId: row.custodianId, custodyAccount: row.custodyAccount,
    kind: row.kind, startDate: row.startDate, ended: row.ended, inPayout: row.inPayout,
    value: row.valueAsOf && row.valueTotal ? { asOf: row.valueAsOf, total: row.valueTotal } : null,
    annualFixedCharge: row.fixedCharge ?? '360', annualCapitalPercent: row.capitalPercent ?? '0',
    chargedThrough: row.chargedThrough,
    untaxedOpeningValue: !row.openingTaxed && row.startDate < yearStart ? row.openingValue : null,
    deposits: row.deposits ?? [], requested: row.requested,
  }));
}
