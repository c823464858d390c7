import { decideAccess, reachesInsurance, type AccessPurpose, type ApiCaller } from '../../core/access.policy.ts';
import { stockholmDate } from '../../core/calendar-date.ts';
import type { AccessGate } from '../../ledger/advice/powers-of-attorney.repository.ts';

/**
 * The caller's access to customers' data for one purpose (reading, or acting for the
 * customer), as the gate the ledger's lookups ask with the facts they read in the same
 * statement (src/ledger/advice/powers-of-attorney.repository.ts). Every REST route on a
 * customer's data decides through here, so the policy (src/core/access.policy.ts) is
 * asked the same way everywhere and a refusal costs what a miss costs.
 */
export function accessGate(caller: ApiCaller, now: Date, purpose: AccessPurpose): AccessGate {
  const today = stockholmDate(now);
  return (facts, custodianId) => {
    const access = decideAccess(caller, { kind: 'customer', ...facts }, today, purpose);
    return custodianId === undefined ? access.allowed : reachesInsurance(access, custodianId);
  };
}
