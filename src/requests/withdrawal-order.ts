import { stockholmDate } from '../core/calendar-date.ts';
import { statusBeforeOrder, withdrawalOrderDays } from '../core/withdrawal-request.rules.ts';
import type { Database, Sql } from '../ledger/database.ts';
import { lockRun, undeliveredRunDocuments } from '../ledger/custody/debit-runs.repository.ts';
import { closeSignCase } from '../ledger/advice/sign-cases.repository.ts';
import {
  addWithdrawalEvent, lockWithdrawalRequest, markOrdered, recordDecision, setWithdrawalStatus, withdrawalOrderFacts, type WithdrawalSummary,
} from '../ledger/advice/withdrawal-requests.repository.ts';
import { DEBIT_ACCOUNTS } from '../messages/debit-accounts.document.ts';
import { handOverRunDocuments, storeCustodianRun, type RunDeps } from '../calendar/debit-run.ts';

/**
 * A withdrawal goes to the custodian once the insurer has approved it and every
 * signatory of its sign case has signed — whichever comes last (a staff decision, a
 * collected signature) orders it, in its own transaction: a sell order and a payout
 * instruction in a DebitAccounts document of its own (run key `withdrawal-<request>`,
 * payout month the pay-by month), stored with storeCustodianRun as the debit and payout
 * runs store theirs, and handed to the deliver stage after commit.
 *
 * Invariants:
 * - ordered once: the request row is locked, the order is made only from a status
 *   before `ordered`, and the run's primary key (run key, custodian) and the request's
 *   `ordered` status are written in the same transaction;
 * - nothing lost: a crash after the commit leaves the document recorded and undelivered;
 *   the deliver queue, the outgoing reconciler or the next hand-over deliver that same
 *   file. A crash before the commit leaves the decision or signature unrecorded too, so
 *   it is made again, and orders then.
 */
export function withdrawalRunKey(requestId: string): string {
  return `withdrawal-${requestId}`;
}

/** Orders the request when it is approved and fully signed; the document ids to hand over after commit (none when not ready). */
export async function orderWithdrawalIfReady(tx: Sql, deps: RunDeps, requestId: string, now: Date): Promise<string[]> {
  const request = await lockWithdrawalRequest(tx, requestId);
  if (!request || request.status === 'ordered' || request.status === 'rejected') return [];
  const next = statusBeforeOrder(request.decision, request.fullySigned);
  if (next !== 'ordered') {
    if (next !== request.status) await setWithdrawalStatus(tx, requestId, next);
    return [];
  }
  const facts = await withdrawalOrderFacts(tx, requestId);
  const custodian = facts && deps.custodians.get(facts.custodianId);
  if (!facts || !custodian) {
    deps.log.warn({ requestId, custodianId: facts?.custodianId }, 'withdrawal: the custodian is not a configured counterparty; not ordered');
    return [];
  }
  const runKey = withdrawalRunKey(requestId);
  const runDate = stockholmDate(now);
  const { sellBy, payBy } = withdrawalOrderDays(runDate);
  await lockRun(tx, runKey);
  const summary = await storeCustodianRun(tx, deps, {
    runKey, custodianId: facts.custodianId, custodianOrganisationNumber: custodian.organisationNumber, runDate, now,
    run: { kind: 'payout', month: payBy.slice(0, 7) },
    accounts: [{
      accountNumber: facts.accountNumber, insuranceNumber: facts.insuranceNumber, debits: [],
      sellOrders: [{ reason: 'Payout', amount: facts.amount, sellBy }],
      payout: { amount: facts.amount, payBy, installment: 1, final: false, toAccount: facts.toAccount },
    }],
    lines: [{ accountNumber: facts.accountNumber, insuranceNumber: facts.insuranceNumber, charge: 'SellOrder', basis: 'Withdrawal', amount: facts.amount, periodFrom: sellBy, periodTo: sellBy }],
    held: [], dryRun: false, fileName: `${runKey}.${DEBIT_ACCOUNTS}.xml`,
  });
  await markOrdered(tx, requestId, { runKey, custodianId: facts.custodianId, orderedOn: runDate });
  await addWithdrawalEvent(tx, requestId, 'ordered', now, 'withdrawal-order', `sell ${facts.amount} SEK by ${sellBy}, pay by ${payBy}: ${summary.documentId ?? ''}`);
  return undeliveredRunDocuments(tx, runKey);
}

/**
 * The insurer's decision on a request not decided yet, recorded under `by` with the
 * reason (the audit: the request's history); an approval of a fully signed request
 * orders it. Undefined when there is no such request or it is decided already.
 */
export async function decideWithdrawal(
  db: Database, deps: RunDeps, requestId: string, decision: 'approved' | 'rejected', by: string, reason: string, now: Date,
): Promise<WithdrawalSummary['status'] | undefined> {
  const outcome = await db.transaction(async (tx) => {
    const request = await lockWithdrawalRequest(tx, requestId);
    if (!request || request.decision !== null) return undefined;
    await recordDecision(tx, requestId, decision, by, reason, now);
    if (decision === 'rejected') {
      await setWithdrawalStatus(tx, requestId, 'rejected');
      await closeSignCase(tx, { kind: 'withdrawal', id: requestId }, 'The withdrawal request was rejected.', now);
    }
    const documents = decision === 'rejected' ? [] : await orderWithdrawalIfReady(tx, deps, requestId, now);
    const status = statusBeforeOrder(decision, request.fullySigned);
    return { status, documents };
  });
  if (!outcome) return undefined;
  await handOverRunDocuments(deps, outcome.documents);
  return outcome.status;
}
