/**
 * The direct query (Direktfrågan), on the embedded database and on PostgreSQL:
 * GET /DirectQuery/{customerId} answers an advisor firm holding a valid information or
 * intermediation power of attorney on the customer with the customer's engagement, as
 * JSON (shaped as /openapi.json says) or as the EngagementResponse XML document (valid
 * against schemas/EngagementResponse.xsd, the same content); a custodian holding the
 * customer's account, a firm without a power, a firm whose power expired and an unknown
 * customer get the very same 404. Every answer is recorded (who, for whom, under which
 * power) and listed to staff; twenty queries at once record twenty rows; the customer is
 * masked in the log.
 *
 * The ledger: the demo's Anna (197001011233) is the insured of her employer's
 * occupational pension INS-100001 (T) and capital insurance INS-100006 (K); the employer
 * (5561234567) holds all six demo insurances. Debit runs of Q3 2025 (more than a year
 * ago) and Q3 2026, a payout of INS-100001 from December 2026 with December's payout
 * ordered, and a named beneficiary recorded for INS-100006 are made here.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { gatewayLoggerOptions } from '../src/observability/gateway-logger.ts';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { hashSecret } from '../src/config/secret-hash.ts';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { makeRun, runDebitRun, runDepsFrom } from '../src/calendar/debit-run.ts';
import { runPayoutRun, schedulePayout } from '../src/calendar/payout-run.ts';
import { signInToConsole } from './support/console-session.ts';
import { startTestGateway, testSettings, type TestGateway, type TestGatewayOptions } from './support/harness.ts';
import { freePort, runCliToEnd, writeConfigFile } from './support/processes.ts';

const FIRM_A = '5565555553';
const FIRM_B = '5567777775';
const ANNA = '197001011233';
const EMPLOYER = '5561234567';
/** Tove: a power of attorney on her, and no insurance. */
const TOVE = '198506152381';
/** A valid personnummer nobody in the ledger has. */
const NOBODY = '199506151233';
const NOW = new Date('2026-11-27T10:00:00Z');
const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
const CLIENTS = { 'firm-a': 'firm-a-secret', 'firm-b': 'firm-b-secret', custodian: 'custodian-secret' } as const;
type Client = keyof typeof CLIENTS;
const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));

interface EngagementJson {
  queryId: string; customerId: string; asOf: string; powerOfAttorney: string;
  insurances: {
    insuranceNumber: string; roles: string[]; policyholder: string | null; insured: string; product: { code: string; name: string }; insuranceType: string;
    startDate: string; status: string; end: { lastDay: string; cause: string } | null;
    custody: { accountNumber: string; custodianId: string | null; custodianName: string | null; latestValue: { asOf: string; totalValue: string } | null } | null;
    premiums: { monthlyAmount: string | null; history: { from: string; monthlyAmount: string }[]; paidUpFrom: string | null };
    coverages: { type: string; from: string }[];
    payout: { canBegin: string; plan: { startMonth: string; months: number | null; status: string } | null; payouts: { month: string; installment: number; amount: string; final: boolean }[] };
    beneficiary: { choice: string; names: string[] } | null;
    charges: { from: string; to: string; total: string; lines: { charge: string; amount: string; periodFrom: string; periodTo: string }[] };
  }[];
}

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];

describe.each(ENGINES)('the direct query on %s', (_engine, engine) => {
  let gateway: TestGateway;
  const tokens = new Map<Client, string>();

  beforeAll(async () => {
    gateway = await startTestGateway({
      ...engine, roles: ['api'], inline: true, clock: () => NOW,
      settings: {
        api: {
          tokenRequestsPerMinute: 1000,
          limits: { requestsPerSecond: 10_000, burst: 10_000, concurrentRequests: 12 },
          clients: [
            { id: 'firm-a', kind: 'advisor-firm', organisationNumber: FIRM_A, secretHash: await hashSecret(CLIENTS['firm-a']) },
            { id: 'firm-b', kind: 'advisor-firm', organisationNumber: FIRM_B, secretHash: await hashSecret(CLIENTS['firm-b']) },
            { id: 'custodian', kind: 'custodian', counterpartyId: 'demo-custodian', secretHash: await hashSecret(CLIENTS.custodian) },
          ],
        },
      },
    });
    for (const [id, secret] of Object.entries(CLIENTS) as [Client, string][]) {
      const answer = await gateway.http!.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=client_credentials&client_id=${id}&client_secret=${secret}` });
      assert.equal(answer.statusCode, 200, answer.body);
      tokens.set(id, (answer.json() as { access_token: string }).access_token);
    }
    // The demo's firm A acts for Anna (intermediation) and reads the employer (information). Firm B reads Anna
    // (information) and its power on the employer ended yesterday; firm A reads Tove, who has no insurance.
    for (const [holder, customerId, kind, validFrom, validTo] of [
      [FIRM_B, ANNA, 'information', '2026-11-01', '2027-10-31'], [FIRM_B, EMPLOYER, 'intermediation', '2025-01-01', '2026-11-26'],
      [FIRM_A, TOVE, 'information', '2026-11-01', null],
    ] as const) {
      const granted = await staff({ method: 'POST', url: '/api/powers-of-attorney', payload: { holderOrganisationNumber: holder, customerId, kind, validFrom, ...(validTo ? { validTo } : {}) } });
      assert.equal(granted.statusCode, 201, granted.body);
    }
    const { db } = gateway.deps;
    await db.query(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
      SELECT account_number, as_of::date, 0, total_value, total_value, 1, 'test' FROM (VALUES
        ('DEPA-100001', '2025-06-30', 300000.00), ('DEPA-100001', '2025-09-30', 310000.00), ('DEPA-100001', '2026-06-30', 400000.00),
        ('DEPA-100001', '2026-09-30', 405000.00), ('DEPA-100001', '2026-11-26', 412345.67),
        ('DEPA-100006', '2025-06-30', 80000.00), ('DEPA-100006', '2025-09-30', 81000.00), ('DEPA-100006', '2026-06-30', 88000.00),
        ('DEPA-100006', '2026-09-30', 89000.00), ('DEPA-100006', '2026-11-25', 98765.43), ('DEPA-100006', '2026-10-30', 90000.00)
      ) AS v(account_number, as_of, total_value)`);
    const runDeps = runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log);
    await makeRun(db, runDeps, (tx) => runDebitRun(tx, runDeps, { year: 2025, quarter: 3 }, new Date('2025-11-03T08:00:00Z')));
    await makeRun(db, runDeps, (tx) => runDebitRun(tx, runDeps, { year: 2026, quarter: 3 }, new Date('2026-11-02T08:00:00Z')));
    await db.transaction((tx) => schedulePayout(tx, {
      insuranceNumber: 'INS-100001', startMonth: '2026-12', terms: { months: 60 }, registration: { withdrawalAccount: '50001234560', registeredBy: 'staff:staff' },
    }, NOW));
    await makeRun(db, runDeps, (tx) => runPayoutRun(tx, runDeps, '2026-12', NOW));
    await db.query(
      `INSERT INTO applications (application_id, kind, firm_organisation_number, advisor_code, customer_id, product_code, body, status, submitted_at, insurance_number)
       VALUES ('IA-DQ-TEST', 'insurance', $1, 'ADV-001', $2, 'KF-DEPA', $3, 'issued', now(), 'INS-100006')`,
      [FIRM_A, EMPLOYER, JSON.stringify({ beneficiary: { choice: 'named', names: ['Bo Andersson', 'Cilla Andersson'] } })],
    );
  }, 180_000);
  afterAll(() => gateway?.destroy());

  const as = (client: Client, options: InjectOptions) =>
    gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${tokens.get(client)}` } });
  const staff = (options: InjectOptions) => gateway.http!.inject({ ...options, headers: { ...options.headers, ...STAFF } });
  const directQuery = (client: Client, customerId: string, accept?: string) =>
    as(client, { method: 'GET', url: `/DirectQuery/${customerId}`, ...(accept ? { headers: { accept } } : {}) });
  const recorded = async () => (await gateway.deps.db.query<{ n: string }>('SELECT count(*)::text AS n FROM direct_queries')).rows[0]!.n;
  const withoutInstance = (answer: LightMyRequestResponse) => `${String(answer.headers['content-type'])} ${answer.body}`;

  test('the power rule: information and intermediation powers are answered; a custodian, no power, an expired power and an unknown customer get the same 404', async () => {
    const before = Number(await recorded());
    const intermediation = await directQuery('firm-a', ANNA);
    assert.equal(intermediation.statusCode, 200, intermediation.body);
    assert.equal((intermediation.json() as EngagementJson).powerOfAttorney, 'intermediation');
    const information = await directQuery('firm-b', ANNA);
    assert.equal(information.statusCode, 200, information.body);
    assert.equal((information.json() as EngagementJson).powerOfAttorney, 'information');

    const unknown = await directQuery('firm-a', NOBODY);
    assert.equal(unknown.statusCode, 404);
    assert.equal((unknown.json() as { code: string }).code, 'RESOURCE_NOT_FOUND');
    const refusals = {
      'the custodian holding her accounts': await directQuery('custodian', ANNA),
      'a firm without a power': await directQuery('firm-b', TOVE),
      'a firm whose power ended yesterday': await directQuery('firm-b', EMPLOYER),
      'the custodian, the employer': await directQuery('custodian', EMPLOYER),
    };
    for (const [who, answer] of Object.entries(refusals)) {
      assert.equal(answer.statusCode, 404, who);
      assert.equal(withoutInstance(answer), withoutInstance(unknown), `${who}: the very answer an unknown customer gets`);
      assert.ok(![ANNA, EMPLOYER, TOVE].some((id) => answer.body.includes(id)), `${who}: nothing of the customer`);
    }
    assert.equal(Number(await recorded()) - before, 2, 'only the answered queries are recorded');
    const { queries } = (await staff({ url: `/api/direct-queries?limit=2` })).json() as { queries: { customerId: string; firmOrganisationNumber: string; clientId: string; powerKind: string; powerOfAttorneyId: string; answeredAs: string; insuranceCount: number }[] };
    const powers = (await staff({ url: '/api/powers-of-attorney' })).json() as { id: string; holderOrganisationNumber: string; customerId: string; kind: string }[];
    const powerOf = (holder: string, customer: string) => powers.find((p) => p.holderOrganisationNumber === holder && p.customerId === customer)!.id;
    assert.deepEqual(queries.map(({ customerId, firmOrganisationNumber, clientId, powerKind, powerOfAttorneyId, answeredAs, insuranceCount }) =>
      ({ customerId, firmOrganisationNumber, clientId, powerKind, powerOfAttorneyId, answeredAs, insuranceCount })), [
      { customerId: ANNA, firmOrganisationNumber: FIRM_B, clientId: 'firm-b', powerKind: 'information', powerOfAttorneyId: powerOf(FIRM_B, ANNA), answeredAs: 'json', insuranceCount: 2 },
      { customerId: ANNA, firmOrganisationNumber: FIRM_A, clientId: 'firm-a', powerKind: 'intermediation', powerOfAttorneyId: powerOf(FIRM_A, ANNA), answeredAs: 'json', insuranceCount: 2 },
    ]);
  });

  test("Anna's engagement: both insurances she is insured by, with custody, values, premiums, coverages, payout, beneficiary and the last year's charges; JSON as /openapi.json describes it", async () => {
    const answer = await directQuery('firm-a', ANNA);
    assert.equal(answer.statusCode, 200, answer.body);
    const engagement = answer.json() as EngagementJson;
    assert.equal(engagement.customerId, ANNA);
    assert.equal(engagement.asOf, '2026-11-27');
    assert.deepEqual(engagement.insurances.map((i) => [i.insuranceNumber, i.roles, i.policyholder, i.insured, i.product.code, i.insuranceType, i.status]), [
      ['INS-100001', ['insured'], EMPLOYER, ANNA, 'TJP-DEPA', 'T', 'in payout'],
      ['INS-100006', ['insured'], EMPLOYER, ANNA, 'KF-DEPA', 'K', 'in force'],
    ]);
    const [pension, capital] = engagement.insurances as [EngagementJson['insurances'][0], EngagementJson['insurances'][0]];
    assert.deepEqual(pension.custody, { accountNumber: 'DEPA-100001', custodianId: 'demo-custodian', custodianName: 'Demo Custodian AB', latestValue: { asOf: '2026-11-26', totalValue: '412345.67' } });
    assert.deepEqual(capital.custody?.latestValue, { asOf: '2026-11-25', totalValue: '98765.43' }, 'the latest of its values');
    assert.deepEqual(pension.premiums, { monthlyAmount: '1800.00', history: [{ from: '2020-01-01', monthlyAmount: '1800.00' }], paidUpFrom: null });
    assert.deepEqual(capital.coverages, [{ type: 'repaymentProtection', from: '2022-01-01' }]);
    assert.deepEqual(pension.coverages, []);
    assert.equal(pension.payout.plan?.startMonth, '2026-12');
    assert.equal(pension.payout.plan?.months, 60);
    assert.deepEqual(pension.payout.payouts.map((p) => [p.month, p.installment, p.final]), [['2026-12', 1, false]]);
    assert.match(pension.payout.payouts[0]!.amount, /^\d+\.\d{2}$/);
    assert.equal(capital.payout.plan, null);
    assert.deepEqual(capital.beneficiary, { choice: 'named', names: ['Bo Andersson', 'Cilla Andersson'] });
    assert.equal(pension.beneficiary, null, 'none recorded for an insurance bought under the agreement');
    assert.equal(pension.end, null);

    // Q3 2026's lines only: Q3 2025 ended more than a year before.
    for (const insurance of [pension, capital]) {
      assert.deepEqual([insurance.charges.from, insurance.charges.to], ['2025-11-27', '2026-11-27']);
      assert.ok(insurance.charges.lines.length > 0, `${insurance.insuranceNumber} has charges`);
      assert.deepEqual([...new Set(insurance.charges.lines.map((l) => `${l.periodFrom}..${l.periodTo}`))], ['2026-07-01..2026-09-30']);
      assert.ok(insurance.charges.lines.every((l) => l.charge !== 'SellOrder'));
      const cents = insurance.charges.lines.reduce((sum, l) => sum + Math.round(Number(l.amount) * 100), 0);
      assert.equal(insurance.charges.total, (cents / 100).toFixed(2));
    }
    const ledgerLines = await gateway.deps.db.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM debit_lines WHERE insurance_number = 'INS-100006' AND charge <> 'SellOrder' AND period_to >= '2025-11-27'`);
    assert.equal(String(capital.charges.lines.length), ledgerLines.rows[0]!.n);
    assert.ok(Number((await gateway.deps.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM debit_lines WHERE insurance_number = 'INS-100006' AND period_to < '2025-11-27'`)).rows[0]!.n) > 0, 'older lines exist and are left out');

    const description = (await gateway.http!.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }>; components: { schemas: Record<string, object> };
    };
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    for (const [name, schema] of Object.entries(description.components.schemas)) ajv.addSchema(schema, `#/components/schemas/${name}`);
    const responses = description.paths['/DirectQuery/{customerId}']!.get.responses;
    assert.ok(ajv.validate(responses['200']!.content['application/json']!.schema, engagement), ajv.errorsText());
    assert.ok(responses['200']!.content['application/xml'], 'the XML answer is described');
    assert.ok(ajv.validate(responses['404']!.content['application/json']!.schema, (await directQuery('custodian', ANNA)).json()), ajv.errorsText());
  });

  test('the employer holds all six as policyholder: paid-up and the premium in force as of today', async () => {
    const engagement = (await directQuery('firm-a', EMPLOYER)).json() as EngagementJson;
    assert.equal(engagement.powerOfAttorney, 'information');
    assert.deepEqual(engagement.insurances.map((i) => i.insuranceNumber), ['INS-100001', 'INS-100002', 'INS-100003', 'INS-100004', 'INS-100005', 'INS-100006']);
    assert.ok(engagement.insurances.every((i) => i.roles.join() === 'policyholder'));
    const paidUp = engagement.insurances.find((i) => i.insuranceNumber === 'INS-100005')!;
    assert.deepEqual([paidUp.status, paidUp.premiums.paidUpFrom, paidUp.premiums.monthlyAmount], ['paid-up', '2026-07-01', null]);
  });

  test('a firm with a power on a customer without insurances is answered with none', async () => {
    const answer = await directQuery('firm-a', TOVE);
    assert.equal(answer.statusCode, 200, answer.body);
    assert.deepEqual((answer.json() as EngagementJson).insurances, []);
  });

  test('with Accept: application/xml the answer is an EngagementResponse valid against its schema, with the same content as the JSON', async () => {
    const json = (await directQuery('firm-a', ANNA)).json() as EngagementJson;
    const answer = await directQuery('firm-a', ANNA, 'application/xml');
    assert.equal(answer.statusCode, 200, answer.body);
    assert.match(String(answer.headers['content-type']), /^application\/xml/);
    const xml = answer.body;
    assert.deepEqual(schemas.validate(xml, 'EngagementResponse'), []);
    const queryId = (await staff({ url: '/api/direct-queries?limit=1' })).json().queries[0] as { id: string; answeredAs: string };
    assert.equal(queryId.answeredAs, 'xml');
    assert.equal(first(xml, 'MessageId'), `DQ-${queryId.id}`);
    assert.deepEqual([first(xml, 'CustomerId'), first(xml, 'AdvisorFirm'), first(xml, 'PowerOfAttorney'), first(xml, 'AsOf')], [ANNA, FIRM_A, 'intermediation', '2026-11-27']);
    const insurances = [...xml.matchAll(/<Insurance>([\s\S]*?)<\/Insurance>/g)].map((m) => m[1]!);
    assert.equal(insurances.length, json.insurances.length);
    for (const [index, text] of insurances.entries()) {
      const expected = json.insurances[index]!;
      assert.deepEqual({
        number: first(text, 'InsuranceNumber'), roles: all(text, 'Role'), type: first(text, 'InsuranceType'), status: first(text, 'Status'),
        account: first(text, 'AccountNumber'), custodian: first(text, 'CustodianName'), value: first(text, 'Value'),
        premium: first(text, 'MonthlyAmount'), coverages: all(text, 'Type').filter((t) => t === 'repaymentProtection' || t === 'premiumWaiver'),
        payments: all(text, 'Installment').length, beneficiaries: all(text, 'Name'), total: first(text, 'Total'), charges: (text.match(/<Charge>/g) ?? []).length,
      }, {
        number: expected.insuranceNumber, roles: expected.roles, type: expected.insuranceType, status: expected.status,
        account: expected.custody?.accountNumber, custodian: expected.custody?.custodianName ?? undefined, value: expected.custody?.latestValue?.totalValue,
        premium: expected.premiums.monthlyAmount ?? undefined, coverages: expected.coverages.map((c) => c.type),
        payments: expected.payout.payouts.length, beneficiaries: expected.beneficiary?.names ?? [], total: expected.charges.total, charges: expected.charges.lines.length,
      }, expected.insuranceNumber);
    }
    // An Accept that prefers JSON, or names neither, is answered with JSON.
    assert.match(String((await directQuery('firm-a', ANNA, 'application/json, application/xml;q=0.5')).headers['content-type']), /^application\/json/);
    assert.match(String((await directQuery('firm-a', ANNA, '*/*')).headers['content-type']), /^application\/json/);
  });

  test('a malformed customer id is REQUEST_INVALID, a wrong check digit its own code; neither is recorded', async () => {
    const before = await recorded();
    const malformed = await directQuery('firm-a', '19700101-1233');
    assert.equal(malformed.statusCode, 400);
    assert.deepEqual((malformed.json() as { code: string; errors: { path: string }[] }).errors.map((e) => e.path), ['$params.customerId']);
    const badPin = await directQuery('firm-a', '197001011234');
    assert.deepEqual([badPin.statusCode, (badPin.json() as { code: string }).code], [422, 'PERSONAL_IDENTITY_NUMBER_INVALID']);
    const badOrganisation = await directQuery('firm-a', '5561234568');
    assert.deepEqual([badOrganisation.statusCode, (badOrganisation.json() as { code: string }).code], [422, 'ORGANISATION_NUMBER_INVALID']);
    assert.equal(await recorded(), before);
  });

  test('twenty queries at once are twenty answers and twenty records, each answer naming its own', async () => {
    const before = Number(await recorded());
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => directQuery(n % 2 === 0 ? 'firm-a' : 'firm-b', n % 2 === 0 ? EMPLOYER : ANNA)));
    assert.deepEqual(answers.map((a) => a.statusCode), Array(20).fill(200));
    const ids = answers.map((a) => (a.json() as EngagementJson).queryId);
    assert.equal(new Set(ids).size, 20);
    assert.equal(Number(await recorded()) - before, 20);
    const rows = await gateway.deps.db.query<{ id: string; customer_id: string; client_id: string }>(
      'SELECT id::text AS id, customer_id, client_id FROM direct_queries WHERE id = ANY($1::bigint[]) ORDER BY id', [ids]);
    assert.equal(rows.rows.length, 20);
    for (const [n, answer] of answers.entries()) {
      const row = rows.rows.find((r) => r.id === (answer.json() as EngagementJson).queryId)!;
      assert.deepEqual([row.customer_id, row.client_id], n % 2 === 0 ? [EMPLOYER, 'firm-a'] : [ANNA, 'firm-b']);
    }
    const forAnna = (await staff({ url: `/api/direct-queries?customer=${ANNA}&limit=1000` })).json() as { queries: { customerId: string }[] };
    assert.ok(forAnna.queries.length >= 10 && forAnna.queries.every((q) => q.customerId === ANNA));
    assert.equal((await staff({ url: '/api/direct-queries?limit=0' })).statusCode, 400);
    assert.equal((await gateway.http!.inject({ url: '/api/direct-queries' })).statusCode, 401, 'staff only');
  });

  test("the console lists the record, a personnummer masked; one customer's queries by its link", async () => {
    const session = await signInToConsole(gateway.http!, 'staff', 'test-password');
    const all = (await gateway.http!.inject({ url: '/console/direct-queries', headers: { cookie: session.cookie } })).body;
    const rows = [...all.matchAll(/<tr><td>(\d+)<\/td><td>[^<]*<\/td><td>(\d+)<\/td><td>([^<]+)<\/td><td><a href="\/console\/direct-queries\?customer=(\d+)">([^<]+)<\/a><\/td><td>([^<]+)<\/td><td>([^<]+)<\/td><td>(\d+)<\/td><\/tr>/g)];
    assert.equal(String(rows.length), await recorded(), 'every query recorded, each a row');
    const masked = rows.find((row) => row[4] === ANNA)!;
    assert.ok(masked, "Anna's queries are listed");
    assert.equal(masked[5], '19700101-****');
    assert.ok(!all.includes(`>${ANNA}<`), 'her personnummer is not shown in full');
    assert.ok(rows.some((row) => row[5] === EMPLOYER && row[3] === 'firm-a' && row[6]!.startsWith('information (#') && row[7] === 'JSON' && row[8] === '6'));
    const annas = (await gateway.http!.inject({ url: `/console/direct-queries?customer=${ANNA}`, headers: { cookie: session.cookie } })).body;
    const annaRows = [...annas.matchAll(/<tr><td>\d+<\/td>/g)].length;
    assert.equal(String(annaRows), (await gateway.deps.db.query<{ n: string }>('SELECT count(*)::text AS n FROM direct_queries WHERE customer_id = $1', [ANNA])).rows[0]!.n);
    assert.match((await gateway.http!.inject({ url: '/console/audit', headers: { cookie: session.cookie } })).body, /href="\/console\/direct-queries"/);
  });

  test('depot-gateway powers-of-attorney queries lists the record through the running gateway, and in-process when none is up (PostgreSQL)', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'dg-direct-query-cli-'));
    try {
      const port = (gateway.http!.server.address() as AddressInfo).port;
      await Promise.all(['through', 'in-process'].map((name) => mkdir(join(folder, name))));
      const throughGateway = await writeConfigFile(join(folder, 'through'), testSettings(join(folder, 'through-data'), { port }));
      const expected = (await gateway.deps.db.query<{ id: string }>('SELECT id::text AS id FROM direct_queries WHERE customer_id = $1 ORDER BY queried_at DESC, id DESC LIMIT 3', [ANNA])).rows.map((r) => r.id);
      const remote = await runCliToEnd(['powers-of-attorney', 'queries', '--customer', ANNA, '--limit', '3', '--json', '--config', throughGateway]);
      assert.equal(remote.code, 0, remote.stderr);
      const listed = remote.stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { id: string; customerId: string; powerKind: string });
      assert.equal(expected.length, 3, 'the earlier tests recorded queries for Anna');
      assert.deepEqual(listed.map((q) => q.id), expected);
      assert.ok(listed.every((q) => q.customerId === ANNA));
      const refused = await runCliToEnd(['powers-of-attorney', 'queries', '--limit', '0', '--config', throughGateway]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /REQUEST_INVALID: .*limit is a whole number from 1 to 1000/);
      if (gateway.database) {
        const inProcess = await writeConfigFile(join(folder, 'in-process'), testSettings(join(folder, 'in-process-data'), { port: await freePort(), databaseUrl: gateway.database.url }));
        const local = await runCliToEnd(['powers-of-attorney', 'queries', '--firm', FIRM_B, '--config', inProcess]);
        assert.equal(local.code, 0, local.stderr);
        const [header, ...lines] = local.stdout.trimEnd().split('\n');
        assert.match(header!, /^ID\s+AT\s+FIRM\s+CLIENT\s+CUSTOMER\s+POWER\s+AS\s+INSURANCES$/);
        const byFirmB = (await gateway.deps.db.query<{ n: string }>('SELECT count(*)::text AS n FROM direct_queries WHERE firm_organisation_number = $1', [FIRM_B])).rows[0]!.n;
        assert.equal(String(lines.length), byFirmB);
        assert.ok(lines.every((line) => line.includes('firm-b') && line.includes(FIRM_B)));
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }, 300_000);
});

test("the gateway's log masks the customer of a direct query path", () => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(chunk.toString()); done(); } });
  const log = pino(gatewayLoggerOptions('info'), sink);
  log.info({ req: { method: 'GET', url: `/DirectQuery/${EMPLOYER}` } }, 'incoming request');
  log.info({ req: { method: 'GET', url: `/DirectQuery/${ANNA}` } }, 'incoming request');
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /"url":"\/DirectQuery\/556123\*\*\*\*"/);
  assert.match(lines[1]!, /"url":"\/DirectQuery\/197001\*\*\*\*"/);
  assert.ok(lines.every((line) => !line.includes(EMPLOYER) && !line.includes(ANNA)));
});

function first(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
}

function all(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1]!);
}
