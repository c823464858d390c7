import type { SignatoryRole } from '../core/withdrawal-request.rules.ts';
import type { Sql } from '../ledger/database.ts';

/** A signature BankID completed and the sign case counted: who signed, in which role. */
export interface CountedSignature {
  readonly role: SignatoryRole;
  readonly personalNumber: string;
}

/**
 * What a counted signature does to one kind of request (signed-requests.ts), in the
 * transaction that records it; answers the ids of the outgoing documents it stored.
 */
export type SignedRequestHandler = (tx: Sql, requestId: string, signature: CountedSignature, now: Date) => Promise<string[]>;
