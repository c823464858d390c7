import type { PipelineStage } from '../ledger/messages/messages.repository.ts';
import { applyMessages } from './apply.stage.ts';
import { deliverResponses } from './deliver.stage.ts';
import type { PipelineDeps, StageScheduler } from './pipeline-deps.ts';
import { validateMessages } from './validate.stage.ts';

/**
 * Runs the next stage at once in the caller's process instead of queueing it: what
 * `submit` uses when no gateway is running. Same stage functions, same transactions,
 * no Redis. Errors surface to the caller instead of being retried.
 */
export class InlineScheduler implements StageScheduler {
  private deps: PipelineDeps | undefined;

  bind(deps: PipelineDeps): void {
    this.deps = deps;
  }

  async enqueue(stage: PipelineStage, messageIds: readonly string[]): Promise<void> {
    const deps = this.deps;
    if (!deps) throw new Error('InlineScheduler used before bind()');
    const run = { validate: validateMessages, apply: applyMessages, deliver: deliverResponses }[stage];
    // One message at a time, as the caller handed them over: each answered before the next.
    for (const messageId of messageIds) {
      const failures = await run(deps, [messageId]);
      const failure = failures.get(messageId);
      if (failures.size > 0) throw failure ?? [...failures.values()][0];
    }
  }

  requeue(stage: PipelineStage, messageId: string): Promise<void> {
    return this.enqueue(stage, [messageId]);
  }
}
