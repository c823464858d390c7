import { decideAccess, isValidOn, type ApiCaller, type PowerOfAttorney } from './access.policy.ts';
import type { IsoDate } from './calendar-date.ts';

/**
 * Who may make a direct query (GET /DirectQuery/{customerId}) and under which power of
 * attorney it is recorded. The seed's rule: a direct query needs a valid information or
 * intermediation power of attorney; a custodian's access to the insurances it holds is
 * not enough. So only an advisor firm is answered, and only when the access policy
 * (src/core/access.policy.ts) lets it read the customer through a power of its own —
 * the firm is never given the custodian facts, so no other way in counts.
 *
 * The power recorded is one that makes the query allowed today: an intermediation power
 * before an information power (the wider one the firm holds), then the earliest begun,
 * then the lowest id, so the same register always names the same power.
 */
export interface RegisteredPower extends PowerOfAttorney {
  readonly id: string;
}

export function directQueryPower(caller: ApiCaller, powers: readonly RegisteredPower[], today: IsoDate): RegisteredPower | undefined {
  if (caller.kind !== 'advisor-firm') return undefined;
  if (!decideAccess(caller, { kind: 'customer', powers, custodianIds: [] }, today, 'read').allowed) return undefined;
  const usable = powers.filter((power) => power.holderOrganisationNumber === caller.organisationNumber && isValidOn(power, today));
  return usable.sort(byPreference)[0];
}

function byPreference(a: RegisteredPower, b: RegisteredPower): number {
  const rank = (power: RegisteredPower) => (power.kind === 'intermediation' ? 0 : 1);
  return rank(a) - rank(b) || a.validFrom.localeCompare(b.validFrom) || Number(BigInt(a.id) - BigInt(b.id));
}
