import { Agent, request, type AgentOptions, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { GatewayConfig } from '../config/config.schema.ts';
import { readCollectAnswer, readErrorAnswer, readSignAnswer } from './bankid-answers.ts';
import { RP_PATHS, type CollectResponseBody, type RpErrorCode, type SignRequestBody, type SignRequirement, type SignResponseBody, type UserVisibleDataFormat } from './bankid-protocol.ts';

/**
 * The relying-party adapter for BankID: starts sign orders, collects them and cancels
 * them through BankID's RP API v6.0, over mutual TLS with the insurer's relying-party
 * certificate. Only the configured CA is trusted for BankID's server (BankID's servers
 * present certificates from its own CA, not a public one), so a man in the middle with
 * a publicly trusted certificate is refused. Every answer is checked against the
 * documented shape before it is returned (bankid-answers.ts).
 *
 * The adapter does not poll: the caller collects every 2 s while the order is pending,
 * as BankID asks, and decides with checkSignatory whether a completed order counts.
 * Failures are thrown as BankIdError carrying BankID's errorCode, or one of ours when
 * there was no answer (connectionFailed, timeout) or a wrong one (malformedAnswer).
 */

export type BankIdCredentials =
  | { readonly cert: string | Buffer; readonly key: string | Buffer; readonly passphrase?: string }
  | { readonly pfx: Buffer; readonly passphrase?: string };

export interface BankIdClientOptions {
  /** The service root without a path, e.g. https://appapi2.test.bankid.com. */
  readonly url: string;
  /** Our relying-party certificate and key. */
  readonly credentials: BankIdCredentials;
  /** The CA(s) that issue BankID's server certificate; nothing else is trusted. */
  readonly ca: string | Buffer;
  /** How long one request may take, in ms. Default 10 000. */
  readonly timeoutMs?: number;
}

/** A sign order as the gateway thinks of it; the adapter encodes it for the wire. */
export interface SignOrder {
  /** The person's IP address as our server sees it. */
  readonly endUserIp: string;
  /** What the person reads in the BankID app and signs (at most 40 000 characters once base64-encoded). */
  readonly visibleText: string;
  readonly visibleTextFormat?: UserVisibleDataFormat;
  /** Signed along without being shown, e.g. a digest of the document. */
  readonly nonVisibleData?: Uint8Array;
  readonly requirement?: SignRequirement;
}

export interface BankIdClient {
  sign(order: SignOrder): Promise<SignResponseBody>;
  collect(orderRef: string): Promise<CollectResponseBody>;
  cancel(orderRef: string): Promise<void>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/** Our codes for a request that got no usable answer, beside BankID's own. */
export type BankIdTransportCode = 'connectionFailed' | 'timeout' | 'malformedAnswer';

export class BankIdError extends Error {
  readonly errorCode: RpErrorCode | BankIdTransportCode | (string & {});
  /** BankID's details text, or what went wrong on the way. */
  readonly details: string;
  /** The HTTP status BankID answered with; undefined without an answer. */
  readonly httpStatus: number | undefined;
  /**
   * Whether trying the same request again later may help: during BankID maintenance
   * and when no connection could be made. Not after internalError or requestTimeout
   * (BankID asks relying parties not to retry those automatically) nor our own
   * timeout (a sign order may have been created).
   */
  readonly retryable: boolean;

  constructor(errorCode: BankIdError['errorCode'], details: string, options: { httpStatus?: number; cause?: unknown } = {}) {
    super(`BankID ${errorCode}${options.httpStatus ? ` (HTTP ${options.httpStatus})` : ''}: ${details}`, { cause: options.cause });
    this.name = 'BankIdError';
    this.errorCode = errorCode;
    this.details = details;
    this.httpStatus = options.httpStatus;
    this.retryable = errorCode === 'maintenance' || errorCode === 'connectionFailed';
  }
}

export const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 1024 * 1024;

export function createBankIdClient(options: BankIdClientOptions): BankIdClient {
  const base = serviceRoot(options.url);
  const tls = { minVersion: 'TLSv1.2', ca: options.ca, ...options.credentials } as const;
  const agent = new Agent({ keepAlive: true, ...tls });
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const post = (path: string, body: object) => postJson({ agent, tls }, new URL(path, base), body, timeoutMs);

  return {
    async sign(order) {
      const answer = await post(RP_PATHS.sign, signRequestBody(order));
      return readSignAnswer(answer) ?? malformed('sign', answer);
    },
    async collect(orderRef) {
      const answer = await post(RP_PATHS.collect, { orderRef });
      return readCollectAnswer(answer) ?? malformed('collect', answer);
    },
    async cancel(orderRef) {
      await post(RP_PATHS.cancel, { orderRef });
    },
    close: () => agent.destroy(),
  };
}

/** The client for the `bankid` settings, its certificate files read now. */
export async function createBankIdClientFromConfig(settings: NonNullable<GatewayConfig['bankid']>): Promise<BankIdClient> {
  const ca = await readFile(settings.caPath);
  const passphrase = settings.passphrase === undefined ? {} : { passphrase: settings.passphrase };
  const credentials: BankIdCredentials = settings.pfxPath !== undefined
    ? { pfx: await readFile(settings.pfxPath), ...passphrase }
    : { cert: await readFile(required(settings.certPath, 'certPath')), key: await readFile(required(settings.keyPath, 'keyPath')), ...passphrase };
  return createBankIdClient({ url: settings.url, credentials, ca, timeoutMs: settings.timeoutMs });
}

export function signRequestBody(order: SignOrder): SignRequestBody {
  return {
    endUserIp: order.endUserIp,
    userVisibleData: Buffer.from(order.visibleText, 'utf8').toString('base64'),
    ...(order.visibleTextFormat ? { userVisibleDataFormat: order.visibleTextFormat } : {}),
    ...(order.nonVisibleData ? { userNonVisibleData: Buffer.from(order.nonVisibleData).toString('base64') } : {}),
    ...(order.requirement ? { requirement: order.requirement } : {}),
  };
}

function serviceRoot(url: string): URL {
  const root = new URL(url);
  if (root.protocol !== 'https:') throw new TypeError(`the BankID url must be https://, not ${url}`);
  if (root.pathname !== '/' || root.search || root.hash) throw new TypeError(`the BankID url is the service root without a path (the adapter adds ${RP_PATHS.sign} …), not ${url}`);
  return root;
}

/** The kept-alive connections, and the TLS settings a connection of its own is opened with. */
interface Connections {
  readonly agent: Agent;
  readonly tls: AgentOptions;
}

/**
 * POSTs JSON and resolves with the parsed 200 answer; anything else rejects with
 * BankIdError. A request sent on a kept-alive connection that the server reset before
 * answering anything is sent once more, on a connection of its own: the server closed
 * that idle connection as the request went out (at its keep-alive time, or late, when
 * its process was busy as the timer fell due), so it never read the request.
 */
async function postJson(connections: Connections, url: URL, body: object, timeoutMs: number): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  try {
    return await postOnce({ agent: connections.agent }, url, payload, timeoutMs);
  } catch (error) {
    if (!(error instanceof ResetBeforeAnswer)) throw error;
    return postOnce({ agent: false, ...connections.tls }, url, payload, timeoutMs);
  }
}

/** A kept-alive connection reset before any answer came: the request is sent again. */
class ResetBeforeAnswer extends BankIdError {}

function postOnce(connection: RequestOptions, url: URL, payload: Buffer, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      ...connection,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': payload.length, accept: 'application/json' },
    }, (res) => {
      readAnswer(res).then((answer) => {
        clearTimeout(timer);
        if (res.statusCode === 200) resolve(answer.json);
        else reject(errorFromAnswer(res.statusCode ?? 0, answer));
      }, (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof BankIdError ? error : new BankIdError('connectionFailed', `the answer from ${url.host} broke off: ${(error as Error).message}`, { cause: error }));
      });
    });
    const timer = setTimeout(() => req.destroy(new BankIdError('timeout', `no answer from ${url.host} within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      if (error instanceof BankIdError) return reject(error);
      const reset = req.reusedSocket && (error as NodeJS.ErrnoException).code === 'ECONNRESET';
      return reject(new (reset ? ResetBeforeAnswer : BankIdError)('connectionFailed', `${url.host}: ${error.message}`, { cause: error }));
    });
    req.end(payload);
  });
}

interface Answer {
  readonly text: string;
  /** The parsed body; undefined when it is not JSON. */
  readonly json: unknown;
}

async function readAnswer(res: IncomingMessage): Promise<Answer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) {
      res.destroy();
      throw new BankIdError('malformedAnswer', `the answer is larger than ${MAX_ANSWER_BYTES} bytes`, { httpStatus: res.statusCode ?? 0 });
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { text, json };
}

function errorFromAnswer(httpStatus: number, answer: Answer): BankIdError {
  const error = readErrorAnswer(answer.json);
  if (error) return new BankIdError(error.errorCode, error.details, { httpStatus });
  return new BankIdError('malformedAnswer', `HTTP ${httpStatus} without BankID's error body: ${answer.text.slice(0, 200)}`, { httpStatus });
}

function malformed(operation: string, answer: unknown): never {
  throw new BankIdError('malformedAnswer', `the ${operation} answer does not have the documented shape: ${JSON.stringify(answer)?.slice(0, 200)}`, { httpStatus: 200 });
}

function required(path: string | undefined, setting: string): string {
  if (path === undefined) throw new TypeError(`bankid.${setting} is not set`);
  return path;
}
