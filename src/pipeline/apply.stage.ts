import { stockholmDate } from '../core/calendar-date.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { findWaitingPredecessor, lockMessage, markFinished } from '../ledger/messages.repository.ts';
import { insertResponse } from '../ledger/responses.repository.ts';
import { buildResponse, documentStatus, responseFileName } from '../messages/response-builder.ts';
import { requestNameOf } from './finish-rejected.ts';
import type { PipelineDeps } from './pipeline-deps.ts';

/**
 * Apply: runs the type's handler inside ONE transaction that also stores the response
 * and moves the message to its final status. A crash before the commit leaves nothing
 * behind; a retry after the commit finds the message no longer `validated` and does
 * nothing. That is how an at-least-once queue gives an exactly-once effect.
 *
 * Ordering: the transaction takes an advisory lock on the document's ordering key
 * (the agreement) and refuses to go ahead of an earlier message for the same key — or
 * an earlier, not yet validated message from the same sender — by throwing
 * WAITING_FOR_PREDECESSOR; the worker puts the job back for a moment without counting
 * an attempt.
 */
export type ApplyResult = 'applied' | 'rejected' | 'skipped';

export async function applyMessage(deps: PipelineDeps, messageId: string): Promise<ApplyResult> {
  const now = deps.clock();
  const result = await deps.db.transaction(async (tx): Promise<ApplyResult> => {
    const message = await lockMessage(tx, messageId);
    if (!message || message.status !== 'validated' || !message.messageType || !message.orderingKey) return 'skipped';
    const type = deps.catalogue.get(message.messageType);
    if (!type) throw new GatewayError('INTERNAL_ERROR', `no handler for ${message.messageType}`);

    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [message.orderingKey]);
    const predecessor = await findWaitingPredecessor(tx, { seq: message.seq, orderingKey: message.orderingKey, counterpartyId: message.counterpartyId });
    if (predecessor) throw new GatewayError('WAITING_FOR_PREDECESSOR', `${messageId} waits for ${predecessor}`);

    const counterparty = deps.counterparties.get(message.counterpartyId);
    const outcome = await type.apply(
      {
        tx,
        messageId,
        sender: { counterpartyId: message.counterpartyId, organisationNumber: counterparty?.organisationNumber ?? '' },
        today: stockholmDate(now),
        rules: deps.rules,
      },
      message.document as never,
    );
    const status = documentStatus(outcome);
    await insertResponse(tx, {
      messageId,
      documentType: type.responseName,
      fileName: responseFileName(requestNameOf(message), messageId, type.responseName),
      body: buildResponse({ responseName: type.responseName, gatewayMessageId: messageId, inResponseTo: type.senderMessageId(message.document as never), createdAt: now, outcome }),
    });
    const rejected = status === 'Rejected';
    await markFinished(tx, messageId, {
      status: rejected ? 'rejected' : 'applied',
      outcome: rejected ? 'rejected' : status === 'Accepted' ? 'accepted' : 'partially_accepted',
      messageType: type.name,
      errorCode: outcome.errors[0]?.code ?? outcome.items.find((item) => item.code)?.code ?? null,
      reason: `${status}: ${outcome.items.filter((item) => item.status === 'Accepted').length} of ${outcome.items.length} items accepted`,
    });
    return rejected ? 'rejected' : 'applied';
  });
  if (result !== 'skipped') await deps.scheduler.enqueue('deliver', [messageId]);
  return result;
}
