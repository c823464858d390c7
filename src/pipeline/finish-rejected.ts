import type { Sql } from '../ledger/database.ts';
import { markFinished } from '../ledger/messages/messages.repository.ts';
import { insertResponse } from '../ledger/messages/responses.repository.ts';
import type { DocumentErrorOutcome } from '../messages/message-type.ts';
import { buildResponse, responseFileName } from '../messages/response-builder.ts';

/**
 * Writes the rejection of a whole document: the response naming every error, and the
 * message's final status, in the caller's transaction. Used by intake (duplicates,
 * oversized files) and by validation (hostile, malformed, schema-invalid documents).
 */
export interface Rejection {
  readonly messageId: string;
  /** The request's type when known; the response is then <Type>Response, otherwise MessageRejected. */
  readonly messageType: string | null;
  readonly responseName: string;
  readonly inResponseTo?: string | undefined;
  readonly requestName: string;
  readonly errors: readonly DocumentErrorOutcome[];
  readonly now: Date;
}

export async function writeRejectionResponse(tx: Sql, rejection: Rejection): Promise<void> {
  const body = buildResponse({
    responseName: rejection.responseName,
    gatewayMessageId: rejection.messageId,
    inResponseTo: rejection.inResponseTo,
    createdAt: rejection.now,
    outcome: { items: [], errors: rejection.errors },
  });
  await insertResponse(tx, {
    messageId: rejection.messageId,
    documentType: rejection.responseName,
    fileName: responseFileName(rejection.requestName, rejection.messageId, rejection.responseName),
    body,
  });
}

export async function finishRejected(tx: Sql, rejection: Rejection): Promise<void> {
  await writeRejectionResponse(tx, rejection);
  const first = rejection.errors[0];
  await markFinished(tx, rejection.messageId, {
    from: 'received',
    status: 'rejected',
    outcome: 'rejected',
    messageType: rejection.messageType,
    errorCode: first?.code ?? null,
    reason: first ? `${first.code}: ${first.text}` : 'rejected',
  });
}

/** The name the sender knows the request by, for the response's file name. */
export function requestNameOf(message: { externalId: string; metadata: Record<string, unknown> }): string {
  const fileName = message.metadata.fileName;
  return typeof fileName === 'string' ? fileName : message.externalId;
}
