/**
 * Behind a TLS-terminating proxy (`trustProxy`): over real HTTP on loopback, with the
 * test as the proxy at 127.0.0.1, the console's session cookie is Secure when the proxy
 * says the browser spoke HTTPS, and the login throttle (console, staff HTTP Basic, the
 * metrics listener) and the token endpoint's limit count each client in
 * X-Forwarded-For apart. Without `trustProxy` those headers are ignored: no Secure on
 * their say-so, and every request counts against the peer's own address.
 * Real PostgreSQL and Redis.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { startTestGateway, type TestGateway } from './support/harness.ts';
import { cookieOf, csrfOf } from './support/console-session.ts';
import { hashSecret } from '../src/config/secret-hash.ts';
import { loadConfig, parseConfig } from '../src/config/load-config.ts';

const STAFF_PASSWORD = 'staff-password-of-ours';
const CLIENT_SECRET = 'advisor-firm-secret-of-ours';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** What a proxy adds: the client's address, and https when the browser spoke TLS to it. */
function forwarded(client: string, proto?: 'https' | 'http'): Record<string, string> {
  return { 'x-forwarded-for': client, ...(proto ? { 'x-forwarded-proto': proto } : {}) };
}

function baseUrl(http: FastifyInstance | undefined): string {
  const address = http?.server.address() as AddressInfo | null | undefined;
  assert.ok(address, 'the gateway listens');
  return `http://127.0.0.1:${address.port}`;
}

interface SignIn {
  readonly status: number;
  /** The dg_sign_in_form cookie the form was served with. */
  readonly formCookie: string;
  /** The dg_staff_session cookie set on success. */
  readonly sessionCookie: string | undefined;
}

/** The browser's sign-in through the proxy: get the form, post it, read the cookies. */
async function signIn(base: string, username: string, password: string, headers: Record<string, string>): Promise<SignIn> {
  const form = await fetch(`${base}/console/sign-in`, { headers });
  assert.equal(form.status, 200);
  const formCookie = form.headers.getSetCookie().find((cookie) => cookie.startsWith('dg_sign_in_form='))!;
  const answer = await fetch(`${base}/console/sign-in`, {
    method: 'POST', redirect: 'manual',
    headers: { ...headers, cookie: cookieOf(formCookie, 'dg_sign_in_form'), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrfOf(await form.text()), next: '/console', username, password }).toString(),
  });
  await answer.arrayBuffer();
  return { status: answer.status, formCookie, sessionCookie: answer.headers.getSetCookie().find((cookie) => cookie.startsWith('dg_staff_session=')) };
}

async function token(base: string, headers: Record<string, string>): Promise<{ status: number; code?: string }> {
  const answer = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { ...headers, authorization: basic('firm', CLIENT_SECRET), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const body = (await answer.json()) as { code?: string };
  return { status: answer.status, ...(body.code ? { code: body.code } : {}) };
}

async function staffApi(base: string, password: string, headers: Record<string, string>): Promise<number> {
  const answer = await fetch(`${base}/api/messages`, { headers: { ...headers, authorization: basic('ops', password) } });
  await answer.arrayBuffer();
  return answer.status;
}

async function settings(extra: Record<string, unknown>): Promise<Record<string, unknown>> {
  return {
    loginFailuresPerMinute: 3,
    staff: { users: [{ username: 'ops', password: STAFF_PASSWORD }] },
    api: { tokenRequestsPerMinute: 3, clients: [{ id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: await hashSecret(CLIENT_SECRET) }] },
    ...extra,
  };
}

describe('the trustProxy setting', () => {
  test('is a list of addresses or CIDR ranges, none by default; TRUST_PROXY gives it comma-separated; /0 and host names are refused', () => {
    assert.deepEqual(parseConfig({}).trustProxy, []);
    assert.deepEqual(parseConfig({ trustProxy: ['10.0.0.7', 'fd00::/8', 'loopback'] }).trustProxy, ['10.0.0.7', 'fd00::/8', 'loopback']);
    assert.deepEqual(loadConfig({ demo: true, env: { TRUST_PROXY: '10.0.0.7, 10.1.0.0/16' } }).trustProxy, ['10.0.0.7', '10.1.0.0/16']);
    for (const wrong of ['0.0.0.0/0', '::/0', '10.0.0.0/33', 'proxy.example', '10.0.0.256']) {
      assert.throws(() => parseConfig({ trustProxy: [wrong] }), /CONFIG_INVALID|trustProxy\.0: an IP address, a CIDR range/, wrong);
    }
  });
});

describe('behind a trusted proxy (trustProxy 127.0.0.1)', () => {
  let gateway: TestGateway;
  let base: string;
  beforeAll(async () => {
    gateway = await startTestGateway({ roles: ['api'], settings: await settings({ trustProxy: ['127.0.0.1'] }) });
    base = baseUrl(gateway.http);
  });
  afterAll(() => gateway?.destroy());

  test('a console sign-in the proxy received over HTTPS gets a Secure session cookie; one it received over HTTP does not', async () => {
    const overTls = await signIn(base, 'ops', STAFF_PASSWORD, forwarded('203.0.113.20', 'https'));
    assert.equal(overTls.status, 303);
    assert.match(overTls.sessionCookie ?? '', /; HttpOnly; SameSite=Strict; Secure$/);
    assert.match(overTls.formCookie, /; Secure$/, 'the sign-in form cookie too');
    const plain = await signIn(base, 'ops', STAFF_PASSWORD, forwarded('203.0.113.21', 'http'));
    assert.equal(plain.status, 303);
    assert.doesNotMatch(plain.sessionCookie ?? '', /Secure/);
  });

  test('wrong passwords lock out the client that sent them (console, staff API), not the others behind the same proxy', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      assert.equal((await signIn(base, 'ops', `guess-${attempt}`, forwarded('203.0.113.5', 'https'))).status, 401, `guess ${attempt}`);
    }
    assert.equal((await signIn(base, 'ops', STAFF_PASSWORD, forwarded('203.0.113.5', 'https'))).status, 429, 'the guesser, even with the right password');
    assert.equal(await staffApi(base, STAFF_PASSWORD, forwarded('203.0.113.5')), 429, 'at the staff API too');
    // A guesser that sends its own X-Forwarded-For gets it passed on before its real address: it is still counted by that.
    assert.equal((await signIn(base, 'ops', STAFF_PASSWORD, forwarded('198.51.100.99, 203.0.113.5', 'https'))).status, 429);

    const other = await signIn(base, 'ops', STAFF_PASSWORD, forwarded('203.0.113.6', 'https'));
    assert.equal(other.status, 303, 'another client through the same proxy signs in');
    assert.ok(other.sessionCookie);
    assert.equal(await staffApi(base, STAFF_PASSWORD, forwarded('203.0.113.6')), 200);
  });

  test("the token endpoint's limit is per client behind the proxy", async () => {
    for (let request = 0; request < 3; request += 1) assert.equal((await token(base, forwarded('203.0.113.7'))).status, 200, `request ${request}`);
    assert.deepEqual(await token(base, forwarded('203.0.113.7')), { status: 429, code: 'TOO_MANY_REQUESTS' });
    assert.equal((await token(base, forwarded('203.0.113.8'))).status, 200, 'another client');
  });
});

describe('without trustProxy (the default)', () => {
  let gateway: TestGateway;
  let base: string;
  beforeAll(async () => {
    gateway = await startTestGateway({ roles: ['api'], settings: await settings({}) });
    base = baseUrl(gateway.http);
  });
  afterAll(() => gateway?.destroy());

  test('X-Forwarded-Proto from the peer is ignored: the session cookie has no Secure', async () => {
    const answer = await signIn(base, 'ops', STAFF_PASSWORD, forwarded('203.0.113.20', 'https'));
    assert.equal(answer.status, 303);
    assert.doesNotMatch(answer.sessionCookie ?? '', /Secure/);
    assert.doesNotMatch(answer.formCookie, /Secure/);
  });

  test('X-Forwarded-For is ignored: wrong passwords count against the peer, whatever address each one names', async () => {
    for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      assert.equal((await signIn(base, 'ops', 'a wrong password', forwarded(client))).status, 401, client);
    }
    assert.equal((await signIn(base, 'ops', STAFF_PASSWORD, forwarded('203.0.113.4'))).status, 429);
    assert.equal(await staffApi(base, STAFF_PASSWORD, forwarded('203.0.113.4')), 429);
  });

  test("X-Forwarded-For is ignored by the token endpoint's limit", async () => {
    for (const client of ['203.0.113.11', '203.0.113.12', '203.0.113.13']) assert.equal((await token(base, forwarded(client))).status, 200, client);
    assert.deepEqual(await token(base, forwarded('203.0.113.14')), { status: 429, code: 'TOO_MANY_REQUESTS' });
  });
});

describe('the metrics listener of a worker process behind a trusted proxy', () => {
  let gateway: TestGateway;
  let base: string;
  beforeAll(async () => {
    gateway = await startTestGateway({ roles: ['worker'], settings: await settings({ trustProxy: ['127.0.0.0/8'], metricsPort: 0 }) });
    base = baseUrl(gateway.metricsHttp);
  });
  afterAll(() => gateway?.destroy());

  test('wrong passwords lock out the client that sent them, not the others', async () => {
    const scrape = async (password: string, client: string) => {
      const answer = await fetch(`${base}/metrics`, { headers: { ...forwarded(client), authorization: basic('ops', password) } });
      await answer.arrayBuffer();
      return answer.status;
    };
    for (let attempt = 0; attempt < 3; attempt += 1) assert.equal(await scrape(`guess-${attempt}`, '203.0.113.5'), 401);
    assert.equal(await scrape(STAFF_PASSWORD, '203.0.113.5'), 429);
    assert.equal(await scrape(STAFF_PASSWORD, '203.0.113.6'), 200);
  });
});
