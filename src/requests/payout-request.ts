import { ulid } from 'ulid';
import { stockholmDate, type IsoDate } from '../core/calendar-date.ts';
import { companySigningOf, inForceOn } from '../core/company-signatories.rules.ts';
import { periodText, type PayoutRequestBody } from '../core/payout-start.ts';
import { payoutSignatoriesOf, payoutSignText } from '../core/payout-request.rules.ts';
import type { Signatory } from '../core/withdrawal-request.rules.ts';
import { companySigningRegister } from '../ledger/advice/company-signatories.repository.ts';
import type { Database, Sql } from '../ledger/database.ts';
import {
  addPayoutRequestEvent, decidePayoutRequest, insertPayoutRequest, lockPayoutRequest, openPayoutRequestOf, payoutRequestInsurance,
} from '../ledger/advice/payout-requests.repository.ts';
import { findPayoutStartFacts, type InsurancePayoutFacts } from '../ledger/plan/payout-start.repository.ts';
import type { AccessGate } from '../ledger/advice/powers-of-attorney.repository.ts';
import { closeSignCase, insertSignCase } from '../ledger/advice/sign-cases.repository.ts';
import { checkPayoutStart, type PayoutStartProblem } from './payout-start-check.ts';
import { schedulePayout } from '../calendar/payout-run.ts';
import type { CountedSignature } from './counted-signature.ts';

/**
 * The insured starts the payout through a signed request (POST
 * /Insurance/{insuranceNumber}/payoutrequest): the period, the first month and the
 * account, checked as staff registrations are (payout-start-check.ts), with a sign case
 * of its own, signed through the same Sign and Collect as withdrawals. The last signature
 * registers the payout (schedulePayout, `bankid:<the insured's personnummer>`), in the
 * transaction that records it.
 *
 * Invariants:
 * - every change of an insurance's payout — a request made, the last signature, a staff
 *   registration — takes the insurance's row lock first, then the request's: one at a
 *   time per insurance, and never a deadlock between them;
 * - at most one request of an insurance is open: a new request closes the open one (and
 *   its sign case), and so does a payout registered otherwise;
 * - registered once: the request moves from `requested` to `registered` or `refused`
 *   only under its lock, once fully signed, and `payouts` holds one row per insurance.
 *   Everything is checked again at the last signature (the month may have passed, the
 *   account may no longer be validated): a request that no longer holds is `refused`
 *   with the code and reason in its history, and nothing is registered.
 */
export type NewPayoutRequestOutcome =
  | { readonly made: true; readonly requestId: string }
  | { readonly made: false; readonly problems: readonly PayoutStartProblem[] }
  /** No such insurance, or `mayAct` said the maker may not act for its insured. */
  | { readonly made: false; readonly notFound: true };

export async function makePayoutRequest(
  db: Database, input: { insuranceNumber: string; request: PayoutRequestBody; requestedBy: string; now: Date }, mayAct?: AccessGate,
): Promise<NewPayoutRequestOutcome> {
  const { insuranceNumber, now } = input;
  return db.transaction(async (tx): Promise<NewPayoutRequestOutcome> => {
    await lockInsurance(tx, insuranceNumber);
    const facts = await findPayoutStartFacts(tx, insuranceNumber, mayAct);
    if (!facts) return { made: false, notFound: true };
    const checked = await checkPayoutStart(tx, facts, input.request, now);
    if (!checked.ok) return { made: false, problems: checked.problems };
    const signing = await payoutSigningOf(tx, facts, stockholmDate(now));
    if ('problem' in signing) return { made: false, problems: [signing.problem] };
    const stamp = ulid(now.getTime());
    const requestId = `PR-${stamp}`;
    await closeOpenRequest(tx, insuranceNumber, `Replaced by payout request ${requestId}.`, input.requestedBy, now);
    const { months, firstMonth, account } = checked.accepted;
    await insertPayoutRequest(tx, {
      requestId, insuranceNumber, insuredPin: facts.insuredPin, policyholder: facts.policyholder, months, firstMonth, account,
      requestedAt: now, requestedBy: input.requestedBy,
    });
    await insertSignCase(tx, {
      signCaseId: `SC-${stamp}`, subject: { kind: 'payout', id: requestId }, customerId: facts.insuredPin, custodianId: facts.custodianId,
      visibleText: payoutSignText({ insuranceNumber, months, firstMonth, account }),
      signatories: signing.signatories, companySignaturesRequired: signing.required, createdAt: now,
    });
    return { made: true, requestId };
  });
}

/**
 * What a counted signature of a payout request's sign case does (signed-requests.ts): it
 * is written to the request's history, and the last one registers the payout — or, when
 * the request no longer holds, refuses it.
 */
export async function payoutRequestSigned(tx: Sql, requestId: string, signature: CountedSignature, now: Date): Promise<string[]> {
  await addPayoutRequestEvent(tx, requestId, 'signed', now, `bankid:${signature.personalNumber}`, signature.role);
  const insuranceNumber = await payoutRequestInsurance(tx, requestId);
  if (insuranceNumber === undefined) return [];
  await lockInsurance(tx, insuranceNumber);
  const request = await lockPayoutRequest(tx, requestId);
  if (!request || request.status !== 'requested' || !request.fullySigned) return [];
  const facts = await findPayoutStartFacts(tx, insuranceNumber);
  const checked = facts && await checkPayoutStart(tx, facts, { period: request.months, firstMonth: request.firstMonth, withdrawalAccount: request.accountDigits }, now);
  if (!checked || !checked.ok) {
    const problem = checked ? checked.problems[0] : { code: 'RESOURCE_NOT_FOUND', message: `No insurance ${insuranceNumber}.` };
    await decidePayoutRequest(tx, requestId, 'refused', now);
    await addPayoutRequestEvent(tx, requestId, 'refused', now, 'payout-request', `${problem.code}: ${problem.message}`);
    return [];
  }
  const { months, firstMonth, account } = checked.accepted;
  await schedulePayout(tx, {
    insuranceNumber, startMonth: firstMonth, terms: { months },
    registration: { withdrawalAccount: account.digits, registeredBy: `bankid:${request.insuredPin}` },
  }, now);
  await decidePayoutRequest(tx, requestId, 'registered', now);
  await addPayoutRequestEvent(tx, requestId, 'registered', now, 'payout-request', `from ${firstMonth} over ${periodText(months)} to ${account.bankName} ${account.digits}`);
  return [];
}

/**
 * Closes the insurance's open payout request, if any, and its sign case: a payout was
 * registered otherwise (staff, from a paper form) or another request replaces it. In the
 * caller's transaction, which holds the insurance's lock.
 */
export async function closeOpenRequest(tx: Sql, insuranceNumber: string, reason: string, by: string, now: Date): Promise<void> {
  const open = await openPayoutRequestOf(tx, insuranceNumber);
  if (!open) return;
  await decidePayoutRequest(tx, open, 'closed', now);
  await addPayoutRequestEvent(tx, open, 'closed', now, by, reason);
  await closeSignCase(tx, { kind: 'payout', id: open }, reason, now);
}

async function lockInsurance(tx: Sql, insuranceNumber: string): Promise<void> {
  await tx.query('SELECT 1 FROM insurances WHERE insurance_number = $1 FOR UPDATE', [insuranceNumber]);
}

/** Who signs (core/payout-request.rules.ts): the insured, with the policyholder or the company signatories where they own it. */
async function payoutSigningOf(
  tx: Sql, facts: InsurancePayoutFacts, today: IsoDate,
): Promise<{ signatories: Signatory[]; required: number | null } | { problem: PayoutStartProblem }> {
  const signatories = payoutSignatoriesOf(facts.kind, facts.policyholder, facts.insuredPin);
  if (signatories !== 'company') return { signatories, required: null };
  const register = await companySigningRegister(tx, facts.policyholder);
  const company = companySigningOf({
    organisationNumber: facts.policyholder, insured: facts.insuredPin, inForce: inForceOn(register.signatories, today), required: register.requiredSignatures ?? undefined,
  });
  if (!company.ok) return { problem: { code: 'PAYOUT_SIGNATORIES_MISSING', field: 'insuranceNumber', message: company.message } };
  return { signatories: company.signatories, required: company.required };
}
