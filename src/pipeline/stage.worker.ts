import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { isGatewayError } from '../core/gateway-error.ts';
import { isErrorCode, type ErrorCode } from '../core/error-codes.ts';
import type { Database } from '../ledger/database.ts';
import { markDead, type PipelineStage } from '../ledger/messages.repository.ts';
import type { StageJobData } from './queues.ts';

/**
 * Runs one pipeline stage as a BullMQ worker and maps the stage's errors to the queue:
 *  - WAITING_FOR_PREDECESSOR: the job goes back to the queue for a moment, no attempt counted;
 *  - a non-retryable GatewayError: the job fails at once (UnrecoverableError);
 *  - anything else: retried with exponential backoff and jitter;
 *  - when the last attempt fails, the message is marked dead in the message store,
 *    visible to staff and replayable.
 * close() lets active jobs finish (graceful shutdown on SIGTERM).
 */
export interface StageWorkerOptions {
  readonly stage: PipelineStage;
  readonly execute: (messageId: string) => Promise<unknown>;
  readonly connection: Redis;
  readonly prefix: string;
  readonly concurrency: number;
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
  readonly db: Database;
  readonly log: Logger;
}

/** How long a job waiting for an earlier document of its agreement steps aside (plus up to as much again). */
const PREDECESSOR_WAIT_MS = 100;

export function startStageWorker(options: StageWorkerOptions): Worker<StageJobData> {
  const { stage, log } = options;
  const worker = new Worker<StageJobData>(
    stage,
    async (job: Job<StageJobData>, token?: string) => {
      try {
        return await options.execute(job.data.messageId);
      } catch (error) {
        if (isGatewayError(error) && error.code === 'WAITING_FOR_PREDECESSOR' && token) {
          await job.moveToDelayed(Date.now() + PREDECESSOR_WAIT_MS + Math.floor(Math.random() * PREDECESSOR_WAIT_MS * 2), token);
          throw new DelayedError();
        }
        if (isGatewayError(error) && !error.retryable) throw new UnrecoverableError(`${error.code}: ${error.message}`);
        throw error;
      }
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs,
      stalledInterval: options.stalledIntervalMs,
      // Stages are idempotent: a job whose worker died may safely run again, however often.
      maxStalledCount: 1000,
      autorun: true,
    },
  );

  worker.on('failed', (job, error) => {
    if (!job) return;
    const exhausted = error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    const messageId = job.data.messageId;
    if (!exhausted) {
      log.warn({ messageId, stage, attempt: job.attemptsMade, err: error.message }, 'stage failed; will retry');
      return;
    }
    const code = codeOf(error);
    log.error({ messageId, stage, code, err: error.message }, 'message is dead after its last attempt');
    const reason = `${stage} failed after ${job.attemptsMade} attempts: ${error.message}`;
    options.db.transaction((tx) => markDead(tx, messageId, stage, code, reason)).catch(
      (markError: unknown) => log.error({ messageId, err: markError }, 'could not mark the message dead; the reconciler will retry it'),
    );
  });
  worker.on('error', (error) => log.warn({ stage, err: error.message }, 'queue connection problem'));
  return worker;
}

/** The registered code of a failure; UnrecoverableError carries it as "CODE: text". */
function codeOf(error: Error): ErrorCode {
  if (isGatewayError(error)) return error.code;
  const prefix = /^([A-Z][A-Z_]+):/.exec(error.message)?.[1];
  return prefix && isErrorCode(prefix) ? prefix : 'INTERNAL_ERROR';
}
