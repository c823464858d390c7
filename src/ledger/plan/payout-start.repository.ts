import type { IsoDate } from '../../core/calendar-date.ts';
import { payoutCanBegin } from '../../core/payout-start.ts';
import type { Sql } from '../database.ts';
import { accessFactsOf, customerAccessColumns, withoutAccessColumns, type AccessGate, type CustomerAccessRow } from '../advice/powers-of-attorney.repository.ts';

/**
 * What the ledger knows about an insurance's payout start (migration 0024): its
 * product's payout age and periods, the agreed start date, and whether it has ended or
 * is in payout already. Read by the daily payout-start check, by staff registering a
 * payout and by a payout request (with who owns and holds the insurance).
 */
export interface PayoutStartFacts {
  readonly insuranceNumber: string;
  readonly insuredPin: string;
  readonly payoutAge: number;
  readonly agreedFrom: IsoDate | null;
  /** The payout periods the product offers, in months. */
  readonly offeredMonths: readonly number[];
  readonly endDate: IsoDate | null;
  readonly inPayout: boolean;
}

/** The facts of one insurance, with who owns it, what kind it is and the custodian holding its custody account. */
export interface InsurancePayoutFacts extends PayoutStartFacts {
  readonly policyholder: string;
  readonly kind: 'P' | 'T' | 'K';
  readonly custodianId: string;
}

const FACTS = `
  SELECT i.insurance_number AS "insuranceNumber", i.insured_pin AS "insuredPin", p.payout_age AS "payoutAge",
         i.payout_from::text AS "agreedFrom", p.payout_months AS "offeredMonths", i.end_date::text AS "endDate",
         EXISTS (SELECT 1 FROM payouts o WHERE o.insurance_number = i.insurance_number) AS "inPayout"
    FROM insurances i JOIN products p ON p.code = i.product_code`;

/**
 * The facts of one insurance, when it exists; with `mayReach`, only when the caller may
 * reach it as the insured's (its access decided on the insured's facts, read in the same
 * statement: a payout request is the insured's).
 */
export async function findPayoutStartFacts(sql: Sql, insuranceNumber: string, mayReach?: AccessGate): Promise<InsurancePayoutFacts | undefined> {
  const { rows } = await sql.query<InsurancePayoutFacts & Partial<CustomerAccessRow>>(
    `SELECT i.insurance_number AS "insuranceNumber", i.insured_pin AS "insuredPin", p.payout_age AS "payoutAge",
            i.payout_from::text AS "agreedFrom", p.payout_months AS "offeredMonths", i.end_date::text AS "endDate",
            EXISTS (SELECT 1 FROM payouts o WHERE o.insurance_number = i.insurance_number) AS "inPayout",
            i.policyholder, p.kind, a.custodian_id AS "custodianId"${mayReach ? `, ${customerAccessColumns('i.insured_pin')}` : ''}
       FROM insurances i JOIN products p ON p.code = i.product_code JOIN custody_accounts a ON a.account_number = i.custody_account
      WHERE i.insurance_number = $1`,
    [insuranceNumber],
  );
  const row = rows[0];
  if (!row || (mayReach && !mayReach(accessFactsOf(row as CustomerAccessRow), row.custodianId))) return undefined;
  return withoutAccessColumns(row);
}

/**
 * Whether a month's payout run has been made for a custodian: its DebitAccounts run is
 * recorded (`debit_runs`), or the calendar job `calendarJob` has run the month (it makes
 * no run of a custodian with nothing to pay, but the month's orders have gone out).
 */
export async function payoutRunMade(sql: Sql, month: string, custodianId: string, calendarJob: string): Promise<boolean> {
  const { rows } = await sql.query<{ made: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM debit_runs WHERE run_key = $1 AND custodian_id = $2 AND kind = 'payout')
         OR EXISTS (SELECT 1 FROM calendar_runs WHERE job = $3 AND period = $1) AS made`,
    [month, custodianId, calendarJob],
  );
  return rows[0]?.made === true;
}

/**
 * Records the notice that payout can begin for every insurance in force, not in payout
 * and not noticed before, whose payout can begin on or before `today`. Gives the
 * insurances noticed. A day missed is caught up by the next: the test is "on or before".
 */
export async function recordPayoutCanBegin(sql: Sql, today: IsoDate, now: Date): Promise<{ insuranceNumber: string; canBegin: IsoDate }[]> {
  // Narrowed in SQL by birth year (or agreed date), decided exactly by payoutCanBegin.
  const { rows } = await sql.query<PayoutStartFacts>(
    `${FACTS}
      WHERE i.end_date IS NULL AND i.start_date <= $1
        AND NOT EXISTS (SELECT 1 FROM payouts o WHERE o.insurance_number = i.insurance_number)
        AND NOT EXISTS (SELECT 1 FROM payout_notices n WHERE n.insurance_number = i.insurance_number)
        AND CASE WHEN i.payout_from IS NOT NULL THEN i.payout_from <= $1
                 ELSE substr(i.insured_pin, 1, 4)::int + p.payout_age <= $2 END
      ORDER BY i.insurance_number`,
    [today, Number(today.slice(0, 4))],
  );
  const reached = rows
    .map((row) => ({ insuranceNumber: row.insuranceNumber, canBegin: payoutCanBegin(row) }))
    .filter((row) => row.canBegin <= today);
  for (const { insuranceNumber, canBegin } of reached) {
    await sql.query(
      `INSERT INTO payout_notices (insurance_number, can_begin, recorded_at) VALUES ($1, $2, $3) ON CONFLICT (insurance_number) DO NOTHING`,
      [insuranceNumber, canBegin, now],
    );
  }
  return reached;
}
