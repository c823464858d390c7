import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../../config/config.schema.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import type { Envelope, IntakePort } from '../../channels/envelope.ts';
import { getMessage } from '../../ledger/messages/messages.repository.ts';
import { getResponse } from '../../ledger/messages/responses.repository.ts';
import type { PipelineDeps } from '../../pipeline/pipeline-deps.ts';
import { PasswordCheck } from '../password-check.ts';
import type { LoginThrottle } from '../login-throttle.ts';

/**
 * The custodians' REST door: POST /Holdings and POST /Transactions carry the same
 * documents as the SFTP folders and go through the same intake. A custodian signs in
 * with HTTP Basic (its counterparty id and the password whose hash is
 * `counterparties[].rest.passwordHash`); wrong credentials count in the login throttle.
 *
 * The body is streamed to a work file, never held whole in memory: a day's Holdings
 * may be hundreds of megabytes (up to limits.maxReportBytes). The answer is 202 with
 * the gateway's message id once intake has recorded the document; `?wait=<seconds>`
 * (at most 60) waits for the acknowledgement and returns it (200, XML) when it is ready
 * in time. GET /Holdings/{messageId} (or /Transactions/…) fetches it later.
 */
export interface ReportingRoutesOptions {
  readonly config: Readonly<GatewayConfig>;
  readonly deps: PipelineDeps;
  readonly intake: IntakePort;
  /** Wrong credentials per client address, shared with the staff login. */
  readonly throttle: LoginThrottle;
}

const REPORT_PATHS = ['Holdings', 'Transactions'] as const;
const MAX_WAIT_SECONDS = 60;

export async function registerReportingRoutes(app: FastifyInstance, options: ReportingRoutesOptions): Promise<void> {
  const { config, deps, intake } = options;
  const workDir = resolve(config.dataDir, 'rest-work');
  const passwords = new PasswordCheck(config.counterparties.flatMap((c) => (c.role === 'custodian' && c.rest ? [{ name: c.id, ...c.rest }] : [])));
  const authenticate = (request: FastifyRequest) => authenticateCustodian(request, passwords, options.throttle);

  await app.register(async (scope) => {
    // The body stays a stream here: the handler copies it to a file.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    for (const path of REPORT_PATHS) {
      scope.post(`/${path}`, async (request, reply) => {
        const counterpartyId = await authenticate(request);
        const received = await receiveBody(request, workDir, deps.limits.maxReportBytes);
        const envelope: Envelope = {
          channel: 'rest',
          counterpartyId,
          externalId: idempotencyKey(request) ?? `rest-${received.name}`,
          receivedAt: deps.clock(),
          content: received.size <= deps.limits.maxDocumentBytes ? { bytes: await readFile(received.path) } : { path: received.path, setAsidePath: received.path },
          metadata: { path: `/${path}`, fileName: `${path}.xml`, remoteAddress: request.ip },
        };
        let keepFile = false;
        try {
          const receipt = await intake.receive(envelope);
          keepFile = receipt.errorCode === 'DOCUMENT_TOO_LARGE';
          if (receipt.status === 'duplicate') {
            throw new GatewayError('DUPLICATE_DOCUMENT', `Duplicate of ${receipt.duplicateOf}; recorded as ${receipt.messageId} and not processed again.`);
          }
          if (receipt.status === 'rejected') throw new GatewayError(receipt.errorCode ?? 'DOCUMENT_TOO_LARGE', `Recorded as ${receipt.messageId}, not processed.`);
          const waitSeconds = Math.min(Number((request.query as { wait?: string }).wait ?? 0) || 0, MAX_WAIT_SECONDS);
          return await answer(reply, deps, receipt.messageId, path, waitSeconds * 1000);
        } finally {
          if (!keepFile) await rm(received.path, { force: true });
        }
      });

      scope.get<{ Params: { messageId: string } }>(`/${path}/:messageId`, async (request, reply) => {
        const counterpartyId = await authenticate(request);
        const message = await getMessage(deps.db, request.params.messageId);
        // Another custodian's message is answered as if it did not exist.
        if (!message || message.counterpartyId !== counterpartyId) throw new GatewayError('MESSAGE_NOT_FOUND', `No message ${request.params.messageId} of yours.`);
        return answer(reply, deps, message.id, path, 0);
      });
    }
  });
}

/** The acknowledgement when it is ready (within `waitMs`), else 202 with where to fetch it. */
async function answer(reply: FastifyReply, deps: PipelineDeps, messageId: string, path: string, waitMs: number) {
  const until = Date.now() + waitMs;
  for (;;) {
    const response = await getResponse(deps.db, messageId, deps.documents);
    if (response) return reply.code(200).type('application/xml').header('x-gateway-message-id', messageId).send(response.body);
    if (Date.now() >= until) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  const message = await getMessage(deps.db, messageId);
  return reply.code(202).header('location', `/${path}/${messageId}`).send({ messageId, status: message?.status ?? 'received', acknowledgement: `/${path}/${messageId}` });
}

async function authenticateCustodian(request: FastifyRequest, passwords: PasswordCheck, throttle: LoginThrottle): Promise<string> {
  throttle.assertAllowed(request.ip);
  const header = request.headers.authorization ?? '';
  const match = /^Basic\s+(\S+)$/i.exec(header);
  const decoded = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  const user = colon > 0 ? decoded.slice(0, colon) : '';
  const signedIn = colon > 0 && (await passwords.matches(user, decoded.slice(colon + 1)));
  if (!signedIn) {
    // No credentials at all guess nothing; only wrong ones count.
    if (colon > 0) throttle.recordFailure(request.ip);
    throw new GatewayError('COUNTERPARTY_AUTHENTICATION_REQUIRED', 'Sign in with your counterparty id and REST password (HTTP Basic).');
  }
  return user;
}

function idempotencyKey(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(key) ? key : undefined;
}

/** Copies the request body to a work file, refusing it past `maxBytes`. */
async function receiveBody(request: FastifyRequest, workDir: string, maxBytes: number): Promise<{ path: string; name: string; size: number }> {
  await mkdir(workDir, { recursive: true });
  const name = `${Date.now()}-${randomBytes(6).toString('hex')}`;
  const path = join(workDir, `${name}.xml`);
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.byteLength;
      if (size > maxBytes) done(new GatewayError('DOCUMENT_TOO_LARGE', `The body is larger than ${maxBytes} bytes.`));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(request.body as NodeJS.ReadableStream, counter, createWriteStream(path, { flags: 'wx' }));
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
  if (size === 0) {
    await rm(path, { force: true });
    throw new GatewayError('DOCUMENT_EMPTY', 'The request has no body.');
  }
  return { path, name, size };
}
