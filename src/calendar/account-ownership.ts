import type { BankAccount } from '../core/bank-account.ts';
import type { GatewayConfig } from '../config/config.schema.ts';

/**
 * The port through which a registered withdrawal account is checked against its
 * policyholder before money may go to it: does the bank hold the account in the
 * customer's name? The insurer's real source (its bank's account-holder service) is
 * `HttpAccountOwnership` below; `LocalAccountOwnership` answers from a list given to
 * it, for tests and the demo. `accountOwnership` in the configuration chooses.
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

/**
 * The insurer's account-ownership service over HTTP. Each check is
 * `POST <url>` with `{"clearingNumber", "accountNumber", "bankName", "holderId"}` (JSON)
 * and is answered 200 `{"owned": true}` or `{"owned": false, "reason": "…"}`. Anything
 * else — another status, another body, no answer within `timeoutMs` — throws, so the
 * registration stays pending for the next run rather than being refused by an outage.
 */
export class HttpAccountOwnership implements AccountOwnershipCheck {
  constructor(private readonly options: { readonly url: string; readonly token?: string | undefined; readonly timeoutMs: number }) {}

  async check(account: BankAccount, customerId: string): Promise<OwnershipAnswer> {
    const response = await fetch(this.options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}) },
      body: JSON.stringify({ clearingNumber: account.clearingNumber, accountNumber: account.accountNumber, bankName: account.bankName, holderId: customerId }),
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (response.status !== 200) throw new Error(`the account-ownership service answered ${response.status}`);
    const answer = (await response.json()) as { owned?: unknown; reason?: unknown };
    if (answer.owned === true) return { owned: true };
    if (answer.owned === false && typeof answer.reason === 'string' && answer.reason !== '') return { owned: false, reason: answer.reason };
    throw new Error('the account-ownership service answered neither {"owned": true} nor {"owned": false, "reason"}');
  }
}

/** The check the configuration names (`accountOwnership`; without it the 13:00 validation is not scheduled). */
export function accountOwnershipFrom(settings: NonNullable<GatewayConfig['accountOwnership']>): AccountOwnershipCheck {
  switch (settings.kind) {
    case 'local': return new LocalAccountOwnership(settings.holders);
    case 'http': return new HttpAccountOwnership(settings);
    default: return settings satisfies never;
  }
}
