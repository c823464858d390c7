import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/config.schema.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import { callerOf } from './api-auth.ts';
import { ClientRequestLimiter, type ClientLimits } from './client-request-limiter.ts';

/**
 * Per-client limits of the REST API (docs/rest.md, "Limits"), so that one advisor firm or
 * custodian cannot take the database pool, or the gateway's time, from the others. Put in
 * the scope that `requireApiClient` authenticates, after it: each request of a client is
 * admitted against its rate (`requestsPerSecond`, bursts of `burst`) and its requests in
 * flight (`concurrentRequests`), from `api.limits` or the client's own `limits`. Over
 * either it is answered at once, before anything reads the database, with 429
 * TOO_MANY_REQUESTS and Retry-After in whole seconds.
 *
 * A slot in flight is held while the gateway works on the request, which is not always
 * as long as the client waits: it is released when the answer is given *and* the
 * connection is done with. Normally that is the response sent. A client that gives up
 * (closes the connection, or its socket times out) does not stop the work its request
 * started — a query may still hold a database connection — so its slot is held until
 * that work has answered (onSend, which every answer passes, the error handler's too)
 * and only then released: aborting and resending cannot get a client past its limit, and
 * no slot is left behind. The response's `close` event, which Node emits for a finished
 * response and for a lost connection alike, marks the connection done.
 */
export interface ApiClientLimitsOptions {
  readonly config: Readonly<GatewayConfig>;
  readonly log: Logger;
  /** Monotonic milliseconds; default performance.now. */
  readonly now?: () => number;
}

/** How often at most a client going over its limits is logged. */
const REPORT_EVERY_MS = 60_000;

export function limitApiClients(scope: FastifyInstance, options: ApiClientLimitsOptions): ClientRequestLimiter {
  const now = options.now ?? (() => performance.now());
  const limits = clientLimitsOf(options.config);
  const limiter = new ClientRequestLimiter((clientId) => limits.get(clientId) ?? options.config.api.limits, now);
  const slots = new WeakMap<FastifyRequest, Slot>();
  const reportedAt = new Map<string, number>();

  scope.addHook('onRequest', async (request, reply) => {
    const clientId = callerOf(request).clientId;
    const admission = limiter.admit(clientId);
    if (!admission.admitted) {
      const last = reportedAt.get(clientId);
      if (last === undefined || now() - last >= REPORT_EVERY_MS) {
        reportedAt.set(clientId, now());
        options.log.warn({ clientId, limit: admission.limit }, 'REST client over its limit; answered 429');
      }
      void reply.header('retry-after', String(admission.retryAfterSeconds));
      throw new GatewayError('TOO_MANY_REQUESTS', refusal(clientId, admission.limit, admission.retryAfterSeconds, limits.get(clientId) ?? options.config.api.limits), {
        details: { retryAfterSeconds: admission.retryAfterSeconds },
      });
    }
    const slot = new Slot(admission.release);
    slots.set(request, slot);
    reply.raw.once('close', () => slot.connectionDone(reply.raw.writableFinished));
  });
  scope.addHook('onSend', async (request, _reply, payload) => {
    slots.get(request)?.answered();
    return payload;
  });
  return limiter;
}

/** One admitted request's slot: released once both the answer is given and the connection is done. */
class Slot {
  private hasAnswer = false;
  private connectionClosed = false;

  constructor(private readonly release: () => void) {}

  answered(): void {
    this.hasAnswer = true;
    this.releaseWhenDone();
  }

  /** `finished`: the response was sent in full, so the answer was given too (whatever path gave it). */
  connectionDone(finished: boolean): void {
    this.connectionClosed = true;
    if (finished) this.hasAnswer = true;
    this.releaseWhenDone();
  }

  private releaseWhenDone(): void {
    if (this.hasAnswer && this.connectionClosed) this.release();
  }
}

/** Each configured client's limits: its own `limits` over the gateway's `api.limits`. */
function clientLimitsOf(config: Readonly<GatewayConfig>): Map<string, ClientLimits> {
  const defaults = config.api.limits;
  return new Map(config.api.clients.map((client) => [client.id, {
    requestsPerSecond: client.limits?.requestsPerSecond ?? defaults.requestsPerSecond,
    burst: client.limits?.burst ?? defaults.burst,
    concurrentRequests: client.limits?.concurrentRequests ?? defaults.concurrentRequests,
  }]));
}

function refusal(clientId: string, limit: 'rate' | 'concurrency', seconds: number, limits: ClientLimits): string {
  return limit === 'rate'
    ? `Client ${clientId} may make ${limits.requestsPerSecond} requests a second (bursts of ${limits.burst}); retry after ${seconds} s.`
    : `Client ${clientId} may have ${limits.concurrentRequests} requests in flight at once; wait for an answer before sending more (retry after ${seconds} s).`;
}
