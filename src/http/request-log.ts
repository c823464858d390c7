import { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/**
 * What the HTTP listeners log of their requests. Fastify's own per-request lines
 * ("incoming request", "request completed") are off: at info they drowned everything
 * else at a terminal. Instead one line per answered request, at
 * - debug for an ordinary request,
 * - info for one answered with a client error (4xx),
 * - warn for one answered with a server error (5xx) or slower than `slowMs`,
 * and, when `summaryEveryMs` is set, one info line a period counting the requests
 * answered in it by status class, the slow ones and the slowest (none when there were
 * no requests). URLs go through the loggers' masking like every other line.
 */
export interface RequestLogOptions {
  /** A request slower than this is logged at warn. Default 1000. */
  readonly slowMs?: number;
  /** How often the summary line is written; undefined: no summary. */
  readonly summaryEveryMs?: number | undefined;
}

export const SLOW_REQUEST_MS = 1000;

/** Fastify's own per-request lines off (its `logController` option), for a listener that uses logRequests. */
export function quietRequestLogging(): LogController {
  return new LogController({ disableRequestLogging: true });
}
export const REQUEST_SUMMARY_EVERY_MS = 60_000;

interface Tally {
  requests: number;
  byStatus: Record<string, number>;
  slow: number;
  slowestMs: number;
  slowest: string | undefined;
}

const emptyTally = (): Tally => ({ requests: 0, byStatus: {}, slow: 0, slowestMs: 0, slowest: undefined });

export function logRequests(app: FastifyInstance, log: Logger, options: RequestLogOptions = {}): void {
  const slowMs = options.slowMs ?? SLOW_REQUEST_MS;
  let tally = emptyTally();
  app.addHook('onResponse', async (request, reply) => {
    const ms = Math.round(reply.elapsedTime);
    const status = reply.statusCode;
    const slow = ms >= slowMs;
    const fields = { reqId: request.id, method: request.method, url: request.url, status, ms };
    if (status >= 500) log.warn(fields, `${request.method} answered ${status}`);
    else if (slow) log.warn(fields, `${request.method} answered in ${ms} ms (slow: ${slowMs} ms or more)`);
    else if (status >= 400) log.info(fields, `${request.method} answered ${status}`);
    else log.debug(fields, 'request answered');
    const statusClass = `${Math.floor(status / 100)}xx`;
    tally.requests += 1;
    tally.byStatus[statusClass] = (tally.byStatus[statusClass] ?? 0) + 1;
    if (slow) tally.slow += 1;
    if (ms >= tally.slowestMs) {
      tally.slowestMs = ms;
      tally.slowest = `${request.method} ${request.routeOptions.url ?? request.url}`;
    }
  });
  if (options.summaryEveryMs === undefined) return;
  const every = options.summaryEveryMs;
  const timer = setInterval(() => {
    const { requests, byStatus, slow, slowestMs, slowest } = tally;
    tally = emptyTally();
    if (requests === 0) return;
    log.info({ requests, byStatus, slow, slowestMs, slowest, periodMs: every }, `HTTP: ${requests} request${requests === 1 ? '' : 's'} answered in the last ${every / 1000} s`);
  }, every);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
