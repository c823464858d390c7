import { GatewayError } from '../core/gateway-error.ts';

/**
 * Counts wrong credentials per client address, for every login door of the HTTP server
 * (staff HTTP Basic, the custodians' REST door): past `maxFailures` in a minute the
 * address is answered TOO_MANY_REQUESTS (429) until that minute is over, whatever it
 * sends, so passwords cannot be guessed at speed.
 *
 * Only wrong credentials count. A request without any guesses nothing (a browser asks
 * first without, then prompts), and a dashboard's many right ones must not lock staff
 * out — which is why this is not @fastify/rate-limit, which counts every request.
 * In memory, per process: each api process counts on its own.
 */
const WINDOW_MS = 60_000;
/** Addresses tracked at most; past this the oldest windows are dropped. */
const MAX_ADDRESSES = 10_000;

export class LoginThrottle {
  private readonly failures = new Map<string, { count: number; since: number }>();

  constructor(private readonly maxFailures: number, private readonly now: () => number = Date.now) {}

  /** Throws TOO_MANY_REQUESTS while the address is over its failures for the minute. */
  assertAllowed(address: string): void {
    const entry = this.current(address);
    if (entry && entry.count >= this.maxFailures) {
      const seconds = Math.ceil((entry.since + WINDOW_MS - this.now()) / 1000);
      throw new GatewayError('TOO_MANY_REQUESTS', `Too many wrong credentials from this address; retry after ${seconds} s.`, { details: { retryAfterSeconds: seconds } });
    }
  }

  recordFailure(address: string): void {
    const entry = this.current(address);
    if (entry) {
      entry.count += 1;
      return;
    }
    if (this.failures.size >= MAX_ADDRESSES) this.dropExpired();
    if (this.failures.size >= MAX_ADDRESSES) this.failures.delete(this.failures.keys().next().value as string);
    this.failures.set(address, { count: 1, since: this.now() });
  }

  private current(address: string): { count: number; since: number } | undefined {
    const entry = this.failures.get(address);
    if (entry && this.now() - entry.since >= WINDOW_MS) {
      this.failures.delete(address);
      return undefined;
    }
    return entry;
  }

  private dropExpired(): void {
    for (const address of [...this.failures.keys()]) this.current(address);
  }
}
