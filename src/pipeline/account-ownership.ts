import type { BankAccount } from '../core/bank-account.ts';

/**
 * The port through which a registered withdrawal account is checked against its
 * policyholder before money may go to it: does the bank hold the account in the
 * customer's name? The insurer's real source (its bank's account-holder service) is
 * an adapter of this port; `LocalAccountOwnership` answers from a list given to it,
 * for tests and the demo.
 */
export type OwnershipAnswer = { readonly owned: true } | { readonly owned: false; readonly reason: string };

export interface AccountOwnershipCheck {
  /** Whether `customerId` (personnummer or organisationsnummer) holds the account. A thrown error leaves the registration pending for the next run. */
  check(account: BankAccount, customerId: string): Promise<OwnershipAnswer>;
}

/** Account holders as the bank would answer, from a fixed list: account digits (clearing + account) → holder. */
export class LocalAccountOwnership implements AccountOwnershipCheck {
  readonly #holders: ReadonlyMap<string, string>;

  constructor(holders: Iterable<{ readonly accountNumber: string; readonly holderId: string }>) {
    this.#holders = new Map([...holders].map((entry) => [entry.accountNumber, entry.holderId]));
  }

  async check(account: BankAccount, customerId: string): Promise<OwnershipAnswer> {
    const holder = this.#holders.get(account.digits);
    if (holder === undefined) return { owned: false, reason: `${account.bankName} does not know account ${account.clearingNumber} ${account.accountNumber}` };
    if (holder !== customerId) return { owned: false, reason: `the account is not held by the policyholder ${customerId}` };
    return { owned: true };
  }
}
