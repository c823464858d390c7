import { stockholmDate, type IsoDate } from '../../core/calendar-date.ts';
import type { Sql } from '../database.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import { recordBeneficiary, recordDeathBenefitIfDue, type DeathBenefit } from './death-benefits.repository.ts';

/**
 * The end of an insurance (migration 0019): when and why it stopped being in force,
 * and who recorded it. Written by the payout run on the final installment and by staff
 * (a death, a surrender, a move to another insurer); read by the debit run, which
 * charges to the end date and nothing after it.
 *
 * Invariant: an end is recorded once, on or after the insurance's start; a second end
 * is refused, never written over the first. A death staff record pays the death benefit
 * of repayment protection when one is due: it is recorded in the end's transaction
 * (recordStaffEnd), so there is never one without the other.
 */

export const INSURANCE_END_CAUSES = ['paid-out', 'transferred-out', 'surrendered', 'death'] as const;
export type InsuranceEndCause = (typeof INSURANCE_END_CAUSES)[number];

export interface InsuranceEnd {
  readonly insuranceNumber: string;
  /** The last day in force, included. */
  readonly endDate: IsoDate;
  readonly cause: InsuranceEndCause;
  /** `payout-run`, `staff:<user>` (staff API), or `cli:<account>` (the CLI in-process). */
  readonly endedBy: string;
  readonly recordedAt: Date;
}

export type EndOutcome<Ended extends InsuranceEnd = InsuranceEnd> =
  | { readonly ended: Ended }
  | { readonly unknown: true }
  | { readonly alreadyEnded: InsuranceEnd }
  | { readonly beforeStart: IsoDate };

interface EndRow {
  insuranceNumber: string;
  startDate: IsoDate;
  endDate: IsoDate | null;
  cause: InsuranceEndCause | null;
  endedBy: string | null;
  recordedAt: Date | null;
}

const COLUMNS = `insurance_number AS "insuranceNumber", start_date::text AS "startDate", end_date::text AS "endDate",
  end_cause AS cause, ended_by AS "endedBy", end_recorded_at AS "recordedAt"`;

function endOf(row: EndRow): InsuranceEnd | undefined {
  if (row.endDate === null || row.cause === null || row.endedBy === null || row.recordedAt === null) return undefined;
  return { insuranceNumber: row.insuranceNumber, endDate: row.endDate, cause: row.cause, endedBy: row.endedBy, recordedAt: row.recordedAt };
}

/** Records an insurance's end unless it already has one; says why not when it does not. */
export async function endInsurance(
  sql: Sql, input: { insuranceNumber: string; endDate: IsoDate; cause: InsuranceEndCause; endedBy: string }, now: Date,
): Promise<EndOutcome> {
  const { rows } = await sql.query<EndRow>(
    `UPDATE insurances SET end_date = $2, end_cause = $3, ended_by = $4, end_recorded_at = $5
      WHERE insurance_number = $1 AND end_date IS NULL AND start_date <= $2
     RETURNING ${COLUMNS}`,
    [input.insuranceNumber, input.endDate, input.cause, input.endedBy, now],
  );
  const ended = rows[0] ? endOf(rows[0]) : undefined;
  if (ended) return { ended };
  const { rows: current } = await sql.query<EndRow>(`SELECT ${COLUMNS} FROM insurances WHERE insurance_number = $1`, [input.insuranceNumber]);
  const row = current[0];
  if (!row) return { unknown: true };
  const existing = endOf(row);
  return existing ? { alreadyEnded: existing } : { beforeStart: row.startDate };
}

/** An insurance's end, when it has one. */
export async function findInsuranceEnd(sql: Sql, insuranceNumber: string): Promise<InsuranceEnd | undefined> {
  const { rows } = await sql.query<EndRow>(`SELECT ${COLUMNS} FROM insurances WHERE insurance_number = $1`, [insuranceNumber]);
  return rows[0] ? endOf(rows[0]) : undefined;
}

/** An end staff recorded: with the death benefit it pays, when it is a death that pays one. */
export interface StaffEnd extends InsuranceEnd {
  readonly deathBenefit?: DeathBenefit;
}

/**
 * Records an end staff report, and for a `death` the death benefit when one is due,
 * with its beneficiary when given; run it in one transaction. A beneficiary given for a
 * death that pays no benefit is refused (REQUEST_INVALID), and the end with it.
 */
export async function recordStaffEnd(
  tx: Sql,
  input: { insuranceNumber: string; endDate: IsoDate; cause: InsuranceEndCause; endedBy: string; beneficiary?: { name: string; account: string } | undefined },
  now: Date,
): Promise<EndOutcome<StaffEnd>> {
  const outcome = await endInsurance(tx, input, now);
  if (!('ended' in outcome) || input.cause !== 'death') return outcome;
  const death = await recordDeathBenefitIfDue(tx, { insuranceNumber: input.insuranceNumber, deathDate: input.endDate, recordedBy: input.endedBy, today: stockholmDate(now) }, now);
  if (!('benefit' in death)) {
    if (input.beneficiary) throw new GatewayError('REQUEST_INVALID', `beneficiary: ${input.insuranceNumber} pays no death benefit (${death.none}), so there is no beneficiary to record.`);
    return outcome;
  }
  if (!input.beneficiary) return { ended: { ...outcome.ended, deathBenefit: death.benefit } };
  const recorded = await recordBeneficiary(tx, input.insuranceNumber, input.beneficiary, input.endedBy, now);
  if (!('recorded' in recorded)) throw new Error(`the death benefit of ${input.insuranceNumber} recorded in this transaction cannot take its beneficiary`);
  return { ended: { ...outcome.ended, deathBenefit: recorded.recorded } };
}
