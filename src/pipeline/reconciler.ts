import type { Logger } from 'pino';
import type { Database } from '../ledger/database.ts';
import { listStalled, type PipelineStage } from '../ledger/messages/messages.repository.ts';
import { listStalledOutgoingDocuments } from '../ledger/messages/outgoing-documents.repository.ts';
import { outgoingDeliveryKey } from './deliver-outgoing.ts';
import type { StageScheduler } from './pipeline-deps.ts';

/**
 * The reconciler makes the message store, not Redis, the truth. Every few seconds it
 * finds messages that have sat in a stage longer than a threshold — received but not
 * validated, validated but not applied, answered but not delivered — and enqueues them
 * again, one job each. Such a job's id is the message id, so a message whose own job
 * still exists is not doubled (one that sits in a batch job may run twice); one whose job was lost (Redis restarted empty, a crash between commit and
 * enqueue) is picked up. Stages are idempotent, so a spare run is harmless. Documents
 * the gateway started itself (a debit run's file) recorded but not delivered are put
 * back on the deliver queue the same way, by their delivery key.
 */
export interface ReconcilerOptions {
  readonly db: Database;
  readonly scheduler: StageScheduler;
  readonly everyMs: number;
  readonly olderThanMs: number;
  readonly log: Logger;
  /** Messages re-enqueued per sweep and stage; default 5000. */
  readonly batch?: number;
}

export async function reconcileOnce(options: ReconcilerOptions): Promise<number> {
  const stalled = await listStalled(options.db, options.olderThanMs, options.batch ?? 5000);
  const documents = await listStalledOutgoingDocuments(options.db, options.olderThanMs, options.batch ?? 5000);
  const byStage = new Map<PipelineStage, string[]>();
  for (const { id, stage } of stalled) byStage.set(stage, [...(byStage.get(stage) ?? []), id]);
  if (documents.length > 0) byStage.set('deliver', [...(byStage.get('deliver') ?? []), ...documents.map(outgoingDeliveryKey)]);
  for (const [stage, ids] of byStage) await options.scheduler.enqueue(stage, ids, { separately: true });
  const count = stalled.length + documents.length;
  if (count > 0) options.log.info({ count, documents: documents.length || undefined }, 'reconciler re-enqueued stalled messages');
  return count;
}

/** Runs reconcileOnce now and every `everyMs`; returns a stop function. */
export function startReconciler(options: ReconcilerOptions): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    running = reconcileOnce(options).catch((error: unknown) => options.log.warn({ err: (error as Error).message }, 'reconciler sweep failed'));
  };
  sweep();
  const timer = setInterval(sweep, options.everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
