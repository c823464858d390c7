/**
 * No route is open by accident: a gateway with every role that serves HTTP and every
 * route family switched on (staff users, REST API clients, a custodian's REST door, the
 * SSEK endpoint) is asked every route it registered — the list comes from the server
 * itself (`servedRoutes`), so a route added later is walked too — without credentials.
 * Each answers 401 with its family's documented refusal, except the few below that are
 * public by design, each with its own check.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { startTestGateway, type TestGateway } from './support/harness.ts';
import { hashSecret } from '../src/config/secret-hash.ts';
import type { ServedRoute } from '../src/http/server-options.ts';

/**
 * Routes answered without credentials, and why. Each is matched against the walked list
 * (an entry no route matches fails the test, so the list cannot go stale).
 */
const PUBLIC_ROUTES: readonly { readonly url: RegExp; readonly why: string }[] = [
  // Orchestrators' probes: up or down, nothing more.
  { url: /^\/healthz$/, why: 'liveness probe' },
  { url: /^\/readyz$/, why: 'readiness probe' },
  // Where an API client gets its token: it checks the client's own credentials.
  { url: /^\/oauth\/token$/, why: 'OAuth token endpoint (client credentials)' },
  // The REST API's description and its reference page with the page's own assets.
  { url: /^\/openapi(\.json|\/.*)?$/, why: 'OpenAPI document and its UI' },
  // SSEK senders are identified by the SSEK header, client certificate and signature;
  // every refusal is a SOAP fault. GET publishes the WSDL.
  { url: /^\/ssek$/, why: 'SSEK endpoint (certificates and signatures)' },
  // The catalogue's XSDs the WSDL includes: published schemas, the same as in schemas/.
  { url: /^\/ssek\/xsd\/:file$/, why: 'XSDs the SSEK WSDL includes' },
  // The staff console's sign-in form (password checked, throttled, CSRF-protected) and its stylesheet.
  { url: /^\/console\/sign-in$/, why: 'console sign-in' },
  { url: /^\/console\/console\.css$/, why: 'console stylesheet' },
  // The insurer's signing page: a signatory's link token (t=) is its credential, not a
  // login; without a live one every page and form answers the same 404 (docs/bankid.md).
  { url: /^\/sign\/:signCaseId(\/start|\/collect)?$/, why: 'signing page (the link token is its credential)' },
  { url: /^\/sign\/page\.(css|js)$/, why: "the signing page's stylesheet and script" },
];

/** Plausible values for path parameters; any other parameter gets `1`. */
const PARAMETER_VALUES: Readonly<Record<string, string>> = {
  messageId: '01JD8Z3Q4X5Y6Z7A8B9C0D1E2F',
  id: '01JD8Z3Q4X5Y6Z7A8B9C0D1E2F',
  advisorcode: 'ADV-001',
  agreement: 'AGR-1001',
  pin: '197001011233',
  queueName: 'validate',
  jobId: '1',
  queueStatus: 'failed',
  schedulerId: 'debit-run',
  '*': 'index.html',
};

type Family = 'staff' | 'custodian' | 'api' | 'console';

/** Which door a route sits behind, by its path (docs/rest.md, docs/channels.md). */
function familyOf(url: string): Family {
  if (url === '/console' || url.startsWith('/console/')) return 'console';
  if (url === '/metrics') return 'staff'; // the Prometheus scrape, behind staff credentials
  if (url.startsWith('/api/') || url === '/api' || url.startsWith('/admin/') || url === '/admin') return 'staff';
  if (/^\/(Holdings|Transactions)(\/|$)/.test(url)) return 'custodian';
  return 'api';
}

function concreteUrl(pattern: string): string {
  return pattern
    .replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_match, name: string) => encodeURIComponent(PARAMETER_VALUES[name] ?? '1'))
    .replace(/\*$/, PARAMETER_VALUES['*']!);
}

const withBody = (method: string) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method);

describe('every route needs credentials, except an explicit few', () => {
  let gateway: TestGateway;
  let routes: readonly ServedRoute[];

  beforeAll(async () => {
    gateway = await startTestGateway({
      roles: ['api', 'worker'],
      settings: {
        api: {
          tokenRequestsPerMinute: 1000,
          clients: [{ id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: await hashSecret('firm-secret-for-tests') }],
        },
        counterparties: [
          { id: 'demo-employer', name: 'Demo Employer AB', organisationNumber: '5561234567', role: 'employer', messageTypes: ['plan-administration'] },
          { id: 'demo-custodian', name: 'Demo Custodian AB', organisationNumber: '5560000001', role: 'custodian', messageTypes: ['custodian-reporting'], rest: { password: 'custodian-rest-password' } },
        ],
      },
    });
    routes = dedupe(gateway.http!.servedRoutes);
  });
  afterAll(() => gateway.destroy());

  const inject = (options: InjectOptions) => gateway.http!.inject(options);
  const isPublic = (url: string) => PUBLIC_ROUTES.some((entry) => entry.url.test(url));

  test('the walk covers every family: staff API, queue dashboard, REST API, custodian door, SSEK', () => {
    assert.ok(routes.length >= 60, `only ${routes.length} routes were registered`);
    for (const expected of ['GET /api/messages', 'POST /api/messages/:id/replay', 'GET /admin/queues', 'PUT /admin/queues/api/queues/:queueName/:jobId/retry',
      'GET /Product', 'POST /InsuranceApplication', 'POST /Holdings', 'GET /Transactions/:messageId', 'POST /ssek', 'POST /oauth/token']) {
      assert.ok(routes.some((route) => `${route.method} ${route.url}` === expected), `${expected} is among the walked routes`);
    }
    for (const entry of PUBLIC_ROUTES) assert.ok(routes.some((route) => entry.url.test(route.url)), `the public entry ${entry.url} (${entry.why}) matches a route`);
  });

  test('each route without credentials answers 401 with its family\'s refusal', async () => {
    const walked: string[] = [];
    const open: string[] = [];
    for (const route of routes.filter((candidate) => !isPublic(candidate.url))) {
      const url = concreteUrl(route.url);
      const answer = await inject({ method: route.method as InjectOptions['method'], url, ...(withBody(route.method) ? { payload: {} } : {}) });
      try {
        assertRefused(route, familyOf(route.url), answer);
      } catch (error) {
        open.push((error as Error).message.split('\n')[0]!);
      }
      walked.push(`${route.method} ${route.url}`);
    }
    assert.deepEqual(open, [], 'every route refuses a request without credentials (a route outside the three families needs a place in familyOf)');
    assert.ok(walked.length >= 50, `${walked.length} protected routes walked`);
  });

  test('a wrong password or token is refused the same way as none', async () => {
    const wrongBasic = { authorization: `Basic ${Buffer.from('staff:not-the-password').toString('base64')}` };
    const cases: readonly [ServedRoute, Family, Record<string, string>][] = [
      [{ method: 'GET', url: '/api/messages' }, 'staff', wrongBasic],
      [{ method: 'GET', url: '/admin/queues' }, 'staff', wrongBasic],
      [{ method: 'GET', url: '/Holdings/:messageId' }, 'custodian', { authorization: `Basic ${Buffer.from('demo-custodian:not-the-password').toString('base64')}` }],
      [{ method: 'GET', url: '/Product' }, 'api', { authorization: 'Bearer not.a.token' }],
    ];
    for (const [route, family, headers] of cases) assertRefused(route, family, await inject({ method: route.method as 'GET', url: concreteUrl(route.url), headers }));
  });

  test('public: the signing page without a live link token is the same 404 for the page and each form; its assets are served', async () => {
    const unknownCase = '/sign/SC-01JD8Z3Q4X5Y6Z7A8B9C0D1E2F';
    const refusals = [
      await inject({ url: unknownCase }),
      await inject({ url: `${unknownCase}?t=${'A'.repeat(43)}` }),
      await inject({ method: 'POST', url: `${unknownCase}/start`, headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, payload: `t=${'A'.repeat(43)}` }),
      await inject({ method: 'POST', url: `${unknownCase}/collect`, headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, payload: `t=${'A'.repeat(43)}` }),
    ];
    for (const refused of refusals) {
      assert.equal(refused.statusCode, 404, refused.body);
      assert.equal(refused.headers['cache-control'], 'no-store');
      assert.equal(refused.body, refusals[0]!.body, 'one 404 page, whatever was asked');
    }
    for (const [asset, type] of [['/sign/page.css', 'text/css'], ['/sign/page.js', 'text/javascript']] as const) {
      const served = await inject({ url: asset });
      assert.equal(served.statusCode, 200, asset);
      assert.ok(String(served.headers['content-type']).startsWith(type), `${asset}: ${served.headers['content-type']}`);
      assert.ok(served.body.length > 100, `${asset} has content`);
    }
  });

  test('public: the probes answer, the OpenAPI document and its page are served', async () => {
    assert.equal((await inject({ url: '/healthz' })).statusCode, 200);
    const ready = await inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(Object.keys(ready.json()), ['status', 'checks'], 'readiness says up or down and nothing more');
    const openapi = await inject({ url: '/openapi.json' });
    assert.equal(openapi.statusCode, 200);
    assert.equal(openapi.json().openapi, '3.1.0');
    for (const url of routes.filter((route) => route.method === 'GET' && route.url.startsWith('/openapi')).map((route) => concreteUrl(route.url))) {
      const answer = await inject({ url });
      assert.ok([200, 302].includes(answer.statusCode), `GET ${url}: ${answer.statusCode}`);
    }
  });

  test('public: the token endpoint refuses a client without or with wrong credentials with 401 invalid_client', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    for (const headers of [form, { ...form, authorization: `Basic ${Buffer.from('firm:not-the-secret').toString('base64')}` }]) {
      const answer = await inject({ method: 'POST', url: '/oauth/token', headers, payload: 'grant_type=client_credentials' });
      assert.equal(answer.statusCode, 401, answer.body);
      assert.deepEqual([answer.json().error, answer.json().code], ['invalid_client', 'API_CLIENT_INVALID']);
      assert.equal(answer.json().access_token, undefined);
    }
  });

  test('public: an unsigned, unidentified SSEK request is a SOAP fault and nothing is recorded', async () => {
    const count = async () => Number((await gateway.deps.db.query<{ n: string }>(`SELECT count(*) AS n FROM messages`)).rows[0]?.n);
    const before = await count();
    const envelope = `<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>`
      + `<ChangeFee xmlns="urn:se:depot-gateway:v1"/></soap:Body></soap:Envelope>`;
    for (const payload of [envelope, '']) {
      const answer = await inject({ method: 'POST', url: '/ssek', headers: { 'content-type': 'text/xml; charset=utf-8' }, payload });
      assert.equal(answer.statusCode, 500, answer.body);
      assert.match(String(answer.headers['content-type']), /^text\/xml/);
      assert.match(answer.body, /<(soap:)?Fault>[\s\S]*<faultcode>/);
    }
    assert.equal(await count(), before, 'no message recorded');
    const wsdl = await inject({ url: '/ssek?wsdl' });
    assert.equal(wsdl.statusCode, 200);
    assert.match(wsdl.body, /<(wsdl:)?definitions/);
  });
});

/** One entry per method and URL (HEAD routes Fastify adds for GET are walked too). */
function dedupe(routes: readonly ServedRoute[]): ServedRoute[] {
  const seen = new Map<string, ServedRoute>();
  for (const route of routes) seen.set(`${route.method} ${route.url}`, route);
  return [...seen.values()];
}

function assertRefused(route: ServedRoute, family: Family, answer: LightMyRequestResponse): void {
  const where = `${route.method} ${route.url} [${family}]: ${answer.statusCode} ${answer.body.slice(0, 120)}`;
  if (family === 'console') {
    // Console pages send a browser without a session to sign in.
    assert.equal(answer.statusCode, 303, where);
    assert.match(String(answer.headers.location), /^\/console\/sign-in\?next=/, where);
    return;
  }
  assert.ok([401, 403].includes(answer.statusCode), where);
  const type = String(answer.headers['content-type'] ?? '');
  const head = route.method === 'HEAD';
  switch (family) {
    case 'staff':
      assert.match(String(answer.headers['www-authenticate']), /^Basic realm="depot-gateway staff"/, where);
      assert.match(type, /^application\/json/, where);
      if (!head) assert.equal(answer.json().code, 'STAFF_AUTHENTICATION_REQUIRED', where);
      break;
    case 'custodian':
      assert.match(type, /^application\/json/, where);
      if (!head) assert.equal(answer.json().code, 'COUNTERPARTY_AUTHENTICATION_REQUIRED', where);
      break;
    case 'api':
      assert.match(String(answer.headers['www-authenticate']), /^Bearer/, where);
      assert.match(type, /^application\/problem\+json/, where);
      if (!head) assert.equal(answer.json().code, 'API_AUTHENTICATION_REQUIRED', where);
      break;
    default:
      family satisfies never;
  }
}
