import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { IntakeReceipt } from '../../channels/envelope.ts';
import { settleSubmissionWorkFile } from '../../channels/submission-work-file.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import { getMessage, listEvents, listMessages, type MessageStatus } from '../../ledger/messages/messages.repository.ts';
import { getResponse, listDeliveries } from '../../ledger/messages/responses.repository.ts';
import { replayMessage } from '../../pipeline/replay.ts';
import { newSubmissionKey } from '../../pipeline/message-id.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { readSubmissionBody } from './submission-body.ts';

/**
 * The staff message API: hand a document to intake on a counterparty's behalf (what
 * `depot-gateway submit` uses against a running gateway), list and inspect messages,
 * read a response, replay a dead message. A submitted body is read as a stream, so a
 * document over `limits.maxDocumentBytes` is recorded and refused with
 * DOCUMENT_TOO_LARGE (202, its receipt saying so) as on every other channel, not cut
 * off by the server's body limit.
 */
export async function registerMessageRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps, intake } = options;

  await app.register(async (scope) => {
    // The body stays a stream here: readSubmissionBody keeps a large one out of memory.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(['application/xml', 'text/xml', 'application/octet-stream'], (_request, payload, done) => done(null, payload));
    scope.post<{ Querystring: { from?: string; name?: string } }>('/api/messages', async (request, reply) => {
      const from = request.query.from;
      if (!from) throw new GatewayError('REQUEST_INVALID', 'The query parameter "from" (counterparty id) is required.');
      if (!(request.body instanceof Readable)) throw new GatewayError('REQUEST_INVALID', 'Send the document as the body, with Content-Type application/xml.');
      const name = request.query.name ?? `submitted-${Date.now()}.xml`;
      const body = await readSubmissionBody(request.body, options.config.dataDir, name, deps.limits);
      let receipt: IntakeReceipt | undefined;
      try {
        receipt = await intake.receive({
          channel: 'cli', counterpartyId: from, externalId: newSubmissionKey(), receivedAt: deps.clock(),
          content: body.content, metadata: { fileName: name, submittedBy: staffUser(request.headers.authorization) },
        });
      } finally {
        if (body.workFile) await settleSubmissionWorkFile(body.workFile, receipt);
      }
      // A refused document (duplicate, too large) is recorded and answered like any other: its receipt says so.
      return reply.code(202).send(receipt);
    });
  });

  app.get<{ Querystring: { status?: MessageStatus; counterparty?: string; type?: string; limit?: string; before?: string } }>(
    '/api/messages',
    async (request) => {
      const { status, counterparty, type, limit, before } = request.query;
      const messages = await listMessages(deps.db, {
        ...(status ? { status } : {}), ...(counterparty ? { counterpartyId: counterparty } : {}), ...(type ? { messageType: type } : {}),
        limit: Math.min(Number(limit ?? 100), 1000), ...(before ? { beforeSeq: Number(before) } : {}),
      });
      return { messages };
    },
  );

  app.get<{ Params: { id: string } }>('/api/messages/:id', async (request) => {
    const message = await getMessage(deps.db, request.params.id);
    if (!message) throw new GatewayError('MESSAGE_NOT_FOUND', request.params.id);
    const [events, response, deliveries] = await Promise.all([
      listEvents(deps.db, message.id), getResponse(deps.db, message.id, deps.documents), listDeliveries(deps.db, message.id),
    ]);
    return { message, events, response: response ? { ...response, body: undefined } : null, deliveries };
  });

  app.get<{ Params: { id: string } }>('/api/messages/:id/response', async (request, reply) => {
    const response = await getResponse(deps.db, request.params.id, deps.documents);
    if (!response) throw new GatewayError('MESSAGE_NOT_FOUND', `${request.params.id} has no response yet`);
    return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${response.fileName}"`).send(response.body);
  });

  app.post<{ Params: { id: string } }>('/api/messages/:id/replay', async (request) => {
    const stage = await replayMessage(deps.db, deps.scheduler, request.params.id);
    return { messageId: request.params.id, replayedFrom: stage };
  });
}

/** The staff user name from an HTTP Basic header (already verified by the auth hook), for the message's record. */
function staffUser(authorization: string | undefined): string {
  const encoded = /^Basic\s+(.+)$/i.exec(authorization ?? '')?.[1];
  const decoded = encoded ? Buffer.from(encoded, 'base64').toString('utf8') : '';
  return decoded.includes(':') ? decoded.slice(0, decoded.indexOf(':')) : 'unknown';
}
