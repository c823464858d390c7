import type { IsoDate } from './calendar-date.ts';
import type { InsuranceStatus } from './insurance-status.ts';

/**
 * A customer's engagement with the insurer, as a direct query answers it (JSON on
 * GET /DirectQuery/{customerId}, the EngagementResponse XML document): every insurance
 * the customer holds or is insured by, as the ledger knows it on the day asked. The
 * S4I MIS standard names an engagement's content; its field list is not public, so the
 * names here are depot-gateway's own (docs/direct-query.md says which).
 *
 * Amounts are decimal strings in SEK with two decimals, as the ledger keeps them.
 */
export interface Engagement {
  readonly customerId: string;
  /** The day (Stockholm) the engagement is read on. */
  readonly asOf: IsoDate;
  readonly insurances: readonly EngagementInsurance[];
}

export const ENGAGEMENT_ROLES = ['policyholder', 'insured'] as const;
export type EngagementRole = (typeof ENGAGEMENT_ROLES)[number];

export interface EngagementInsurance {
  readonly insuranceNumber: string;
  /** How the customer stands to it: policyholder, insured, or both. */
  readonly roles: readonly EngagementRole[];
  /** A personal identity number or an organisation number (an employer); null when none is recorded. */
  readonly policyholder: string | null;
  readonly insured: string;
  readonly product: { readonly code: string; readonly name: string };
  /** K capital insurance, P private pension, T occupational pension. */
  readonly insuranceType: 'K' | 'P' | 'T';
  readonly startDate: IsoDate;
  readonly status: InsuranceStatus;
  /** Its end once recorded: the last day in force and why. */
  readonly end: { readonly lastDay: IsoDate; readonly cause: string } | null;
  readonly custody: {
    readonly accountNumber: string;
    readonly custodianId: string | null;
    readonly custodianName: string | null;
    /** The latest value its custodian reported, and the day it is for. */
    readonly latestValue: { readonly asOf: IsoDate; readonly totalValue: string } | null;
  } | null;
  readonly premiums: {
    /** The monthly premium in force today; null when none, paid-up or ended. */
    readonly monthlyAmount: string | null;
    /** Every monthly premium recorded, from the day it took effect. */
    readonly history: readonly { readonly from: IsoDate; readonly monthlyAmount: string }[];
    readonly paidUpFrom: IsoDate | null;
  };
  readonly coverages: readonly { readonly type: 'repaymentProtection' | 'premiumWaiver'; readonly from: IsoDate }[];
  readonly payout: {
    /** The day payout can begin (the agreed date, else the insured's birthday at the product's payout age). */
    readonly canBegin: IsoDate;
    /** The payout plan the insured started, once registered: months (or a monthly amount), first month, status. */
    readonly plan: {
      readonly startMonth: string; readonly months: number | null; readonly monthlyAmount: string | null; readonly status: string; readonly completedMonth: string | null;
    } | null;
    /** The payouts ordered from the custodian, month by month. */
    readonly payouts: readonly { readonly month: string; readonly installment: number; readonly amount: string; readonly payBy: IsoDate; readonly final: boolean }[];
  };
  /** The beneficiary arrangement where one was recorded (an insurance applied for through the REST API); null otherwise. */
  readonly beneficiary: { readonly choice: 'standard' | 'named'; readonly names: readonly string[] } | null;
  /** The charges debited for periods that end within the last year (from the same day a year ago until today). */
  readonly charges: {
    readonly from: IsoDate;
    readonly to: IsoDate;
    readonly total: string;
    readonly lines: readonly { readonly charge: string; readonly basis: string | null; readonly amount: string; readonly periodFrom: IsoDate; readonly periodTo: IsoDate }[];
  };
}
