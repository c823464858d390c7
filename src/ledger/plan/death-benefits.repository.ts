import type { IsoDate } from '../../core/calendar-date.ts';
import type { ProductKind } from '../../core/charges/charges.ts';
import { decideDeathBenefit, insurerShare, type DeathBenefitDecision } from '../../core/death-benefit.ts';
import type { Sql } from '../database.ts';

/**
 * Death benefits of repayment protection (death_benefits, migrations 0029, 0033, 0037):
 * recorded in the transaction of a `death` end staff record; paid to a beneficiary staff
 * record (with the end or afterwards, until ordered); ordered once by the next payout
 * run after that (sell everything, one final payout to the beneficiary's account) in
 * that run's transaction, which also puts the insurer's 1 % in a payment order. Every
 * write goes through the caller's transaction.
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
  /**
   * Who it is paid to: the beneficiary's name and bank account (clearing number and
   * account number, digits only), and who recorded them when. Null until recorded: the
   * benefit waits, no run orders it.
   */
  readonly beneficiary: { readonly name: string; readonly account: string; readonly recordedBy: string; readonly recordedAt: Date } | null;
  /** The payment order (pain.001) that pays the insurer's 1 %, once made. */
  readonly paymentOrderId: string | null;
}

interface BenefitRow extends Omit<DeathBenefit, 'order' | 'beneficiary'> {
  runKey: string | null;
  sellBy: IsoDate | null;
  payBy: IsoDate | null;
  beneficiaryName: string | null;
  beneficiaryAccount: string | null;
  beneficiaryRecordedBy: string | null;
  beneficiaryRecordedAt: Date | null;
}

const COLUMNS = `insurance_number AS "insuranceNumber", death_date::text AS "deathDate", custody_value::text AS "custodyValue",
  value_as_of::text AS "valueAsOf", insurer_amount::text AS "insurerAmount", recorded_by AS "recordedBy", recorded_at AS "recordedAt",
  run_key AS "runKey", sell_by::text AS "sellBy", pay_by::text AS "payBy",
  beneficiary_name AS "beneficiaryName", beneficiary_account AS "beneficiaryAccount",
  beneficiary_recorded_by AS "beneficiaryRecordedBy", beneficiary_recorded_at AS "beneficiaryRecordedAt", payment_order_id AS "paymentOrderId"`;

function benefitOf({ runKey, sellBy, payBy, beneficiaryName, beneficiaryAccount, beneficiaryRecordedBy, beneficiaryRecordedAt, ...row }: BenefitRow): DeathBenefit {
  return {
    ...row,
    order: runKey !== null && sellBy !== null && payBy !== null ? { runKey, sellBy, payBy } : null,
    beneficiary: beneficiaryName !== null && beneficiaryAccount !== null && beneficiaryRecordedBy !== null && beneficiaryRecordedAt !== null
      ? { name: beneficiaryName, account: beneficiaryAccount, recordedBy: beneficiaryRecordedBy, recordedAt: beneficiaryRecordedAt }
      : null,
  };
}

/**
 * Records the death benefit of an insurance whose insured died on `deathDate`, when one
 * is due (decideDeathBenefit: a K insurance with repayment protection from on or before
 * that day and whose payout had not begun: none registered, or one whose first month
 * starts after that day — the day the protection's premium stops, payoutBeginsOn in
 * src/core/debit-run.ts); valued at the account's latest value on or before
 * `today`. Gives the benefit, or why there is none.
 */
export async function recordDeathBenefitIfDue(
  sql: Sql, input: { insuranceNumber: string; deathDate: IsoDate; recordedBy: string; today: IsoDate }, now: Date,
): Promise<{ benefit: DeathBenefit } | { none: Exclude<DeathBenefitDecision, 'due'> }> {
  const { rows } = await sql.query<{ kind: ProductKind; repaymentProtection: boolean; inPayout: boolean; value: string | null; asOf: IsoDate | null }>(
    `SELECT p.kind,
            EXISTS (SELECT 1 FROM insurance_coverages c WHERE c.insurance_number = i.insurance_number
                       AND c.coverage_type = 'repaymentProtection' AND c.from_date <= $2) AS "repaymentProtection",
            EXISTS (SELECT 1 FROM payouts o WHERE o.insurance_number = i.insurance_number AND (o.start_month || '-01')::date <= $2) AS "inPayout",
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

export type BeneficiaryOutcome = { readonly recorded: DeathBenefit } | { readonly noBenefit: true } | { readonly ordered: DeathBenefit };

/**
 * Records who a death benefit is paid to, under `by` at `now`, and keeps the recording in
 * death_benefit_beneficiaries; a later recording replaces it until a payout run has
 * ordered the benefit, after which it is refused (the custodian has been told where to
 * pay). Run it in a transaction: the benefit's row is locked while it is decided.
 */
export async function recordBeneficiary(
  tx: Sql, insuranceNumber: string, beneficiary: { name: string; account: string }, by: string, now: Date,
): Promise<BeneficiaryOutcome> {
  const { rows: current } = await tx.query<BenefitRow>(`SELECT ${COLUMNS} FROM death_benefits WHERE insurance_number = $1 FOR UPDATE`, [insuranceNumber]);
  if (!current[0]) return { noBenefit: true };
  if (current[0].runKey !== null) return { ordered: benefitOf(current[0]) };
  const { rows } = await tx.query<BenefitRow>(
    `UPDATE death_benefits SET beneficiary_name = $2, beneficiary_account = $3, beneficiary_recorded_by = $4, beneficiary_recorded_at = $5
      WHERE insurance_number = $1 AND run_key IS NULL RETURNING ${COLUMNS}`,
    [insuranceNumber, beneficiary.name, beneficiary.account, by, now],
  );
  await tx.query(
    `INSERT INTO death_benefit_beneficiaries (insurance_number, name, account, recorded_by, recorded_at) VALUES ($1, $2, $3, $4, $5)`,
    [insuranceNumber, beneficiary.name, beneficiary.account, by, now],
  );
  return { recorded: benefitOf(rows[0]!) };
}

/**
 * Where a death benefit stands: waiting for its beneficiary's account (no run orders it),
 * waiting for the next payout run, ordered at the custodian with the insurer's 1 % not
 * yet in a payment order, or paid by both.
 */
export const DEATH_BENEFIT_STATUSES = ['awaiting-beneficiary', 'awaiting-run', 'awaiting-payment-order', 'paid'] as const;
export type DeathBenefitStatus = (typeof DEATH_BENEFIT_STATUSES)[number];

export function statusOf(benefit: DeathBenefit): DeathBenefitStatus {
  if (benefit.beneficiary === null && benefit.order === null) return 'awaiting-beneficiary';
  if (benefit.order === null) return 'awaiting-run';
  return benefit.paymentOrderId === null ? 'awaiting-payment-order' : 'paid';
}

/** Death benefits, newest death recorded first, each with its status; `waiting`: all but the paid ones. */
export async function listDeathBenefits(sql: Sql, options: { waiting?: boolean; limit: number }): Promise<(DeathBenefit & { status: DeathBenefitStatus })[]> {
  const { rows } = await sql.query<BenefitRow>(
    `SELECT ${COLUMNS} FROM death_benefits ${options.waiting ? 'WHERE payment_order_id IS NULL' : ''} ORDER BY recorded_at DESC, insurance_number LIMIT $1`,
    [options.limit],
  );
  return rows.map((row) => {
    const benefit = benefitOf(row);
    return { ...benefit, status: statusOf(benefit) };
  });
}

/** The insurer's 1 % of a benefit a run has ordered, to be paid to its beneficiary by a payment order. */
export interface UnpaidInsurerShare {
  readonly insuranceNumber: string;
  readonly insurerAmount: string;
  readonly custodyValue: string;
  readonly beneficiaryName: string;
  readonly beneficiaryAccount: string;
  readonly payBy: IsoDate;
}

/**
 * The ordered benefits whose 1 % no payment order pays yet (something to pay, a
 * beneficiary to pay it to), locked until the caller's transaction ends so that two
 * runs at once never put one in two files.
 */
export async function unpaidInsurerShares(sql: Sql): Promise<UnpaidInsurerShare[]> {
  const { rows } = await sql.query<UnpaidInsurerShare>(
    `SELECT insurance_number AS "insuranceNumber", insurer_amount::text AS "insurerAmount", custody_value::text AS "custodyValue",
            beneficiary_name AS "beneficiaryName", beneficiary_account AS "beneficiaryAccount", pay_by::text AS "payBy"
       FROM death_benefits
      WHERE run_key IS NOT NULL AND payment_order_id IS NULL AND beneficiary_account IS NOT NULL AND insurer_amount > 0
      ORDER BY insurance_number
        FOR UPDATE`,
  );
  return rows;
}

/** Records that a payment order pays these benefits' 1 %, each under its end-to-end id; once only. */
export async function markInsurerSharesPaid(sql: Sql, paymentOrderId: string, paid: readonly { insuranceNumber: string; endToEndId: string }[]): Promise<void> {
  for (const { insuranceNumber, endToEndId } of paid) {
    const { rows } = await sql.query(
      `UPDATE death_benefits SET payment_order_id = $2, end_to_end_id = $3 WHERE insurance_number = $1 AND payment_order_id IS NULL RETURNING 1`,
      [insuranceNumber, paymentOrderId, endToEndId],
    );
    if (rows.length !== 1) throw new Error(`the 1 % of ${insuranceNumber}'s death benefit is already in a payment order`);
  }
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
