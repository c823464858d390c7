import type { SignedRequestHandler } from './counted-signature.ts';
import type { SignCaseSubjectKind } from '../ledger/advice/sign-cases.repository.ts';
import { addWithdrawalEvent } from '../ledger/advice/withdrawal-requests.repository.ts';
import { applicationSignedHandler, type ApplicationDecisionRules } from './application-signed.ts';
import { custodianSwitchSigned } from './custodian-switch.ts';
import type { RunDeps } from '../calendar/debit-run.ts';
import { payoutRequestSigned } from './payout-request.ts';
import { orderWithdrawalIfReady } from './withdrawal-order.ts';

/**
 * What a counted signature does to the request its sign case is for, by the kind of
 * request: it is written to the request's history and, when it was the last one needed,
 * the request takes effect — all in the transaction that records the signature, so a
 * signature and its effect are one. Each handler answers the ids of the outgoing
 * documents it stored, to hand to delivery after the commit.
 */
export function signedRequestHandlers(deps: RunDeps, applications: ApplicationDecisionRules): Readonly<Record<SignCaseSubjectKind, SignedRequestHandler>> {
  return {
    /** A withdrawal goes to the custodian once signed by all and approved by the insurer. */
    withdrawal: async (tx, requestId, signature, now) => {
      await addWithdrawalEvent(tx, requestId, 'signed', now, `bankid:${signature.personalNumber}`, signature.role);
      return orderWithdrawalIfReady(tx, deps, requestId, now);
    },
    /** A payout request registers the payout once signed by all (payout-request.ts); it sends no document itself. */
    payout: payoutRequestSigned,
    /** An application is decided — issued, or put under review — once signed by all (application-signed.ts); it sends no document itself. */
    application: applicationSignedHandler(applications),
    /** A custodian switch is ordered once signed by all (custodian-switch.ts): its CustodianSwitchOrder goes to the releasing custodian. */
    'custodian-switch': custodianSwitchSigned(deps),
  };
}
