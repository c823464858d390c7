import { parseBankAccount } from '../core/bank-account.ts';
import { stockholmDate, type IsoDate } from '../core/calendar-date.ts';
import type { ErrorCode } from '../core/error-codes.ts';
import { checkPayoutRequest, payoutCanBegin, type PayoutRequest, type PayoutRequestBody } from '../core/payout-start.ts';
import type { Sql } from '../ledger/database.ts';
import { payoutRunMade, type InsurancePayoutFacts } from '../ledger/plan/payout-start.repository.ts';
import { isValidatedAccount } from '../ledger/advice/withdrawal-accounts.repository.ts';
import { PAYOUT_RUN_JOB } from '../calendar/payout-run.ts';

/**
 * A payout start checked against the ledger, in the caller's transaction, the same for
 * staff registering one (paper form) and for a payout request — when it is made and
 * again when its last signature arrives: the insurance in force and not in payout, the
 * product's rules (src/core/payout-start.ts), the first month's payout run not made at
 * the insurance's custodian, and the account registered and validated as the insured's
 * (the withdrawal-account register, validated at 13:00).
 */
export interface PayoutStartProblem {
  readonly code: ErrorCode;
  readonly field: 'insuranceNumber' | 'period' | 'firstMonth' | 'account';
  readonly message: string;
}

export type PayoutStartCheck =
  | { readonly ok: true; readonly accepted: PayoutRequest; readonly canBegin: IsoDate }
  /** Every problem, the first the one to answer with. */
  | { readonly ok: false; readonly problems: readonly [PayoutStartProblem, ...PayoutStartProblem[]] };

export async function checkPayoutStart(tx: Sql, facts: InsurancePayoutFacts, request: PayoutRequestBody, now: Date): Promise<PayoutStartCheck> {
  const { insuranceNumber } = facts;
  if (facts.endDate !== null) {
    return { ok: false, problems: [{ code: 'INSURANCE_ALREADY_ENDED', field: 'insuranceNumber', message: `Insurance ${insuranceNumber} ended ${facts.endDate}.` }] };
  }
  if (facts.inPayout) {
    const { rows } = await tx.query<{ startMonth: string; by: string | null }>('SELECT start_month AS "startMonth", registered_by AS by FROM payouts WHERE insurance_number = $1', [insuranceNumber]);
    const message = `Insurance ${insuranceNumber} is in payout from ${rows[0]?.startMonth}, registered by ${rows[0]?.by ?? 'the gateway'}.`;
    return { ok: false, problems: [{ code: 'PAYOUT_ALREADY_REGISTERED', field: 'insuranceNumber', message }] };
  }
  const canBegin = payoutCanBegin(facts);
  const reading = parseBankAccount(request.withdrawalAccount);
  const checked = checkPayoutRequest(request, {
    offeredMonths: facts.offeredMonths, canBegin, today: stockholmDate(now),
    firstMonthRunMade: await payoutRunMade(tx, request.firstMonth, facts.custodianId, PAYOUT_RUN_JOB),
    accountValidatedForInsured: reading.ok && await isValidatedAccount(tx, facts.insuredPin, reading.account.digits),
  });
  if ('refused' in checked) {
    const [first, ...rest] = checked.problems;
    return { ok: false, problems: [first!, ...rest] };
  }
  return { ok: true, accepted: checked.accepted, canBegin };
}
