import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { RP_ERROR_STATUS, RP_PATHS, type RpErrorBody, type RpErrorCode } from './bankid-protocol.ts';
import { LocalOrderBook, type LocalOrder, type LocalPerson } from './local-bankid-orders.ts';
import { makeLocalSignature } from './local-bankid-signature.ts';
import { readSignRequest } from './local-bankid-requests.ts';

/**
 * A local stand-in for BankID's RP API v6.0, for tests and demos: BankID's real
 * service is not reachable from our machines, and the test service needs a person
 * with a test BankID on a phone. It speaks the same protocol as BankID — same paths,
 * bodies, hint codes, error bodies and HTTP statuses — over mutual TLS: a client
 * without a certificate issued by `tls.clientCa` is refused during the handshake,
 * before any HTTP. What the person does in the app is played by the test through
 * `control` (in process; the RP API has no way to drive orders). Completion data
 * carries an XML signature made with the server's signing key (local-bankid-signature.ts)
 * and an OCSP-like blob that is plainly marked as not a real OCSP response.
 */
export interface LocalBankIdServerOptions {
  readonly tls: {
    readonly cert: string | Buffer;
    readonly key: string | Buffer;
    /** CA whose client certificates are let in. */
    readonly clientCa: string | Buffer;
  };
  /** Key and certificate the completion signatures are made with; default the TLS ones. */
  readonly signing?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /** Subject CNs of the relying parties served; another valid certificate gets 401 unauthorized. Default: any. */
  readonly relyingParties?: readonly string[];
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: any free port. */
  readonly port?: number;
  /** A pending order fails with expiredTransaction this long after it was made. Default 3 minutes. */
  readonly orderLifetimeMs?: number;
  /** How long a finished order can still be collected. Default 3 minutes. */
  readonly keepFinishedMs?: number;
  readonly now?: () => number;
}

/** The person's side of BankID, played by the test. Each step throws when the order is not at the step before it. */
export interface LocalBankIdControl {
  orders(): LocalOrder[];
  order(orderRef: string): LocalOrder | undefined;
  /** outstandingTransaction → started. */
  startApp(orderRef: string): void;
  /** started → userSign. */
  showToPerson(orderRef: string): void;
  /** userSign → complete, signed by this person. */
  sign(orderRef: string, person: LocalPerson): void;
  /** startApp, showToPerson and sign in one go. */
  signThrough(orderRef: string, person: LocalPerson): void;
  /** pending → failed userCancel. */
  cancelInApp(orderRef: string): void;
  /** pending → failed startFailed. */
  failStart(orderRef: string): void;
  /** pending → failed certificateErr. */
  failCertificate(orderRef: string): void;
  /** While on, every RP API request is answered 503 maintenance. */
  setMaintenance(on: boolean): void;
  /** RP API requests that got past TLS, in order. */
  readonly requests: readonly { readonly path: string; readonly relyingParty: string }[];
}

export interface LocalBankIdServer {
  /** The service root to give the adapter, e.g. https://127.0.0.1:43817. */
  readonly url: string;
  readonly control: LocalBankIdControl;
  close(): Promise<void>;
}

const MAX_REQUEST_BYTES = 512 * 1024;
const DEFAULT_LIFETIME_MS = 3 * 60_000;

export async function startLocalBankIdServer(options: LocalBankIdServerOptions): Promise<LocalBankIdServer> {
  const signing = options.signing ?? options.tls;
  const now = options.now ?? Date.now;
  const book = new LocalOrderBook({
    now,
    orderLifetimeMs: options.orderLifetimeMs ?? DEFAULT_LIFETIME_MS,
    keepFinishedMs: options.keepFinishedMs ?? DEFAULT_LIFETIME_MS,
    sign: (order, person) => ({
      signature: makeLocalSignature({ userVisibleData: order.request.userVisibleData, userNonVisibleData: order.request.userNonVisibleData, keyPem: signing.key, certPem: signing.cert }),
      ocspResponse: localOcspResponse(order, person, now()),
    }),
  });
  const requests: { path: string; relyingParty: string }[] = [];
  let maintenance = false;

  const server = createServer(
    { cert: options.tls.cert, key: options.tls.key, ca: options.tls.clientCa, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.2' },
    (req, res) => {
      const relyingParty = clientCommonName(req);
      requests.push({ path: req.url ?? '', relyingParty });
      if (options.relyingParties && !options.relyingParties.includes(relyingParty)) return sendError(res, 'unauthorized', `${relyingParty} is not a relying party of this service`);
      if (maintenance) return sendError(res, 'maintenance', 'The service is down for maintenance');
      answer(book, req, res).catch((error: unknown) => sendError(res, 'internalError', (error as Error).message));
    },
  );
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  const control: LocalBankIdControl = {
    orders: () => book.list(),
    order: (orderRef) => book.find(orderRef),
    startApp: (orderRef) => book.startApp(orderRef),
    showToPerson: (orderRef) => book.showToPerson(orderRef),
    sign: (orderRef, person) => book.sign(orderRef, person),
    signThrough(orderRef, person) {
      book.startApp(orderRef);
      book.showToPerson(orderRef);
      book.sign(orderRef, person);
    },
    cancelInApp: (orderRef) => book.fail(orderRef, 'userCancel'),
    failStart: (orderRef) => book.fail(orderRef, 'startFailed'),
    failCertificate: (orderRef) => book.fail(orderRef, 'certificateErr'),
    setMaintenance: (on) => { maintenance = on; },
    requests,
  };
  return {
    url: `https://${host}:${address.port}`,
    control,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

async function answer(book: LocalOrderBook, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'https://local').pathname;
  const operation = (Object.keys(RP_PATHS) as (keyof typeof RP_PATHS)[]).find((name) => RP_PATHS[name] === path);
  if (!operation) return sendError(res, 'notFound', `No such path: ${path}`);
  if (req.method !== 'POST') return sendError(res, 'methodNotAllowed', `${req.method ?? ''} is not allowed; use POST`);
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) return sendError(res, 'unsupportedMediaType', 'Content-Type must be application/json');
  const body = await readJson(req);
  if (body === undefined) return sendError(res, 'invalidParameters', 'Invalid request');
  if (operation === 'sign') {
    const request = readSignRequest(body);
    if (!request.ok) return sendError(res, 'invalidParameters', request.details);
    return send(res, book.create(request.request));
  }
  const orderRef = (body as { orderRef?: unknown }).orderRef;
  if (typeof orderRef !== 'string' || orderRef === '') return sendError(res, 'invalidParameters', 'Invalid orderRef');
  return send(res, operation === 'collect' ? book.collect(orderRef) : book.cancel(orderRef));
}

/** The parsed JSON object of the request, or undefined when it is not one (or is too large). */
async function readJson(req: IncomingMessage): Promise<object | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, result: { ok: true; body: object } | { ok: false; error: RpErrorBody }): void {
  if (result.ok) return sendJson(res, 200, result.body);
  return sendError(res, result.error.errorCode as RpErrorCode, result.error.details);
}

function sendError(res: ServerResponse, errorCode: RpErrorCode, details: string): void {
  sendJson(res, RP_ERROR_STATUS[errorCode], { errorCode, details } satisfies RpErrorBody);
}

function sendJson(res: ServerResponse, status: number, body: object): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

function clientCommonName(req: IncomingMessage): string {
  const subject = (req.socket as TLSSocket).getPeerCertificate().subject as { CN?: string | string[] } | undefined;
  const cn = subject?.CN;
  return (Array.isArray(cn) ? cn[0] : cn) ?? '';
}

/** Base64 of a JSON stand-in for the OCSP response BankID returns; marked as such so it is never taken for one. */
function localOcspResponse(order: LocalOrder, person: LocalPerson, now: number): string {
  const blob = { type: 'local-bankid-ocsp-stand-in', certStatus: 'good', personalNumber: person.personalNumber, orderRef: order.orderRef, producedAt: new Date(now).toISOString() };
  return Buffer.from(JSON.stringify(blob), 'utf8').toString('base64');
}
