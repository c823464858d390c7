import type { IsoDate } from '../core/calendar-date.ts';
import { payoutCanBegin } from '../core/payout-start.ts';
import type { Sql } from './database.ts';

/**
 * What the ledger knows about an insurance's payout start (migration 0024): its
 * product's payout age and periods, the agreed start date, and whether it has ended or
 * is in payout already. Read by the daily payout-start check and by staff registering a
 * payout.
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

const FACTS = `
  SELECT i.insurance_number AS "insuranceNumber", i.insured_pin AS "insuredPin", p.payout_age AS "payoutAge",
         i.payout_from::text AS "agreedFrom", p.payout_months AS "offeredMonths", i.end_date::text AS "endDate",
         EXISTS (SELECT 1 FROM payouts o WHERE o.insurance_number = i.insurance_number) AS "inPayout"
    FROM insurances i JOIN products p ON p.code = i.product_code`;

/** The facts of one insurance, when it exists. */
export async function findPayoutStartFacts(sql: Sql, insuranceNumber: string): Promise<PayoutStartFacts | undefined> {
  const { rows } = await sql.query<PayoutStartFacts>(`${FACTS} WHERE i.insurance_number = $1`, [insuranceNumber]);
  return rows[0];
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
