import type { ApiCaller } from '../../core/access.policy.ts';
import { stockholmDate } from '../../core/calendar-date.ts';
import { directQueryPower, type RegisteredPower } from '../../core/direct-query.policy.ts';
import type { Engagement } from '../../core/engagement.ts';
import type { Database } from '../database.ts';
import { powersOnCustomer, recordDirectQuery } from './direct-queries.repository.ts';
import { readEngagement } from '../plan/engagement.repository.ts';
import type { KnownParties } from '../plan/insurance-view.repository.ts';

/** A direct query answered: its record's id, the power it was answered under, and the engagement. */
export interface DirectQueryAnswer {
  readonly queryId: string;
  readonly power: RegisteredPower;
  readonly engagement: Engagement;
  readonly firm: string;
}

/**
 * The direct query, whichever door it came by (GET /DirectQuery/{customerId}, or a
 * DirectQuery document over SSEK): the customer's engagement for an advisor firm holding
 * a valid information or intermediation power on the customer, recorded (who, for whom,
 * under which power, in which form) in the transaction that reads it, so no answer
 * leaves without its record. Undefined — the caller answers "not available", as for an
 * unknown customer — for a custodian and a firm without such a power.
 */
export async function answerDirectQuery(
  db: Database, caller: ApiCaller, customerId: string, answeredAs: 'json' | 'xml', now: Date, parties: KnownParties,
): Promise<DirectQueryAnswer | undefined> {
  const today = stockholmDate(now);
  return db.transaction(async (tx) => {
    const power = directQueryPower(caller, await powersOnCustomer(tx, customerId), today);
    if (!power || caller.kind !== 'advisor-firm') return undefined;
    const engagement = await readEngagement(tx, customerId, today, parties);
    const queryId = await recordDirectQuery(tx, {
      queriedAt: now, firmOrganisationNumber: caller.organisationNumber, clientId: caller.clientId, customerId,
      power: { id: power.id, kind: power.kind }, answeredAs, insuranceCount: engagement.insurances.length,
    });
    return { queryId, power, engagement, firm: caller.organisationNumber };
  });
}
