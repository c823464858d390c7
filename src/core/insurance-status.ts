import type { IsoDate } from './calendar-date.ts';

/**
 * Where an insurance stands on a day, in one word for staff: what the staff view of
 * an insurance (`depot-gateway insurance`, GET /api/insurances/:number, the console's
 * insurance page) leads with. Derived from the ledger's dated facts, never stored:
 *
 * - `ended`: its end is recorded (insurances.end_date: moved to another insurer,
 *   surrendered, the insured's death, or paid out by the payout run) — final, whatever
 *   the day, as an end is recorded once and never undone;
 * - `in payout`: the insured started the payout (a `payouts` row), not yet paid out;
 * - `awaiting money`: registered from another insurer's transfer leaflet, its money not yet
 *   arrived (transfer_leaflets_in.money_received_on);
 * - `paid-up`: paid-up (fribrev) on or before the day: no more premiums, capital invested;
 * - `not yet in force`: it starts after the day;
 * - `in force`: otherwise.
 */
export const INSURANCE_STATUSES = ['in force', 'not yet in force', 'paid-up', 'in payout', 'awaiting money', 'ended'] as const;
export type InsuranceStatus = (typeof INSURANCE_STATUSES)[number];

export interface InsuranceStatusFacts {
  readonly startDate: IsoDate;
  readonly endDate: IsoDate | null;
  readonly paidUpFrom: IsoDate | null;
  readonly inPayout: boolean;
  /** A transfer in from another insurer whose money has not arrived. */
  readonly awaitingTransferMoney?: boolean;
}

export function insuranceStatus(facts: InsuranceStatusFacts, today: IsoDate): InsuranceStatus {
  if (facts.endDate !== null) return 'ended';
  if (facts.inPayout) return 'in payout';
  if (facts.awaitingTransferMoney) return 'awaiting money';
  if (facts.paidUpFrom !== null && facts.paidUpFrom <= today) return 'paid-up';
  if (facts.startDate > today) return 'not yet in force';
  return 'in force';
}
