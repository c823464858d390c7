/**
 * The REST API on a real gateway (PostgreSQL, the demo ledger): tokens from
 * POST /oauth/token, the product catalogue, documents with ETags, advisors behind the
 * access policy, errors as problem details, and the OpenAPI description checked
 * against the answers the routes really give.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { SignJWT } from 'jose';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startTestGateway, type TestGateway } from './support/harness.ts';
import { hashSecret } from '../src/config/secret-hash.ts';

const SECRETS = { firm: 'firm-secret-for-tests', otherFirm: 'other-firm-secret', custodian: 'custodian-secret-for-tests' };
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const form = 'application/x-www-form-urlencoded';

describe('REST API', () => {
  let gateway: TestGateway;
  let now = new Date('2026-11-25T09:00:00Z');
  const tokens = new Map<string, string>();

  beforeAll(async () => {
    gateway = await startTestGateway({
      roles: ['api'],
      clock: () => now,
      settings: {
        api: {
          tokenRequestsPerMinute: 1000,
          clients: [
            { id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: await hashSecret(SECRETS.firm) },
            { id: 'other-firm', kind: 'advisor-firm', organisationNumber: '5567777775', secretHash: await hashSecret(SECRETS.otherFirm) },
            { id: 'custodian', kind: 'custodian', counterpartyId: 'demo-custodian', secretHash: await hashSecret(SECRETS.custodian) },
          ],
        },
      },
    });
    for (const [id, secret] of [['firm', SECRETS.firm], ['other-firm', SECRETS.otherFirm], ['custodian', SECRETS.custodian]] as const) {
      const answer = await inject({ method: 'POST', url: '/oauth/token', headers: { authorization: basic(id, secret), 'content-type': form }, payload: 'grant_type=client_credentials' });
      assert.equal(answer.statusCode, 200, answer.body);
      tokens.set(id, (answer.json() as { access_token: string }).access_token);
    }
  });
  afterAll(() => gateway.destroy());

  const inject = (options: InjectOptions) => gateway.http!.inject(options);
  const as = (client: string, url: string, headers: Record<string, string> = {}) => inject({ url, headers: { authorization: `Bearer ${tokens.get(client)}`, ...headers } });

  test('a token for client credentials, by HTTP Basic or in the form; OAuth errors otherwise', async () => {
    const basicToken = await inject({ method: 'POST', url: '/oauth/token', headers: { authorization: basic('firm', SECRETS.firm), 'content-type': form }, payload: 'grant_type=client_credentials' });
    assert.equal(basicToken.statusCode, 200);
    assert.equal(basicToken.headers['cache-control'], 'no-store');
    const body = basicToken.json() as { access_token: string; token_type: string; expires_in: number };
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 300);
    assert.equal(body.access_token.split('.').length, 3, 'a JWT');

    const posted = await inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': form }, payload: `grant_type=client_credentials&client_id=firm&client_secret=${SECRETS.firm}` });
    assert.equal(posted.statusCode, 200);

    const wrong = await inject({ method: 'POST', url: '/oauth/token', headers: { authorization: basic('firm', 'not-the-secret'), 'content-type': form }, payload: 'grant_type=client_credentials' });
    assert.equal(wrong.statusCode, 401);
    assert.deepEqual([wrong.json().error, wrong.json().code], ['invalid_client', 'API_CLIENT_INVALID']);
    assert.match(String(wrong.headers['www-authenticate']), /^Basic/);
    const unknown = await inject({ method: 'POST', url: '/oauth/token', headers: { authorization: basic('nobody', SECRETS.firm), 'content-type': form }, payload: 'grant_type=client_credentials' });
    assert.deepEqual(unknown.json(), wrong.json(), 'an unknown client is answered as a wrong secret');

    const grant = await inject({ method: 'POST', url: '/oauth/token', headers: { authorization: basic('firm', SECRETS.firm), 'content-type': form }, payload: 'grant_type=password' });
    assert.equal(grant.statusCode, 400);
    assert.equal(grant.json().error, 'unsupported_grant_type');
  });

  test('every API route needs a valid bearer token: none, forged or expired is 401 with a problem', async () => {
    const urls = ['/Product', '/Product/KF-DEPA/document', '/Document/KF-DEPA-PPI', '/Product/KF-DEPA/Funds', '/Advisor/ADV-001'];
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const forged = await new SignJWT({ client_id: 'firm' }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' }).setIssuer('depot-gateway').setAudience('depot-gateway-api')
      .setSubject('firm').setIssuedAt().setExpirationTime('5m').sign(privateKey);
    for (const url of urls) {
      for (const authorization of [undefined, 'Bearer not-a-token', `Bearer ${forged}`, basic('firm', SECRETS.firm)]) {
        const answer = await inject({ url, headers: authorization ? { authorization } : {} });
        assert.equal(answer.statusCode, 401, `${url} with ${authorization?.slice(0, 12)}`);
        assert.equal(answer.headers['content-type'], 'application/problem+json; charset=utf-8');
        assert.equal(answer.json().code, 'API_AUTHENTICATION_REQUIRED');
        assert.match(String(answer.headers['www-authenticate']), /^Bearer/);
      }
    }
    const earlier = now;
    now = new Date(earlier.getTime() + 301_000);
    try {
      const expired = await as('firm', '/Product');
      assert.equal(expired.statusCode, 401);
      assert.match(expired.json().detail, /expired/);
    } finally {
      now = earlier;
    }
  });

  test('products open for subscription, their documents, the latest version of a document with an ETag, and their funds', async () => {
    const products = (await as('firm', '/Product')).json() as { id: string; taxCategory: string; line: string }[];
    assert.deepEqual(products.map((p) => [p.id, p.taxCategory, p.line]), [
      ['KF-DEPA', 'K', 'individual'], ['PPF-DEPA', 'P', 'individual'], ['TJP-DEPA', 'T', 'occupational'], ['TJP-DEPA-ESG', 'T', 'occupational'],
    ]);
    assert.equal((await as('custodian', '/Product')).statusCode, 200, 'custodians read the catalogue too');

    const documents = (await as('firm', '/Product/KF-DEPA/document')).json() as { id: string; version: number; kind: string }[];
    assert.deepEqual(documents.map((d) => [d.id, d.version, d.kind]), [['KF-DEPA-PPI', 2, 'pre-purchase-information'], ['KF-DEPA-TERMS', 1, 'terms']]);

    const file = await as('firm', '/Document/KF-DEPA-PPI');
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-type'], 'application/pdf');
    assert.equal(file.rawPayload.subarray(0, 5).toString(), '%PDF-');
    assert.equal(file.headers['x-document-version'], '2');
    const etag = String(file.headers.etag);
    assert.match(etag, /^"[0-9a-f]{64}"$/);
    const again = await as('firm', '/Document/KF-DEPA-PPI', { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal((await as('firm', '/Document/KF-DEPA-PPI', { 'if-none-match': '"stale"' })).statusCode, 200);

    const funds = (await as('firm', '/Product/TJP-DEPA-ESG/Funds')).json() as { name: string; isin: string }[];
    assert.deepEqual(funds, [{ name: 'Depå Hållbar Global', isin: 'SE000DEPA036' }, { name: 'Depå Räntefond Kort', isin: 'SE000DEPA044' }]);

    for (const url of ['/Product/NO-SUCH/document', '/Product/NO-SUCH/Funds', '/Document/NO-SUCH']) {
      const missing = await as('firm', url);
      assert.equal(missing.statusCode, 404, url);
      assert.equal(missing.json().code, 'RESOURCE_NOT_FOUND');
    }
  });

  test('a product closed for subscription is no longer offered, nor its documents and funds', async () => {
    await gateway.deps.db.query(`UPDATE products SET open_for_subscription = false WHERE code = 'PPF-DEPA'`);
    try {
      assert.ok(!((await as('firm', '/Product')).json() as { id: string }[]).some((p) => p.id === 'PPF-DEPA'));
      for (const url of ['/Product/PPF-DEPA/document', '/Product/PPF-DEPA/Funds', '/Document/PPF-DEPA-PPI']) assert.equal((await as('firm', url)).statusCode, 404, url);
    } finally {
      await gateway.deps.db.query(`UPDATE products SET open_for_subscription = true WHERE code = 'PPF-DEPA'`);
    }
  });

  test("an advisor is shown to the advisor's own firm only; to anyone else exactly as an unknown code", async () => {
    const own = await as('firm', '/Advisor/ADV-001');
    assert.equal(own.statusCode, 200);
    assert.deepEqual(own.json(), {
      advisorIsActive: true, advisorOrganisationName: 'Demo Rådgivning AB', advisorOrganisationNumber: '5565555553', advisorOfficeName: 'Stockholm City',
      advisorOfficeCode: 'STHLM', advisorName: 'Karin Lind', advisorCode: 'ADV-001', advisorPersonalNumber: '198105171238',
    });
    assert.equal((await as('firm', '/Advisor/ADV-002')).json().advisorIsActive, false);
    const unknown = await as('firm', '/Advisor/ADV-404');
    for (const [client, code] of [['firm', 'ADV-900'], ['other-firm', 'ADV-001'], ['custodian', 'ADV-001']] as const) {
      const refused = await as(client, `/Advisor/${code}`);
      assert.equal(refused.statusCode, 404, `${client} reading ${code}`);
      assert.deepEqual(withoutDetail(refused), withoutDetail(unknown), 'refused looks like not found');
      assert.doesNotMatch(refused.body, /Karin|Nils|Rådgivning|Förmedling/);
    }
  });

  test('a malformed request is a problem listing what is wrong, with JSON paths', async () => {
    const long = await as('firm', `/Advisor/${'x'.repeat(65)}`);
    assert.equal(long.statusCode, 400);
    const problem = long.json() as { code: string; errors: { path: string; code: string }[] };
    assert.equal(problem.code, 'REQUEST_INVALID');
    assert.deepEqual(problem.errors.map((e) => [e.path, e.code]), [['$params.advisorcode', 'REQUEST_INVALID']]);
  });

  test('the OpenAPI description lists every route, and real answers follow its schemas', async () => {
    const description = (await inject({ url: '/openapi.json' })).json() as { openapi: string; paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>; components: { schemas: Record<string, unknown> } };
    assert.equal(description.openapi, '3.1.0');
    assert.deepEqual(Object.keys(description.paths).sort(), [
      '/Advisor/{advisorcode}', '/Customer/{customerNumber}/WithdrawalAccount', '/DirectQuery/{customerId}', '/Customer/{customerNumber}/WithdrawalInformation',
      '/Customer/{id}/InsuranceApplications', '/Document/{id}', '/Insurance/payoutrequest/{id}', '/Insurance/{insuranceNumber}/payoutrequest',
      '/Insurance/custodianswitch/{id}', '/Insurance/{insuranceNumber}/custodianswitch',
      '/Insurance/withdrawalrequest', '/Insurance/withdrawalrequest/{id}',
      '/Insurance/withdrawalrequest/{id}/receipt', '/Insurance/{insuranceNumber}/withdrawalInformation', '/InsuranceApplication', '/InsuranceApplication/validation',
      '/InsuranceApplication/{id}', '/InsuranceApplication/{id}/Receipt', '/PlanApplication', '/PlanApplication/validation', '/PlanApplication/{id}',
      '/PlanApplication/{id}/Receipt', '/Product', '/Product/{id}/Funds', '/Product/{id}/document', '/SignCase/{id}', '/SignCase/{id}/Collect',
      '/SignCase/{id}/Link', '/SignCase/{id}/Link/revoke', '/SignCase/{id}/Sign', '/oauth/token',
    ].sort());
    assert.equal((await inject({ url: '/openapi' })).statusCode < 400, true, 'the reference page');

    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    for (const [name, schema] of Object.entries(description.components.schemas)) ajv.addSchema(schema as object, `#/components/schemas/${name}`);
    const check = (path: string, answer: LightMyRequestResponse) => {
      const schema = description.paths[path]!.get!.responses[String(answer.statusCode)]!.content!['application/json']!.schema;
      const valid = ajv.validate(schema as object, answer.json());
      assert.ok(valid, `${path} ${answer.statusCode}: ${ajv.errorsText()}`);
    };
    check('/Product', await as('firm', '/Product'));
    check('/Product/{id}/document', await as('firm', '/Product/KF-DEPA/document'));
    check('/Product/{id}/Funds', await as('firm', '/Product/KF-DEPA/Funds'));
    check('/Advisor/{advisorcode}', await as('firm', '/Advisor/ADV-001'));
    check('/Advisor/{advisorcode}', await as('firm', '/Advisor/ADV-900'));
    check('/Product', await inject({ url: '/Product' }));
  });
});

function withoutDetail(answer: LightMyRequestResponse): Record<string, unknown> {
  const body = answer.json() as Record<string, unknown>;
  delete body.detail;
  return body;
}

describe('REST API token endpoint under repeated requests', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      roles: ['api'],
      settings: { api: { tokenRequestsPerMinute: 3, clients: [{ id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: await hashSecret(SECRETS.firm) }] } },
    });
  });
  afterAll(() => gateway.destroy());

  test('an address asking for tokens more often than allowed is told to wait, right secret or not', async () => {
    const ask = (secret: string) => gateway.http!.inject({ method: 'POST', url: '/oauth/token', headers: { authorization: basic('firm', secret), 'content-type': form }, payload: 'grant_type=client_credentials' });
    assert.equal((await ask('guess-1')).statusCode, 401);
    assert.equal((await ask('guess-2')).statusCode, 401);
    assert.equal((await ask(SECRETS.firm)).statusCode, 200);
    const slowed = await ask(SECRETS.firm);
    assert.equal(slowed.statusCode, 429);
    assert.ok(Number(slowed.headers['retry-after']) > 0, 'Retry-After');
    assert.equal(slowed.json().code, 'TOO_MANY_REQUESTS');
  });
});
