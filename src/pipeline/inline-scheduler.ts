import type { PipelineStage } from '../ledger/messages.repository.ts';
import { applyMessage } from './apply.stage.ts';
import { deliverResponse } from './deliver.stage.ts';
import type { PipelineDeps, StageScheduler } from './pipeline-deps.ts';
import { validateMessage } from './validate.stage.ts';

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
    for (const messageId of messageIds) {
      switch (stage) {
        case 'validate':
          await validateMessage(deps, messageId);
          break;
        case 'apply':
          await applyMessage(deps, messageId);
          break;
        case 'deliver':
          await deliverResponse(deps, messageId);
          break;
        default:
          stage satisfies never;
      }
    }
  }

  requeue(stage: PipelineStage, messageId: string): Promise<void> {
    return this.enqueue(stage, [messageId]);
  }
}
