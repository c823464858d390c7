/**
 * The bookkeeping behind the REST API's per-client limits (src/http/rest/api-client-limits.ts):
 * for each client id a token bucket for its rate and a count of its requests in flight.
 * Pure: no Fastify, no timers; time comes from `now` (milliseconds, monotonic), so a
 * fake clock tests it.
 *
 * - Rate: the bucket holds up to `burst` requests and refills at `requestsPerSecond`;
 *   each admitted request takes one. A client idle for a while may send `burst` at
 *   once, and on average no more than `requestsPerSecond`.
 * - Concurrency: at most `concurrentRequests` admitted and not yet released.
 *
 * A refused request takes nothing (neither a token nor a slot): refusals are cheap and
 * do not push a client's next admission further away. An admitted request's slot is
 * released once, however often `release` is called.
 *
 * In memory, per process: each api process counts on its own. The map holds one entry
 * per client id that has asked, and only configured clients get past authentication.
 */
export interface ClientLimits {
  /** Requests a second the client's bucket refills with: its rate on average. */
  readonly requestsPerSecond: number;
  /** The bucket's size: requests the client may send at once after a pause. */
  readonly burst: number;
  /** Requests of the client the gateway works on at once. */
  readonly concurrentRequests: number;
}

export type Admission =
  | { readonly admitted: true; readonly release: () => void }
  | { readonly admitted: false; readonly limit: 'rate' | 'concurrency'; readonly retryAfterSeconds: number };

interface ClientState {
  tokens: number;
  refilledAt: number;
  inFlight: number;
}

export class ClientRequestLimiter {
  private readonly clients = new Map<string, ClientState>();

  constructor(
    private readonly limitsOf: (clientId: string) => ClientLimits,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Admits a request of the client, or says which limit refuses it and in how many whole seconds (at least 1) to try again. */
  admit(clientId: string): Admission {
    const limits = this.limitsOf(clientId);
    const state = this.refilled(clientId, limits);
    // A slot frees when one of its own requests is answered, which the client sees; a
    // second is the least Retry-After can say.
    if (state.inFlight >= limits.concurrentRequests) return { admitted: false, limit: 'concurrency', retryAfterSeconds: 1 };
    if (state.tokens < 1) {
      const seconds = Math.ceil((1 - state.tokens) / limits.requestsPerSecond);
      return { admitted: false, limit: 'rate', retryAfterSeconds: Math.max(1, seconds) };
    }
    state.tokens -= 1;
    state.inFlight += 1;
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        state.inFlight -= 1;
      },
    };
  }

  /** The client's requests admitted and not released. */
  inFlight(clientId: string): number {
    return this.clients.get(clientId)?.inFlight ?? 0;
  }

  private refilled(clientId: string, limits: ClientLimits): ClientState {
    const now = this.now();
    const state = this.clients.get(clientId);
    if (!state) {
      const fresh = { tokens: limits.burst, refilledAt: now, inFlight: 0 };
      this.clients.set(clientId, fresh);
      return fresh;
    }
    const elapsedSeconds = Math.max(0, now - state.refilledAt) / 1000;
    state.tokens = Math.min(limits.burst, state.tokens + elapsedSeconds * limits.requestsPerSecond);
    state.refilledAt = now;
    return state;
  }
}
