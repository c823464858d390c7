/**
 * Signing in the demo: with `bankidTestServer: true` (config/demo.yaml) the api role
 * starts the local BankID test server beside the gateway and points `bankid` at it, so
 * a withdrawal request's Sign starts a real order over mutual TLS instead of answering
 * 503. A person approves or refuses it on the test server's page, as a browser posts
 * the page's forms, and Collect answers complete or userCancel. On PostgreSQL and on
 * the embedded database `npm start` uses; then `depot-gateway --demo start` as a child
 * process (its summary names the page), `depot-gateway bankid-test-server` alone (a
 * client of its printed setting signs through it), and the refusals: outside the demo,
 * on a non-loopback host, beside a `bankid` of one's own.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import { createBankIdClientFromConfig } from '../src/bankid/bankid-client.ts';
import { ensureBankIdTestCertificates } from '../src/bankid/bankid-test-certificates.ts';
import { buildStartSummary, formatStartSummary } from '../src/cli/start-summary.ts';
import { loadConfig, parseConfig } from '../src/config/load-config.ts';
import { DEMO_PEOPLE } from '../src/demo/demo-data.ts';
import { advisorFirmApi } from './support/bankid.ts';
import { deleteQueues, startTestGateway, TEST_REDIS_URL, waitFor, type TestGateway } from './support/harness.ts';
import { freePort, runCli, runCliToEnd, writeConfigFile } from './support/processes.ts';

const EMPLOYER = '5561234567';
const FIA = DEMO_PEOPLE.find((p) => p.givenName === 'Fia')!;
const ANNA = DEMO_PEOPLE.find((p) => p.givenName === 'Anna')!;
const ACCOUNT = '6000123456789';
const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };

describe('the configuration', () => {
  test('the demo configuration asks for the test server', () => {
    assert.equal(loadConfig({ demo: true, env: {} }).bankidTestServer, true);
  });

  test('refused outside the demo, on a non-loopback host, and beside a bankid setting', () => {
    assert.throws(() => parseConfig({ bankidTestServer: true }), /bankidTestServer: .* is for the demo only \(demo: true\)/);
    assert.throws(() => parseConfig({ demo: true, bankidTestServer: true, host: '0.0.0.0', staff: { users: [] } }), /bankidTestServer: .* is not allowed with host 0\.0\.0\.0 \(not a loopback address\)/);
    const own = { url: 'https://appapi2.test.bankid.com', certPath: '/x.pem', keyPath: '/x.key', caPath: '/ca.pem' };
    assert.throws(() => parseConfig({ demo: true, bankidTestServer: true, bankid: own }), /bankidTestServer: .* points bankid at itself/);
    assert.equal(parseConfig({ demo: true, bankidTestServer: true, host: 'localhost' }).bankidTestServer, true);
  });

  test('the start summary names the page', () => {
    const summary = buildStartSummary(parseConfig({ demo: true, port: 8080 }), new Map(), 8080, 42, undefined, 'http://127.0.0.1:40123/');
    assert.equal(summary.bankIdTestPage, 'http://127.0.0.1:40123/');
    assert.match(formatStartSummary(summary), /\n {2}BankID test app {2}http:\/\/127\.0\.0\.1:40123\/ {2}\(approve or refuse sign orders as a demo person\)\n/);
  });

  test('its certificates are made once and reused; a broken set is made again', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'dg-bankid-certs-')), 'bankid-test');
    try {
      const first = await ensureBankIdTestCertificates(dir);
      const ca = await readFile(first.ca.cert, 'utf8');
      await ensureBankIdTestCertificates(dir);
      assert.equal(await readFile(first.ca.cert, 'utf8'), ca, 'reused');
      await writeFile(first.server.cert, await readFile(first.relyingParty.cert)); // a certificate that is not its key's
      await ensureBankIdTestCertificates(dir);
      const remade = await readFile(first.ca.cert, 'utf8');
      assert.notEqual(remade, ca, 'a new set');
      await ensureBankIdTestCertificates(dir, new Date(Date.now() + 365 * 24 * 60 * 60 * 1000));
      assert.notEqual(await readFile(first.ca.cert, 'utf8'), remade, 'a set about to expire is made again');
    } finally {
      await rm(join(dir, '..'), { recursive: true, force: true });
    }
  });
});

/** The page's pending order forms and token, as a browser reads them. */
interface PageState { readonly html: string; readonly token: string; readonly orderRefs: string[] }

async function readPage(pageUrl: string, query = ''): Promise<PageState> {
  const response = await fetch(`${pageUrl}${query}`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const html = await response.text();
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const orderRefs = [...html.matchAll(/action="\/orders\/([0-9a-f-]{36})\/approve"/g)].map((m) => m[1]!);
  return { html, token, orderRefs };
}

/** Posts a form of the page as a browser does, without following the redirect. */
async function postForm(pageUrl: string, path: string, fields: Record<string, string>): Promise<{ status: number; location: string | null; body: string }> {
  const response = await fetch(new URL(path, pageUrl), { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), body: await response.text() };
}

describe.each([['PostgreSQL', false], ['the embedded database', true]] as const)('a withdrawal signed on the test server\'s page (%s)', (_name, embedded) => {
  let gateway: TestGateway;
  const now = new Date('2026-11-27T09:00:00Z');

  beforeAll(async () => {
    gateway = await startTestGateway({ roles: ['api'], embedded, clock: () => now, settings: { bankidTestServer: true, api: await advisorFirmApi() } });
    const power = await staff({ method: 'POST', url: '/api/powers-of-attorney', payload: { holderOrganisationNumber: '5565555553', customerId: EMPLOYER, kind: 'intermediation', validFrom: '2026-01-01' } });
    assert.equal(power.statusCode, 201, power.body);
    const registered = await staff({ method: 'POST', url: `/api/organisations/${EMPLOYER}/signatories`, payload: { personalNumber: FIA.personalNumber, name: 'Fia Fransson', validFrom: '2026-01-01' } });
    assert.equal(registered.statusCode, 201, registered.body);
    assert.equal((await staff({ method: 'PUT', url: `/api/organisations/${EMPLOYER}/signing-rule`, payload: { requiredSignatures: 1 } })).statusCode, 200);
    const { db } = gateway.deps;
    await db.query(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id) VALUES ('DEPA-100006', '2026-11-25', 2000, 118000, 120000, 1, 'test-holdings')`);
    await db.query(
      `INSERT INTO withdrawal_accounts (registration_id, customer_id, account_digits, clearing_number, account_number, bank_name, registered_at, registered_by, validation_day, status, decided_at)
       VALUES ('WA-demo', $1, $2, '6000', '123456789', 'Handelsbanken', now(), 'client:firm', '2026-11-27', 'validated', now())`, [EMPLOYER, ACCOUNT],
    );
  }, 120_000);
  afterAll(async () => {
    await gateway?.destroy();
  });

  const staff = (options: InjectOptions) => gateway.http!.inject({ ...options, headers: { ...options.headers, ...STAFF } });
  const as = async (options: InjectOptions) => {
    const token = await gateway.http!.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&client_id=firm&client_secret=firm-secret' });
    return gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${(token.json() as { access_token: string }).access_token}` } });
  };
  const pageUrl = () => gateway.bankIdTestServer!.pageUrl;

  test('the gateway points bankid at the test server, with certificates of its test CA in the data folder; the page offers the demo\'s people', async () => {
    const server = gateway.bankIdTestServer!;
    assert.equal(gateway.config.bankid?.url, server.url);
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(pageUrl(), /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.equal(gateway.config.bankid?.caPath, join(gateway.dataDir, 'bankid-test', 'ca.pem'));
    assert.match(await readFile(join(gateway.dataDir, 'bankid-test', 'relying-party.pem'), 'utf8'), /BEGIN CERTIFICATE/);
    const { rows } = await gateway.deps.db.query<{ name: string; pin: string }>(
      `SELECT name, personal_identity_number AS pin FROM persons UNION SELECT name, personal_identity_number FROM agreement_contacts WHERE agreement_number = 'AGR-1001' ORDER BY pin`,
    );
    expect(DEMO_PEOPLE.map((p) => ({ name: `${p.givenName} ${p.surname}`, pin: p.personalNumber })).sort((a, b) => a.pin.localeCompare(b.pin))).toEqual(rows);
    assert.match((await readPage(pageUrl())).html, /No order is waiting/);
    // A site whose name is made to resolve to 127.0.0.1 reaches the page under its own name.
    const rebound = await new Promise<number>((resolve, reject) => {
      get(pageUrl(), { headers: { host: `rebound.example:${new URL(pageUrl()).port}` } }, (res) => resolve(res.resume().statusCode ?? 0)).on('error', reject);
    });
    assert.equal(rebound, 421, 'a name that is not loopback is refused');
  });

  test('Sign starts an order; the page shows its text; Approve with the page\'s token completes it as the person chosen; Refuse fails it userCancel', async () => {
    const created = await as({ method: 'POST', url: '/Insurance/withdrawalrequest', payload: { insuranceNumber: 'INS-100006', amount: '1000.00', accountNumber: ACCOUNT } });
    assert.equal(created.statusCode, 201, created.body);
    const { signCaseId } = created.json() as { signCaseId: string };
    const sign = (role: string, personalNumber?: string) => as({ method: 'POST', url: `/SignCase/${signCaseId}/Sign`, payload: { role, endUserIp: '192.0.2.10', ...(personalNumber ? { personalNumber } : {}) } });
    const collect = async (orderRef: string) => (await as({ method: 'POST', url: `/SignCase/${signCaseId}/Collect`, payload: { orderRef } })).json() as Record<string, unknown>;

    const started = await sign('company-signatory', FIA.personalNumber);
    assert.equal(started.statusCode, 201, started.body);
    const { orderRef } = started.json() as { orderRef: string };
    const page = await readPage(pageUrl());
    expect(page.orderRefs).toEqual([orderRef]);
    assert.match(page.html, /<h4>Uttag från depåförsäkring<\/h4>/);
    assert.match(page.html, /<strong>1 000,00 kr<\/strong> från försäkring INS-100006/);
    assert.match(page.html, /Any BankID may sign it/);
    for (const person of DEMO_PEOPLE) assert.match(page.html, new RegExp(`<option value="${person.personalNumber}">${person.givenName} ${person.surname} \\(${person.personalNumber}\\)</option>`));

    const approve = `/orders/${orderRef}/approve`;
    assert.equal((await postForm(pageUrl(), approve, { personalNumber: FIA.personalNumber })).status, 403, 'no token: refused');
    assert.equal((await postForm(pageUrl(), approve, { token: 'made-up', personalNumber: FIA.personalNumber })).status, 403, 'a token the page did not make');
    assert.equal((await collect(orderRef)).status, 'pending');
    const approved = await postForm(pageUrl(), approve, { token: page.token, personalNumber: FIA.personalNumber, otherPersonalNumber: '' });
    assert.deepEqual([approved.status, approved.location], [303, `/?done=${orderRef}`]);
    assert.equal((await postForm(pageUrl(), approve, { token: page.token, personalNumber: FIA.personalNumber })).status, 403, 'a token is used once');
    assert.match((await readPage(pageUrl(), `?done=${orderRef}`)).html, new RegExp(`role="status">Order ${orderRef.slice(0, 8)}: signed as Fia Fransson \\(${FIA.personalNumber}\\)\\.`));
    expect(await collect(orderRef)).toMatchObject({ status: 'complete', signedBy: FIA.personalNumber });

    const second = await sign('insured');
    assert.equal(second.statusCode, 201, second.body);
    const refusedRef = (second.json() as { orderRef: string }).orderRef;
    const refused = await postForm(pageUrl(), `/orders/${refusedRef}/refuse`, { token: (await readPage(pageUrl())).token });
    assert.equal(refused.status, 303);
    expect(await collect(refusedRef)).toMatchObject({ status: 'failed', hintCode: 'userCancel' });

    const third = await sign('insured');
    const lastRef = (third.json() as { orderRef: string }).orderRef;
    const ended = await postForm(pageUrl(), `/orders/${refusedRef}/approve`, { token: (await readPage(pageUrl())).token, personalNumber: ANNA.personalNumber });
    assert.equal(ended.status, 409, 'an order that has ended cannot be approved');
    assert.match(ended.body, /is failed\/userCancel/);
    const badNumber = await postForm(pageUrl(), `/orders/${lastRef}/approve`, { token: (await readPage(pageUrl())).token, personalNumber: '', otherPersonalNumber: '197001011234' });
    assert.equal(badNumber.status, 400, 'a personnummer whose check digit is wrong');
    assert.equal((await postForm(pageUrl(), `/orders/${lastRef}/approve`, { token: (await readPage(pageUrl())).token, personalNumber: '', otherPersonalNumber: ANNA.personalNumber })).status, 303);
    expect(await collect(lastRef)).toMatchObject({ status: 'complete', signedBy: ANNA.personalNumber });
    expect((await as({ method: 'GET', url: `/SignCase/${signCaseId}` })).json()).toMatchObject({ complete: true });
  });
});

test('npm start: `depot-gateway --demo start` starts the test server beside the gateway and names its page', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'dg-demo-bankid-'));
  const queuePrefix = `dgtest${Date.now().toString(36)}`;
  const gateway = runCli(['--demo', 'start'], { LOG_LEVEL: 'info', LOG_FORMAT: 'json', DATA_DIR: join(folder, 'data'), PORT: String(await freePort()), REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: queuePrefix });
  try {
    const summary = await waitFor(() => gateway.output().split('\n').filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; bankIdTestPage?: string })
      .find((record) => record.msg === 'where to look'), 'the start summary', 180_000);
    assert.match(summary.bankIdTestPage ?? '', /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.match((await readPage(summary.bankIdTestPage!)).html, /<h1>Local BankID test server<\/h1>/);
    assert.match(await readFile(join(folder, 'data', 'bankid-test', 'ca.pem'), 'utf8'), /BEGIN CERTIFICATE/);
    gateway.child.kill('SIGTERM');
    assert.equal(await gateway.exited, 0, gateway.output());
    await assert.rejects(fetch(summary.bankIdTestPage!), 'stopped with the gateway');
  } finally {
    if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    await deleteQueues(queuePrefix);
    await rm(folder, { recursive: true, force: true });
  }
}, 240_000);

describe('depot-gateway bankid-test-server', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'dg-bankid-alone-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test('runs alone on the port asked for and prints the setting that reaches it; a client of that setting signs through it', async () => {
    const port = await freePort();
    const server = runCli(['bankid-test-server', '--port', String(port)], { DATA_DIR: join(folder, 'data') });
    try {
      const line = await waitFor(() => /^ {2}bankid: (\{.*\})$/m.exec(server.output())?.[1], 'the printed setting', 60_000);
      const setting = JSON.parse(line) as { url: string; certPath: string; keyPath: string; caPath: string };
      assert.equal(setting.url, `https://127.0.0.1:${port}`);
      assert.equal(setting.caPath, join(folder, 'data', 'bankid-test', 'ca.pem'));
      const pageUrl = /^ {2}page {11}(http:\S+)/m.exec(server.output())?.[1] ?? '';
      const client = await createBankIdClientFromConfig({ ...setting, timeoutMs: 5_000 });
      try {
        const order = await client.sign({ endUserIp: '192.0.2.10', visibleText: '# Avtal <script>alert(1)</script>\n**Belopp**', visibleTextFormat: 'simpleMarkdownV1' });
        const page = await readPage(pageUrl);
        assert.match(page.html, /<h4>Avtal &lt;script&gt;alert\(1\)&lt;\/script&gt;<\/h4>/);
        assert.doesNotMatch(page.html, /<script/);
        const bertil = DEMO_PEOPLE.find((p) => p.givenName === 'Bertil')!;
        assert.equal((await postForm(pageUrl, `/orders/${order.orderRef}/approve`, { token: page.token, personalNumber: bertil.personalNumber })).status, 303);
        expect(await client.collect(order.orderRef)).toMatchObject({ status: 'complete', completionData: { user: { personalNumber: bertil.personalNumber, name: 'Bertil Berg' } } });
      } finally {
        client.close();
      }
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0, server.output());
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  }, 90_000);

  test('refused on a host that is not loopback, with the demo configuration or one\'s own', async () => {
    const demo = await runCliToEnd(['bankid-test-server'], { DATA_DIR: join(folder, 'data'), HOST: '0.0.0.0' });
    assert.equal(demo.code, 2);
    assert.match(demo.stderr, /CONFIG_INVALID[\s\S]*demo: the demo .* is not allowed with host 0\.0\.0\.0/);
    const own = await writeConfigFile(folder, { host: '0.0.0.0', dataDir: join(folder, 'data') });
    const refused = await runCliToEnd(['--config', own, 'bankid-test-server'], {});
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /CONFIG_INVALID[\s\S]*runs on loopback only, and the configuration's host is 0\.0\.0\.0/);
  }, 60_000);

  test('without the openssl command to make its certificates, it says so', async () => {
    const missing = await runCliToEnd(['bankid-test-server'], { DATA_DIR: join(folder, 'no-openssl'), PATH: join(folder, 'no-such-bin') });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /CONFIG_INVALID[\s\S]*the openssl command is not installed[\s\S]*sudo apt-get install openssl/);
  }, 60_000);
});
