import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isValidPersonalIdentityNumber } from '../core/identifiers.ts';
import type { LocalPerson } from './local-bankid-orders.ts';
import type { LocalBankIdControl } from './local-bankid-server.ts';
import { outcomeOf, renderMessagePage, renderOrdersPage } from './local-bankid-page-view.ts';

/**
 * The local BankID test server's own page: what a person does in the BankID app, done
 * in a browser. GET / lists the orders waiting for a person with the text each shows;
 * POST /orders/{orderRef}/approve completes one as the person chosen (its control's
 * signThrough), POST …/refuse fails it with userCancel, as the app's Cancel does.
 *
 * Plain HTTP on a port of its own on 127.0.0.1, not a path of the RP API's HTTPS port:
 * that port lets no one past the TLS handshake without a client certificate of the test
 * CA, which a browser does not have, and it stays exactly BankID's. On loopback nothing
 * of it leaves the machine.
 *
 * Against other web pages open in the same browser: every form carries a token minted
 * for the page it came from (random, used once, kept 30 minutes), which another site
 * cannot read; and a request whose Host is not a loopback name is refused, so a site
 * whose name is made to resolve to 127.0.0.1 cannot read the page either.
 */
export interface LocalBankIdPageOptions {
  readonly control: LocalBankIdControl;
  /** Offered as the people to sign as; anyone else by personnummer. */
  readonly people: readonly LocalPerson[];
  /** Default 0: any free port. */
  readonly port?: number;
}

export interface LocalBankIdPage {
  /** e.g. http://127.0.0.1:43818/ */
  readonly url: string;
  close(): Promise<void>;
}

const TOKEN_LIFETIME_MS = 30 * 60_000;
const MAX_TOKENS = 1_000;
const MAX_FORM_BYTES = 16 * 1024;
const ACTION_PATH = /^\/orders\/([0-9a-f-]{36})\/(approve|refuse)$/;

export async function startLocalBankIdPage(options: LocalBankIdPageOptions): Promise<LocalBankIdPage> {
  const tokens = new Map<string, number>();
  const mintToken = () => {
    const now = Date.now();
    for (const [token, expires] of tokens) if (expires <= now || tokens.size >= MAX_TOKENS) tokens.delete(token);
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, now + TOKEN_LIFETIME_MS);
    return token;
  };
  const useToken = (token: string | null) => {
    const expires = token === null ? undefined : tokens.get(token);
    if (token !== null) tokens.delete(token);
    return expires !== undefined && expires > Date.now();
  };

  const server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => send(res, 500, renderMessagePage('Something went wrong', (error as Error).message)));
  });
  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isLoopbackHostHeader(req.headers.host)) return send(res, 421, renderMessagePage('Wrong address', 'This page answers at 127.0.0.1 or localhost only.'));
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/' && req.method === 'GET') {
      const done = url.searchParams.get('done');
      const order = done === null ? undefined : options.control.order(done);
      const notice = order ? outcomeOf(order, options.people) : undefined;
      return send(res, 200, renderOrdersPage({ orders: options.control.orders(), people: options.people, token: mintToken(), ...(notice ? { notice } : {}) }));
    }
    const action = ACTION_PATH.exec(url.pathname);
    if (!action) return send(res, 404, renderMessagePage('Not found', `There is nothing at ${url.pathname}.`));
    if (req.method !== 'POST') return send(res, 405, renderMessagePage('Not allowed', 'Approve and Refuse are forms: use the buttons on the page.'));
    const form = await readForm(req);
    if (!form) return send(res, 413, renderMessagePage('Too large', 'The form is larger than this page ever sends.'));
    if (!useToken(form.get('token'))) {
      return send(res, 403, renderMessagePage('Out of date', 'This form is out of date or did not come from this page: reload the page and try again.'));
    }
    const orderRef = action[1]!;
    if (action[2] === 'approve') {
      const personalNumber = (form.get('otherPersonalNumber') ?? '').trim() || (form.get('personalNumber') ?? '');
      if (!isValidPersonalIdentityNumber(personalNumber)) {
        return send(res, 400, renderMessagePage('Who signs?', 'Choose a person, or write a personnummer of 12 digits with a valid check digit (YYYYMMDDNNNN).'));
      }
      const person = options.people.find((p) => p.personalNumber === personalNumber) ?? { personalNumber, givenName: 'Test', surname: 'Person' };
      const refused = attempt(() => options.control.signThrough(orderRef, person));
      if (refused) return send(res, 409, renderMessagePage('Not signed', refused));
    } else {
      const refused = attempt(() => options.control.cancelInApp(orderRef));
      if (refused) return send(res, 409, renderMessagePage('Not refused', refused));
    }
    res.writeHead(303, { location: `/?done=${encodeURIComponent(orderRef)}`, 'cache-control': 'no-store' });
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/** The order book's reason when a step is not possible (the order ended, another person is required), or undefined. */
function attempt(step: () => void): string | undefined {
  try {
    step();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function isLoopbackHostHeader(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.replace(/:\d+$/, '').toLowerCase();
  return name === 'localhost' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name);
}

/** The url-encoded form, or undefined when it is larger than MAX_FORM_BYTES. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
    // No script at all; styles inline; forms post only here; never framed (no clicks tricked through a frame).
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  res.end(html);
}
