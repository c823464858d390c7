import type { Logger } from 'pino';

/**
 * Closing what talks to Redis, with a bound. Closing a BullMQ worker or queue waits
 * for Redis to answer; when Redis is gone or hung — a service manager stops the
 * private redis-server together with the gateway — that wait has no end. A part that
 * has not closed within its time is left behind (its jobs' locks expire and another
 * worker or the reconciler takes them up: the message store is the truth), so that
 * the steps after it, the database's close above all, still run.
 */
export async function closeWithin(what: string, close: () => Promise<unknown>, limitMs: number, log: Logger): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), limitMs)));
  try {
    const closed = await Promise.race([close().then(() => true as const), late]);
    if (!closed) log.warn({ part: what, limitMs }, 'not closed in time; stopping without it');
    return closed;
  } finally {
    clearTimeout(timer);
  }
}
