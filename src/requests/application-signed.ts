import { decideAccess } from '../core/access.policy.ts';
import { isPastSignBy } from '../core/application-signing.rules.ts';
import { stockholmDate } from '../core/calendar-date.ts';
import { isFullySigned } from '../core/company-signatories.rules.ts';
import { reviewReasons, type ReviewRules } from '../core/insurance-application.rules.ts';
import { planReviewReasons, REVIEW_REASON_WITHHELD, reviewReasonsShown, type PlanApplicationInput, type PlanReviewRules } from '../core/plan-application.rules.ts';
import {
  lockApplicationAwaitingSignature, lockEmployerAgreements, recordSignedDecision, type SignedApplication, type StatusChange,
} from '../ledger/advice/applications.repository.ts';
import type { Sql } from '../ledger/database.ts';
import { customerAccessFacts } from '../ledger/advice/powers-of-attorney.repository.ts';
import { findSignCaseOf } from '../ledger/advice/sign-cases.repository.ts';
import { expireApplications } from '../calendar/application-expiry.job.ts';
import type { SignedRequestHandler } from './counted-signature.ts';

/**
 * What a counted signature of an application's sign case does (signed-requests.ts), in
 * the transaction that records it: nothing until every required signatory has signed;
 * the last signature decides the application as submission decided it before signing
 * was asked for — `approved` and `issued` at once, or `under-review` with the review
 * rules' reasons (`api.review`) and the notices to the advisor and the customer.
 *
 * Invariants:
 * - never issued before every signature: the signatures are read after the
 *   application's row lock is taken, so of two last signatures collected at once the
 *   second to take the lock sees both, and the first sees only its own;
 * - decided once: only an application still `awaiting-signature` is decided, under its
 *   lock, so repeated and concurrent Collects, and the expiry, leave one outcome;
 * - a plan is decided on the employer's agreements read under the employer's lock (two
 *   plans of one employer are decided one after the other), and the firm reads a reason
 *   about the employer only when it holds a power of attorney on the employer then;
 * - signed after its last day to sign (before the nightly expiry got to it), an
 *   application expires instead: its signatures came too late.
 */
export interface ApplicationDecisionRules {
  /** `api.review`: when an application needs a person's review before it is approved. */
  readonly review: ReviewRules & PlanReviewRules;
}

type Decision = readonly Omit<StatusChange, 'at'>[];

export function applicationSignedHandler(rules: ApplicationDecisionRules): SignedRequestHandler {
  return async (tx, applicationId, _signature, now) => {
    const application = await lockApplicationAwaitingSignature(tx, applicationId);
    if (!application) return [];
    const today = stockholmDate(now);
    if (isPastSignBy(application.signBy, today)) {
      await expireApplications(tx, today, now, applicationId);
      return [];
    }
    const signCase = await findSignCaseOf(tx, { kind: 'application', id: applicationId });
    if (!signCase || !isFullySigned(signCase.signatories, signCase.companySignaturesRequired)) return [];
    await recordSignedDecision(tx, application, await decide(tx, application, rules, now), now, today);
    return [];
  };
}

const APPROVED = { status: 'approved', by: 'gateway', reason: 'signed by every signatory; no rule asks for a review' } as const;

async function decide(tx: Sql, application: SignedApplication, rules: ApplicationDecisionRules, now: Date): Promise<Decision> {
  switch (application.kind) {
    case 'insurance': {
      const reasons = reviewReasons(application.body, rules.review, stockholmDate(application.submittedAt));
      return [reasons.length > 0 ? { status: 'under-review', by: 'gateway', reason: reasons.join('; ') } : APPROVED];
    }
    case 'plan':
      return decidePlan(tx, application, application.body, rules, now);
    default:
      return application satisfies never;
  }
}

/** Approved, or under review for the rules' reasons — decided on the employer's agreements as they are under its lock. */
async function decidePlan(tx: Sql, application: SignedApplication, body: PlanApplicationInput, rules: ApplicationDecisionRules, now: Date): Promise<Decision> {
  const employer = body.employer.organisationNumber;
  const reasons = planReviewReasons(body, rules.review, await lockEmployerAgreements(tx, employer));
  if (reasons.length === 0) return [APPROVED];
  const firm = { kind: 'advisor-firm', clientId: '', organisationNumber: application.firmOrganisationNumber } as const;
  const firmMaySeeEmployer = decideAccess(firm, { kind: 'customer', ...(await customerAccessFacts(tx, employer)) }, stockholmDate(now)).allowed;
  const shown = reviewReasonsShown(reasons, firmMaySeeEmployer);
  return [{
    status: 'under-review', by: 'gateway', reason: reasons.map((reason) => reason.text).join('; '),
    callerReason: shown.length > 0 ? shown.join('; ') : REVIEW_REASON_WITHHELD,
  }];
}
