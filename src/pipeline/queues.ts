import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { PipelineStage } from '../ledger/messages.repository.ts';
import type { StageScheduler } from './pipeline-deps.ts';

/**
 * The three BullMQ queues a document passes through — validate, apply, deliver — and
 * the scheduler that feeds them. A job carries only the message id, which is also its
 * job id: adding the same message twice while a job exists is a no-op, and the
 * message store, not Redis, is the truth about where a document stands.
 */
export const STAGES = ['validate', 'apply', 'deliver'] as const satisfies readonly PipelineStage[];

export interface QueueSettings {
  readonly redisUrl: string;
  /** BullMQ key prefix; tests use a unique one each. */
  readonly prefix: string;
  /** Attempts before a transiently failing job is dead. */
  readonly attempts: number;
  /** First retry delay; exponential with 50 % jitter after that. */
  readonly backoffMs: number;
}

export interface StageJobData {
  readonly messageId: string;
}

/** A Redis connection as BullMQ needs it: commands wait for a reconnect instead of failing. */
export function connectRedis(url: string, onError: (error: Error) => void = () => undefined): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
  // ioredis reconnects by itself; the listener keeps a lost connection from being an unhandled error.
  redis.on('error', onError);
  return redis;
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

  async enqueue(stage: PipelineStage, messageIds: readonly string[]): Promise<void> {
    if (messageIds.length === 0) return;
    await this.queues[stage].addBulk(
      messageIds.map((messageId) => ({ name: stage, data: { messageId }, opts: this.jobOptions(messageId) })),
    );
  }

  async requeue(stage: PipelineStage, messageId: string): Promise<void> {
    await this.queues[stage].remove(messageId);
    await this.enqueue(stage, [messageId]);
  }

  private jobOptions(messageId: string) {
    return {
      jobId: messageId,
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
