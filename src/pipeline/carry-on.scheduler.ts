import type { PipelineStage } from '../ledger/messages/messages.repository.ts';
import type { EnqueueOptions, StageScheduler } from './pipeline-deps.ts';

/** Runs a stage on messages; gives those it could not finish, by id, with why. */
export type StageRun = (messageIds: readonly string[]) => Promise<Map<string, unknown>>;

/**
 * The scheduler of the stage workers: a batch goes straight on to the next stage in
 * the same job — validated documents are applied, applied ones delivered — instead of
 * taking a queue round trip (add, fetch, complete) per stage. The queues stay for
 * everything else: whatever a stage run this way cannot finish (its agreement busy, an
 * earlier document still pending, a failed delivery) goes on that stage's queue one
 * message per job, where the stage worker waits, retries and marks dead as for any
 * job; a stage that throws (the database away) hands the whole batch to its queue.
 * Validation is always queued — intake's door — and so is whatever the reconciler
 * re-enqueues (`separately`). Each stage stays idempotent and guarded by the message's
 * status, so running it here or from its queue has the same effect.
 */
export class CarryOnScheduler implements StageScheduler {
  constructor(
    private readonly queues: StageScheduler,
    private readonly runs: Readonly<Record<Exclude<PipelineStage, 'validate'>, StageRun>>,
    private readonly onError: (stage: PipelineStage, error: unknown) => void = () => undefined,
  ) {}

  async enqueue(stage: PipelineStage, messageIds: readonly string[], options: EnqueueOptions = {}): Promise<void> {
    if (messageIds.length === 0) return;
    if (stage === 'validate' || options.separately) return this.queues.enqueue(stage, messageIds, options);
    let unfinished: Map<string, unknown>;
    try {
      unfinished = await this.runs[stage](messageIds);
    } catch (error) {
      this.onError(stage, error);
      return this.queues.enqueue(stage, messageIds);
    }
    if (unfinished.size > 0) await this.queues.enqueue(stage, [...unfinished.keys()], { separately: true });
  }

  requeue(stage: PipelineStage, messageId: string): Promise<void> {
    return this.queues.requeue(stage, messageId);
  }
}
