import { GatewayError } from '../core/gateway-error.ts';
import type { Database } from '../ledger/database.ts';
import { addEvent, lockMessage, type MessageStatus, type PipelineStage } from '../ledger/messages.repository.ts';
import type { StageScheduler } from './pipeline-deps.ts';

/**
 * Replay: puts a dead message back into the stage where it died, after the cause was
 * fixed (a counterparty's folder restored, a database back, a handler corrected). Only
 * dead messages can be replayed: a message applied once is never applied again.
 */
export async function replayMessage(db: Database, scheduler: StageScheduler, messageId: string): Promise<PipelineStage> {
  const stage = await db.transaction(async (tx) => {
    const message = await lockMessage(tx, messageId);
    if (!message) throw new GatewayError('MESSAGE_NOT_FOUND', messageId);
    if (message.status !== 'dead' || !message.deadStage) {
      throw new GatewayError('MESSAGE_NOT_REPLAYABLE', `${messageId} is ${message.status}.`);
    }
    const status: MessageStatus =
      message.deadStage === 'validate' ? 'received'
      : message.deadStage === 'apply' ? 'validated'
      : message.duplicateOf ? 'duplicate'
      : message.outcome === 'rejected' ? 'rejected'
      : 'applied';
    await tx.query(`UPDATE messages SET status = $2, dead_stage = NULL, updated_at = now() WHERE id = $1`, [messageId, status]);
    await addEvent(tx, messageId, status, `replayed from ${message.deadStage}`);
    return message.deadStage;
  });
  await scheduler.requeue(stage, messageId);
  return stage;
}
