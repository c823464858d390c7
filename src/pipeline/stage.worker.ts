import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { isGatewayError } from '../core/gateway-error.ts';
import { isErrorCode, type ErrorCode } from '../core/error-codes.ts';
import type { Database } from '../ledger/database.ts';
import { markDead, type PipelineStage } from '../ledger/messages/messages.repository.ts';
import { idsOf, type StageJobData } from './queues.ts';
import type { GatewayMetrics } from '../observability/gateway-metrics.ts';

/**
 * Runs one pipeline stage as a BullMQ worker. A job carries one message or a batch;
 * the stage reports which of them failed. A failure in a batch does not hold back
 * its neighbours: the failed messages are enqueued again one job each, and from then
 * on a one-message job maps the stage's errors to the queue:
 *  - WAITING_FOR_PREDECESSOR: the job goes back to the queue for a moment, no attempt counted;
 *  - DATABASE_UNAVAILABLE while the database does not answer at all (PostgreSQL
 *    restarting): the job, batch or not, waits a second or two and runs again, no attempt
 *    counted — an outage is no fault of the message, and attempts burnt during it would
 *    leave it dead, or waiting out a long backoff, after the database is back;
 *  - a non-retryable GatewayError: the job fails at once (UnrecoverableError);
 *  - anything else: retried with exponential backoff and jitter;
 *  - when the last attempt fails, the message is marked dead in the message store,
 *    visible to staff and replayable.
 * close() lets active jobs finish (graceful shutdown on SIGTERM).
 */
export interface StageWorkerOptions {
  readonly stage: PipelineStage;
  /** Runs the stage on the messages; gives those that failed, by id, with their errors. */
  readonly run: (messageIds: readonly string[]) => Promise<Map<string, unknown>>;
  /** Enqueues messages again on this stage, one job each. */
  readonly enqueueSeparately: (messageIds: readonly string[]) => Promise<void>;
  readonly connection: Redis;
  readonly prefix: string;
  readonly concurrency: number;
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
  readonly db: Database;
  readonly log: Logger;
  /** Where each job's time and each dead message are counted. */
  readonly metrics?: GatewayMetrics | undefined;
}

/** How long a job waiting for an earlier document of its agreement steps aside (plus up to as much again). */
const PREDECESSOR_WAIT_MS = 100;
/** How long a job steps aside while the database is away (plus up to as much again). */
const DATABASE_WAIT_MS = 1000;
/** A job's lock is renewed every lockDurationMs / LOCK_RENEWALS. */
const LOCK_RENEWALS = 5;

export function startStageWorker(options: StageWorkerOptions): Worker<StageJobData> {
  const { stage, log } = options;
  const warnDatabaseAway = throttled(() => log.warn({ stage }, 'the database does not answer; jobs wait for it without counting attempts'));
  const worker = new Worker<StageJobData>(
    stage,
    async (job: Job<StageJobData>, token?: string) => {
      const ids = idsOf(job.data);
      let failures: Map<string, unknown>;
      const started = performance.now();
      try {
        failures = await options.run(ids);
      } catch (error) {
        if (token && isDatabaseError(error) && (await databaseAway(options.db))) await waitForDatabase(job, token);
        throw error;
      } finally {
        options.metrics?.stageJobTook(stage, (performance.now() - started) / 1000);
      }
      if (failures.size === 0) return;
      if (token && [...failures.values()].every(isDatabaseError) && (await databaseAway(options.db))) await waitForDatabase(job, token);
      if (ids.length > 1) {
        log.debug({ stage, failed: failures.size, of: ids.length }, 'batch partly failed; the failed messages go on one job each');
        await options.enqueueSeparately([...failures.keys()]);
        return;
      }
      const error = [...failures.values()][0];
      if (isGatewayError(error) && error.code === 'WAITING_FOR_PREDECESSOR' && token) {
        await job.moveToDelayed(Date.now() + PREDECESSOR_WAIT_MS + Math.floor(Math.random() * PREDECESSOR_WAIT_MS * 2), token);
        throw new DelayedError();
      }
      if (isGatewayError(error) && !error.retryable) throw new UnrecoverableError(`${error.code}: ${error.message}`);
      throw error;
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs,
      // Renewed five times a lock, not BullMQ's twice: a short lock (a dead worker's jobs
      // go on within seconds) that a live worker keeps through a few seconds' stall.
      lockRenewTime: Math.max(200, Math.floor(options.lockDurationMs / LOCK_RENEWALS)),
      stalledInterval: options.stalledIntervalMs,
      // Stages are idempotent: a job whose worker died may safely run again, however often.
      maxStalledCount: 1000,
      autorun: true,
    },
  );

  async function waitForDatabase(job: Job<StageJobData>, token: string): Promise<never> {
    warnDatabaseAway();
    await job.moveToDelayed(Date.now() + DATABASE_WAIT_MS + Math.floor(Math.random() * DATABASE_WAIT_MS), token);
    throw new DelayedError();
  }

  worker.on('failed', (job, error) => {
    if (!job) return;
    const exhausted = error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    const ids = idsOf(job.data);
    const [messageId] = ids;
    if (messageId === undefined) return;
    if (!exhausted) {
      log.warn({ messageId, stage, attempt: job.attemptsMade, err: error.message }, 'stage failed; will retry');
      return;
    }
    if (ids.length > 1) {
      // A whole batch failed every attempt (the database away that long): its messages go on alone.
      log.error({ stage, count: ids.length, err: error.message }, 'batch failed after its last attempt; its messages are enqueued one by one');
      options.enqueueSeparately(ids).catch((enqueueError: unknown) => log.error({ err: enqueueError }, 'could not enqueue; the reconciler will'));
      return;
    }
    const code = codeOf(error);
    log.error({ messageId, stage, code, err: error.message }, 'message is dead after its last attempt');
    const reason = `${stage} failed after ${job.attemptsMade} attempts: ${error.message}`;
    options.db.transaction((tx) => markDead(tx, messageId, stage, code, reason)).then((marked) => {
      if (marked) options.metrics?.messageDead(stage);
    }).catch(
      (markError: unknown) => log.error({ messageId, err: markError }, 'could not mark the message dead; the reconciler will retry it'),
    );
  });
  worker.on('error', (error) => log.warn({ stage, err: error.message }, 'queue connection problem'));
  return worker;
}

function isDatabaseError(error: unknown): boolean {
  return isGatewayError(error) && error.code === 'DATABASE_UNAVAILABLE';
}

/**
 * Whether the database answers at all. DATABASE_UNAVAILABLE also stands for a deadlock
 * or a serialization failure of one transaction; those are retried as any failure, with
 * attempts counted, so a document that always fails that way still ends dead.
 */
async function databaseAway(db: Database): Promise<boolean> {
  try {
    await db.query('SELECT 1');
    return false;
  } catch {
    return true;
  }
}

/** At most one call per 5 s: an outage must not flood the log. */
function throttled(fn: () => void): () => void {
  let last = 0;
  return () => {
    if (Date.now() - last < 5000) return;
    last = Date.now();
    fn();
  };
}

/** The registered code of a failure; UnrecoverableError carries it as "CODE: text". */
function codeOf(error: Error): ErrorCode {
  if (isGatewayError(error)) return error.code;
  const prefix = /^([A-Z][A-Z_]+):/.exec(error.message)?.[1];
  return prefix && isErrorCode(prefix) ? prefix : 'INTERNAL_ERROR';
}
