import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { PipelineStage } from '../ledger/messages/messages.repository.ts';
import { createHash } from 'node:crypto';
import type { EnqueueOptions, StageScheduler } from './pipeline-deps.ts';
import type { RedisSentinelConfig } from '../config/redis-sentinel.schema.ts';

/**
 * The three BullMQ queues a document passes through — validate, apply, deliver — and
 * the scheduler that feeds them. A job carries message ids only; the message store,
 * not Redis, is the truth about where a document stands. Messages handed over
 * together travel as one job (up to MAX_JOB_BATCH), so a folder drop of hundreds of
 * documents costs each stage a few queue operations, not hundreds. A job of one
 * message has the message id as its job id: adding the same message twice while its
 * job exists is a no-op — what the reconciler relies on, enqueueing `separately`.
 */
export const STAGES = ['validate', 'apply', 'deliver'] as const satisfies readonly PipelineStage[];

export interface QueueSettings {
  /** Where Redis is (for the record; the connection is made by connectRedis). */
  readonly redisUrl?: string;
  /** BullMQ key prefix; tests use a unique one each. */
  readonly prefix: string;
  /** Attempts before a transiently failing job is dead. */
  readonly attempts: number;
  /** First retry delay; exponential with 50 % jitter after that. */
  readonly backoffMs: number;
}

export interface StageJobData {
  readonly messageIds?: readonly string[];
  /** Jobs of one message written before batches existed. */
  readonly messageId?: string;
}

/** Messages one job carries at most. */
export const MAX_JOB_BATCH = 100;

/** The message ids of a job. */
export function idsOf(data: StageJobData): readonly string[] {
  return data.messageIds ?? (data.messageId ? [data.messageId] : []);
}

/** Where Redis is: a URL (one server), or a Sentinel set (`redis` in the configuration). */
export type RedisTarget = string | RedisSentinelConfig;

/**
 * A Redis connection as BullMQ needs it: commands wait for a reconnect instead of
 * failing (`maxRetriesPerRequest: null`, which BullMQ's workers require). Once `stopping`
 * is aborted a lost connection is no longer retried, so that closing ends even when
 * Redis has gone for good (BullMQ's own connections are duplicates of this one and keep
 * the same rules).
 *
 * A failover is followed: through Sentinel the primary is asked of the sentinels at every
 * (re)connection, and the connection is dropped as soon as a sentinel announces a new
 * primary (`failoverDetector`). A command that reaches a server that has become a replica
 * meanwhile fails READONLY without having written anything: the connection is dropped
 * and the command sent again once connected to the primary (`reconnectOnError` 2), with a
 * URL as well (a name that a managed Redis moves to its new primary).
 */
export function connectRedis(target: RedisTarget, onError: (error: Error) => void = () => undefined, stopping?: AbortSignal): Redis {
  // ioredis's own default delays while running.
  const retryStrategy = (times: number) => (stopping?.aborted ? null : Math.min(times * 50, 2000));
  const common = { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false, retryStrategy, reconnectOnError: resendOnReadOnly };
  const redis = typeof target === 'string'
    ? new Redis(target, common)
    : new Redis({
      ...common,
      sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
      name: target.name,
      role: 'master',
      db: target.db,
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      ...(target.sentinelUsername ? { sentinelUsername: target.sentinelUsername } : {}),
      ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
      sentinelRetryStrategy: (times: number) => (stopping?.aborted ? null : Math.min(times * 100, 1000)),
      failoverDetector: true,
    });
  // ioredis reconnects by itself; the listener keeps a lost connection from being an unhandled error.
  redis.on('error', onError);
  return redis;
}

/** READONLY: the server is a replica now (a failover): reconnect, to the primary, and send the command again. */
function resendOnReadOnly(error: Error): 2 | false {
  return error.message.startsWith('READONLY') ? 2 : false;
}

export class PipelineQueues implements StageScheduler {
  readonly queues: Readonly<Record<PipelineStage, Queue<StageJobData>>>;

  constructor(
    readonly connection: Redis,
    private readonly settings: QueueSettings,
  ) {
    const make = (stage: PipelineStage) => {
      const queue = new Queue<StageJobData>(stage, { connection, prefix: settings.prefix });
      // Connection errors are reported once by the shared connection's listener; ioredis reconnects.
      queue.on('error', () => undefined);
      return queue;
    };
    this.queues = { validate: make('validate'), apply: make('apply'), deliver: make('deliver') };
  }

  async enqueue(stage: PipelineStage, messageIds: readonly string[], options: EnqueueOptions = {}): Promise<void> {
    if (messageIds.length === 0) return;
    const batches = options.separately ? messageIds.map((id) => [id]) : chunk(messageIds, MAX_JOB_BATCH);
    await this.queues[stage].addBulk(
      batches.map((ids) => ({ name: stage, data: { messageIds: ids }, opts: this.jobOptions(jobIdOf(ids)) })),
    );
  }

  async requeue(stage: PipelineStage, messageId: string): Promise<void> {
    await this.queues[stage].remove(messageId);
    await this.enqueue(stage, [messageId]);
  }

  private jobOptions(jobId: string) {
    return {
      jobId,
      attempts: this.settings.attempts,
      backoff: { type: 'exponential', delay: this.settings.backoffMs, jitter: 0.5 },
      removeOnComplete: true,
      // Failed jobs stay a week for the dashboard; the message store keeps them for good.
      removeOnFail: { age: 7 * 24 * 3600 },
    };
  }

  /** Jobs per state and queue, for health and the console. */
  async counts(): Promise<Record<PipelineStage, Record<string, number>>> {
    const entries = await Promise.all(
      STAGES.map(async (stage) => [stage, await this.queues[stage].getJobCounts('waiting', 'active', 'delayed', 'failed')] as const),
    );
    return Object.fromEntries(entries) as Record<PipelineStage, Record<string, number>>;
  }

  async close(): Promise<void> {
    await Promise.all(STAGES.map((stage) => this.queues[stage].close()));
  }
}

/** One message: its id. Several: the first id, the count and a hash of all, so the same batch added twice is one job. */
function jobIdOf(ids: readonly string[]): string {
  const [first] = ids;
  if (ids.length === 1 && first !== undefined) return first;
  return `${first}-${ids.length}-${createHash('sha1').update(ids.join(',')).digest('hex').slice(0, 12)}`;
}

function chunk<T>(values: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < values.length; start += size) chunks.push(values.slice(start, start + size));
  return chunks;
}
