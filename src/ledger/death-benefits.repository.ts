import type { IsoDate } from '../core/calendar-date.ts';
import type { ProductKind } from '../core/charges/charges.ts';
import { decideDeathBenefit, insurerShare, type DeathBenefitDecision } from '../core/death-benefit.ts';
import type { Sql } from './database.ts';

/**
 * Death benefits of repayment protection (death_benefits, migration 0029): recorded in
 * the transaction of a `death` end staff record, ordered once by the next payout run
 * (sell everything, one final payout) in that run's transaction. Every write goes
 * through the caller's transaction.
 */

export interface DeathBenefit {
  readonly insuranceNumber: string;
  readonly deathDate: IsoDate;
  /** What the custodian pays out: the whole account, at the value the benefit is paid on. Null until a value is reported. */
  readonly custodyValue: string | null;
  readonly valueAsOf: IsoDate | null;
  /** The 1 % the insurer pays from its own funds. Null until a value is reported. */
  readonly insurerAmount: string | null;
  readonly recordedBy: string;
  readonly recordedAt: Date;
  /** The payout run that ordered it, once ordered. */
  readonly order: { readonly runKey: string; readonly sellBy: IsoDate; readonly payBy: IsoDate } | null;
}

interface BenefitRow extends Omit<DeathBenefit, 'order'> {
  runKey: string | null;
  sellBy: IsoDate | null;
  payBy: IsoDate | null;
}

const COLUMNS = `insurance_number AS "insuranceNumber", death_date::text AS "deathDate", custody_value::text AS "custodyValue",
  value_as_of::text AS "valueAsOf", insurer_amount::text AS "insurerAmount", recorded_by AS "recordedBy", recorded_at AS "recordedAt",
  run_key AS "runKey", sell_by::text AS "sellBy", pay_by::text AS "payBy"`;

function benefitOf({ runKey, sellBy, payBy, ...row }: BenefitRow): DeathBenefit {
  return { ...row, order: runKey !== null && sellBy !== null && payBy !== null ? { runKey, sellBy, payBy } : null };
}

/**
 * Records the death benefit of an insurance whose insured died on `deathDate`, when one
 * is due (decideDeathBenefit: a K insurance with repayment protection from on or before
 * that day and no payout registered); valued at the account's latest value on or before
 * `today`. Gives the benefit, or why there is none.
 */
export async function recordDeathBenefitIfDue(
  sql: Sql, input: { insuranceNumber: string; deathDate: IsoDate; recordedBy: string; today: IsoDate }, now: Date,
): Promise<{ benefit: DeathBenefit } | { none: Exclude<DeathBenefitDecision, 'due'> }> {
  const { rows } = await sql.query<{ kind: ProductKind; repaymentProtection: boolean; inPayout: boolean; value: string | null; asOf: IsoDate | null }>(
    `SELECT p.kind,
            EXISTS (SELECT 1 FROM insurance_coverages c WHERE c.insurance_number = i.insurance_number
                       AND c.coverage_type = 'repaymentProtection' AND c.from_date <= $2) AS "repaymentProtection",
            EXISTS (SELECT 1 FROM payouts o WHERE o.insurance_number = i.insurance_number) AS "inPayout",
            v.total_value::text AS value, v.as_of::text AS "asOf"
       FROM insurances i JOIN products p ON p.code = i.product_code
       LEFT JOIN LATERAL (SELECT total_value, as_of FROM custody_valuations WHERE account_number = i.custody_account AND as_of <= $3
                           ORDER BY as_of DESC LIMIT 1) v ON true
      WHERE i.insurance_number = $1`,
    [input.insuranceNumber, input.deathDate, input.today],
  );
  const facts = rows[0];
  if (!facts) throw new Error(`no insurance ${input.insuranceNumber}`);
  const decision = decideDeathBenefit(facts);
  if (decision !== 'due') return { none: decision };
  const { rows: inserted } = await sql.query<BenefitRow>(
    `INSERT INTO death_benefits (insurance_number, death_date, custody_value, value_as_of, insurer_amount, recorded_by, recorded_at)
     VALUES ($1, $2, $3::numeric, $4, $5::numeric, $6, $7) RETURNING ${COLUMNS}`,
    [input.insuranceNumber, input.deathDate, facts.value, facts.asOf, facts.value === null ? null : insurerShare(facts.value), input.recordedBy, now],
  );
  return { benefit: benefitOf(inserted[0]!) };
}

/** An insurance's death benefit, when it has one. */
export async function findDeathBenefit(sql: Sql, insuranceNumber: string): Promise<DeathBenefit | undefined> {
  const { rows } = await sql.query<BenefitRow>(`SELECT ${COLUMNS} FROM death_benefits WHERE insurance_number = $1`, [insuranceNumber]);
  return rows[0] ? benefitOf(rows[0]) : undefined;
}

/** A death benefit the payout run is to order: its account and the value it pays out. */
export interface DueDeathBenefit {
  readonly insuranceNumber: string;
  readonly accountNumber: string;
  readonly custodianId: string;
  readonly custodyValue: string;
  readonly valueAsOf: IsoDate;
  /** The beneficiary's bank account the custodian pays to (digits only). */
  readonly beneficiaryAccount: string;
}

/**
 * The death benefits not ordered yet at custodians not in `excluded`, recorded on or
 * before `sellBy` (a run whose sell-by day has passed orders none), valued as recorded
 * or else at the account's latest value on or before `asOf`. One whose account holds
 * nothing, or has no value yet, is left out: there is nothing to sell; so is one whose
 * beneficiary's account is not recorded yet: there is nowhere to pay.
 */
export async function dueDeathBenefits(sql: Sql, asOf: IsoDate, sellBy: IsoDate, excluded: readonly string[]): Promise<DueDeathBenefit[]> {
  const { rows } = await sql.query<DueDeathBenefit>(
    `SELECT * FROM (
       SELECT d.insurance_number AS "insuranceNumber", i.custody_account AS "accountNumber", a.custodian_id AS "custodianId",
              coalesce(d.custody_value, v.total_value)::text AS "custodyValue", coalesce(d.value_as_of, v.as_of)::text AS "valueAsOf",
              d.beneficiary_account AS "beneficiaryAccount"
         FROM death_benefits d
         JOIN insurances i ON i.insurance_number = d.insurance_number
         JOIN custody_accounts a ON a.account_number = i.custody_account
         LEFT JOIN LATERAL (SELECT total_value, as_of FROM custody_valuations WHERE account_number = i.custody_account AND as_of <= $1
                             ORDER BY as_of DESC LIMIT 1) v ON true
        WHERE d.run_key IS NULL AND d.beneficiary_account IS NOT NULL AND (d.recorded_at AT TIME ZONE 'Europe/Stockholm')::date <= $2 AND NOT (a.custodian_id = ANY($3::text[]))
     ) due
     WHERE "custodyValue"::numeric > 0
     ORDER BY "custodianId", "accountNumber"`,
    [asOf, sellBy, excluded],
  );
  return rows;
}

/** Records that a run ordered the benefits, with the value each was paid on (set now when it was not known at the death). */
export async function markDeathBenefitsOrdered(
  sql: Sql, order: { runKey: string; custodianId: string; sellBy: IsoDate; payBy: IsoDate }, benefits: readonly DueDeathBenefit[],
): Promise<void> {
  for (const benefit of benefits) {
    await sql.query(
      `UPDATE death_benefits SET run_key = $2, custodian_id = $3, sell_by = $4, pay_by = $5,
              custody_value = $6::numeric, value_as_of = $7, insurer_amount = $8::numeric
        WHERE insurance_number = $1 AND run_key IS NULL`,
      [benefit.insuranceNumber, order.runKey, order.custodianId, order.sellBy, order.payBy, benefit.custodyValue, benefit.valueAsOf, insurerShare(benefit.custodyValue)],
    );
  }
}
