import { GatewayError } from '../core/gateway-error.ts';
import type { Database } from '../ledger/database.ts';
import { addEvent, lockMessage, type MessageStatus, type PipelineStage } from '../ledger/messages/messages.repository.ts';
import { outgoingDocumentDelivery } from '../ledger/messages/outgoing-documents.repository.ts';
import { outgoingDeliveryKey } from './deliver-outgoing.ts';
import type { StageScheduler } from './pipeline-deps.ts';

/**
 * Replay: puts a dead message back into the stage where it died, after the cause was
 * fixed (a counterparty's folder restored, a database back, a handler corrected). Only
 * dead messages can be replayed: a message applied once is never applied again. A
 * document the gateway started itself (a debit run's `DA-…`) that is not delivered yet
 * is replayed too: its recorded file goes back to the deliver stage.
 */
export async function replayMessage(db: Database, scheduler: StageScheduler, messageId: string): Promise<PipelineStage> {
  const stage = await db.transaction(async (tx) => {
    const message = await lockMessage(tx, messageId);
    if (!message) return undefined;
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
  if (stage === undefined) return replayOutgoingDocument(db, scheduler, messageId);
  await scheduler.requeue(stage, messageId);
  return stage;
}

async function replayOutgoingDocument(db: Database, scheduler: StageScheduler, documentId: string): Promise<PipelineStage> {
  const document = await outgoingDocumentDelivery(db, documentId);
  if (!document) throw new GatewayError('MESSAGE_NOT_FOUND', documentId);
  if (document.deliveredAt) throw new GatewayError('MESSAGE_NOT_REPLAYABLE', `${documentId} was delivered at ${document.deliveredAt.toISOString()}.`);
  await scheduler.requeue('deliver', outgoingDeliveryKey(documentId));
  return 'deliver';
}
