/**
 * Switching custodian from end to end, on the embedded database and on PostgreSQL, with
 * the BankID adapter speaking mutual TLS to the local BankID server.
 *
 * Anna's capital insurance INS-100006 (made hers as policyholder here) moves from
 * demo-custodian (DEPA-100006) to north-custodian: the firm holding her intermediation
 * power registers the switch (a custodian, or a firm without a power, is answered 404);
 * a withdrawal is refused WITHDRAWAL_DURING_CUSTODIAN_SWITCH and the Q4 debit run holds
 * her line with the reason; her signature orders the switch — one CustodianSwitchOrder
 * to demo-custodian, recorded once however often she signs; a bad confirmation from
 * north-custodian is answered item by item and changes nothing; the good one confirms
 * NC-600006; demo-custodian's Transactions (TransferOut) and north-custodian's Holdings
 * complete the switch: the insurance's account and custodian change with a history row,
 * and the daily job orders the waiting Q4 line at north-custodian under a run key of its
 * own. A switch left idle is flagged stalled and mailed once.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import type { LocalPerson } from '../src/bankid/local-bankid-orders.ts';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { flagStalledSwitches, orderWaitingLines } from '../src/calendar/custodian-switches.job.ts';
import { makeRun, runDebitRun, runDepsFrom } from '../src/calendar/debit-run.ts';
import { checkReportDeadlines, expectedCustodians } from '../src/calendar/report-deadlines.job.ts';
import { recordCustodiansFirstSeen } from '../src/ledger/custody/custodians-first-seen.repository.ts';
import { advisorFirmApi, startTestBankId, type TestBankId } from './support/bankid.ts';
import { consolePage, signInToConsole } from './support/console-session.ts';
import { holdingsReport, transactionsReport } from './support/custodian-reports.ts';
import { startTestGateway, waitFor, type TestGateway, type TestGatewayOptions } from './support/harness.ts';

const ANNA: LocalPerson = { personalNumber: '197001011233', givenName: 'Anna', surname: 'Andersson' };
const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
/** The receiving custodian: it does not report daily otherwise (reports: false), so only the switch makes its reports due. */
const NORTH = { id: 'north-custodian', name: 'North Custodian AB', organisationNumber: '5560000019', role: 'custodian', messageTypes: ['custodian-reporting'], reports: false };
const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));

let testBankId: TestBankId;
beforeAll(async () => {
  testBankId = await startTestBankId();
});
afterAll(async () => {
  await testBankId?.close();
});

function confirmation(messageId: string, accounts: readonly { insurance: string; account: string }[], custodian = NORTH.organisationNumber): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<CustodianSwitchConfirmation xmlns="urn:se:depot-gateway:v1">',
    `  <Header><MessageId>${messageId}</MessageId><CreatedAt>2026-11-27T10:00:00+01:00</CreatedAt><CustodianOrganisationNumber>${custodian}</CustodianOrganisationNumber></Header>`,
    ...accounts.map((a) => `  <Account><InsuranceNumber>${a.insurance}</InsuranceNumber><AccountNumber>${a.account}</AccountNumber><OpenedOn>2026-11-27</OpenedOn></Account>`),
    '</CustodianSwitchConfirmation>', '',
  ].join('\n');
}

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];

describe.each(ENGINES)('custodian switch on %s', (_engine, engine) => {
  let gateway: TestGateway;
  let now = new Date('2026-11-27T08:00:00Z'); // Friday 27 November, 09:00 in Stockholm
  const mails: { to: string; subject: string; text: string }[] = [];

  beforeAll(async () => {
    const api = await advisorFirmApi();
    gateway = await startTestGateway({
      ...engine, roles: ['api'], inline: true, clock: () => now,
      settings: {
        api: { ...api, clients: [...(api.clients as unknown[]), { id: 'custodian-client', kind: 'custodian', counterpartyId: 'demo-custodian', secretHash: (api.clients as { secretHash: string }[])[0]!.secretHash }] },
        bankid: await testBankId.settings(),
        counterparties: [
          { id: 'demo-employer', name: 'Demo Employer AB', organisationNumber: '5561234567', role: 'employer', messageTypes: ['plan-administration'] },
          { id: 'demo-custodian', name: 'Demo Custodian AB', organisationNumber: '5560000001', role: 'custodian', messageTypes: ['custodian-reporting'] },
          NORTH,
        ],
      },
    });
    // Anna holds her capital insurance herself here; the firm holds her intermediation power.
    await gateway.deps.db.query(`UPDATE insurances SET policyholder = $1 WHERE insurance_number = 'INS-100006'`, [ANNA.personalNumber]);
    const power = await staff({ method: 'POST', url: '/api/powers-of-attorney', payload: { holderOrganisationNumber: '5565555553', customerId: ANNA.personalNumber, kind: 'intermediation', validFrom: '2026-01-01' } });
    assert.equal(power.statusCode, 201, power.body);
  }, 120_000);
  afterAll(() => gateway?.destroy());

  const tokenOf = async (client: string) => {
    const token = await gateway.http!.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=client_credentials&client_id=${client}&client_secret=firm-secret` });
    return (token.json() as { access_token: string }).access_token;
  };
  const as = async (options: InjectOptions, client = 'firm') => gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${await tokenOf(client)}` } });
  const staff = (options: InjectOptions) => gateway.http!.inject({ ...options, headers: { ...options.headers, ...STAFF } });
  const db = () => gateway.deps.db;
  const count = async (sql: string, params: unknown[] = []) => Number((await db().query<{ n: string }>(sql, params)).rows[0]!.n);
  const runDeps = () => runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log);
  const receive = async (counterpartyId: string, name: string, xml: string) => {
    const receipt = await gateway.intake.receive({ channel: 'cli', counterpartyId, externalId: name, receivedAt: now, content: { bytes: Buffer.from(xml) }, metadata: { fileName: name } });
    const { rows } = await db().query<{ outcome: string; body: string }>('SELECT m.outcome, r.body FROM messages m JOIN responses r ON r.message_id = m.id WHERE m.id = $1', [receipt.messageId]);
    return rows[0]!;
  };
  const switchOf = async (id: string) => (await as({ method: 'GET', url: `/Insurance/custodianswitch/${id}` })).json() as {
    status: string; signCaseId: string; toAccount: string | null; history: { event: string; by: string; reason: string | null }[];
  };

  let switchId = '';

  test('the firm with the power registers the switch; a custodian and a firm without a power get 404; nothing twice', async () => {
    const byCustodian = await as({ method: 'POST', url: '/Insurance/INS-100006/custodianswitch', payload: { toCustodian: 'north-custodian' } }, 'custodian-client');
    assert.equal(byCustodian.statusCode, 404, 'a custodian does not ask for a switch');
    const noPower = await as({ method: 'POST', url: '/Insurance/INS-100002/custodianswitch', payload: { toCustodian: 'north-custodian' } });
    assert.equal(noPower.statusCode, 404, 'no power on the employer: the same answer as an unknown insurance');
    const sameCustodian = await as({ method: 'POST', url: '/Insurance/INS-100006/custodianswitch', payload: { toCustodian: 'demo-custodian' } });
    assert.deepEqual([sameCustodian.statusCode, (sameCustodian.json() as { code: string }).code], [422, 'CUSTODIAN_SWITCH_NOT_ALLOWED']);

    const created = await as({ method: 'POST', url: '/Insurance/INS-100006/custodianswitch', payload: { toCustodian: 'north-custodian' } });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json() as { switchId: string; status: string; fromCustodian: string; fromAccount: string; signCaseId: string };
    assert.match(body.switchId, /^CS-\d{6}$/);
    assert.deepEqual([body.status, body.fromCustodian, body.fromAccount], ['requested', 'demo-custodian', 'DEPA-100006']);
    switchId = body.switchId;
    const again = await as({ method: 'POST', url: '/Insurance/INS-100006/custodianswitch', payload: { toCustodian: 'north-custodian' } });
    assert.equal((again.json() as { code: string }).code, 'CUSTODIAN_SWITCH_NOT_ALLOWED', 'one open switch per insurance');
    const signCase = (await as({ method: 'GET', url: `/SignCase/${body.signCaseId}` })).json() as { subjectKind: string; signatories: { role: string; personalNumber: string }[] };
    assert.equal(signCase.subjectKind, 'custodian-switch');
    assert.deepEqual(signCase.signatories.map((s) => [s.role, s.personalNumber]), [['policyholder', ANNA.personalNumber]]);
  });

  test('while it is open: a withdrawal is refused with its code, and the Q4 debit run holds the line with the reason', async () => {
    const withdrawal = await as({ method: 'POST', url: '/Insurance/withdrawalrequest', payload: { insuranceNumber: 'INS-100006', amount: '5000.00', accountNumber: '50001234560' } });
    assert.equal(withdrawal.statusCode, 409, withdrawal.body);
    assert.equal((withdrawal.json() as { code: string }).code, 'WITHDRAWAL_DURING_CUSTODIAN_SWITCH');
    assert.equal(await count(`SELECT count(*) AS n FROM withdrawal_requests WHERE insurance_number = 'INS-100006'`), 0);

    const run = await makeRun(db(), runDeps(), (tx) => runDebitRun(tx, runDeps(), { year: 2026, quarter: 4 }, now));
    const held = run.created.flatMap((c) => c.held).find((h) => h.insuranceNumber === 'INS-100006');
    assert.equal(held?.reason, `custodian switch ${switchId} from demo-custodian to north-custodian is open; ordered at north-custodian once it completes`);
    assert.equal(await count(`SELECT count(*) AS n FROM debit_lines WHERE insurance_number = 'INS-100006'`), 0, 'nothing ordered at either custodian');
    assert.equal(await count('SELECT count(*) AS n FROM custodian_switch_waits WHERE switch_id = $1 AND run_key = $2', [switchId, '2026-Q4']), 1);
  });

  test("Anna's signature orders it: one CustodianSwitchOrder to demo-custodian, recorded once", async () => {
    const { signCaseId } = await switchOf(switchId);
    for (let attempt = 0; attempt < 2; attempt++) {
      const started = await as({ method: 'POST', url: `/SignCase/${signCaseId}/Sign`, payload: { role: 'policyholder', endUserIp: '192.0.2.10' } });
      if (attempt === 1) {
        assert.equal(started.statusCode, 409, 'signed already');
        break;
      }
      assert.equal(started.statusCode, 201, started.body);
      const { orderRef } = started.json() as { orderRef: string };
      testBankId.server.control.signThrough(orderRef, ANNA);
      const collected = (await as({ method: 'POST', url: `/SignCase/${signCaseId}/Collect`, payload: { orderRef } })).json() as { status: string };
      assert.equal(collected.status, 'complete');
      await as({ method: 'POST', url: `/SignCase/${signCaseId}/Collect`, payload: { orderRef } });
    }
    const found = await switchOf(switchId);
    assert.equal(found.status, 'ordered');
    const { rows } = await db().query<{ document_id: string; counterparty_id: string; body: string }>(`SELECT document_id, counterparty_id, body FROM outgoing_documents WHERE document_type = 'CustodianSwitchOrder'`);
    assert.deepEqual(rows.map((r) => [r.document_id, r.counterparty_id]), [[`CSO-${switchId}`, 'demo-custodian']]);
    assert.deepEqual(schemas.validate(rows[0]!.body, 'CustodianSwitchOrder'), []);
    assert.match(rows[0]!.body, /<InsuranceNumber>INS-100006<\/InsuranceNumber>\s*<AccountNumber>DEPA-100006<\/AccountNumber>\s*<ReceivingCustodian>\s*<OrganisationNumber>5560000019<\/OrganisationNumber>/);
    const outbox = gateway.outbox('demo-custodian');
    const file = `custodian-switch-${switchId}.CustodianSwitchOrder.xml`;
    await waitFor(async () => (await readdir(outbox)).includes(file), 'the order delivered to the releasing custodian');
    assert.equal(await readFile(join(outbox, file), 'utf8'), rows[0]!.body);
  });

  test('a bad confirmation is answered item by item and changes nothing; the good one confirms the new account', async () => {
    const before = await count('SELECT count(*) AS n FROM custody_accounts');
    const bad = await receive('north-custodian', 'bad.xml', confirmation('CONF-BAD', [{ insurance: 'INS-100006', account: 'DEPA-100002' }, { insurance: 'INS-100001', account: 'NC-600001' }]));
    assert.equal(bad.outcome, 'rejected');
    assert.match(bad.body, /<ItemId>INS-100006<\/ItemId>\s*<Status>Rejected<\/Status>\s*<Code>CUSTODY_ACCOUNT_IN_USE<\/Code>/);
    assert.match(bad.body, /<ItemId>INS-100001<\/ItemId>\s*<Status>Rejected<\/Status>\s*<Code>CUSTODIAN_SWITCH_UNKNOWN<\/Code>/);
    assert.equal(await count('SELECT count(*) AS n FROM custody_accounts'), before);
    assert.equal((await switchOf(switchId)).status, 'ordered', 'nothing half-applied');
    const otherSender = await receive('demo-custodian', 'wrong.xml', confirmation('CONF-WRONG', [{ insurance: 'INS-100006', account: 'NC-600006' }], '5560000001'));
    assert.match(otherSender.body, /<Code>CUSTODIAN_SWITCH_UNKNOWN<\/Code>/, 'only the receiving custodian confirms');

    const good = await receive('north-custodian', 'good.xml', confirmation('CONF-1', [{ insurance: 'INS-100006', account: 'NC-600006' }]));
    assert.equal(good.outcome, 'accepted', good.body);
    assert.deepEqual(schemas.validate(good.body, 'CustodianSwitchConfirmationResponse'), []);
    const confirmed = await switchOf(switchId);
    assert.deepEqual([confirmed.status, confirmed.toAccount], ['confirmed', 'NC-600006']);
    assert.equal(await count(`SELECT count(*) AS n FROM custody_accounts WHERE account_number = 'NC-600006' AND custodian_id = 'north-custodian'`), 1);
    const again = await receive('north-custodian', 'again.xml', confirmation('CONF-2', [{ insurance: 'INS-100006', account: 'NC-600006' }]));
    assert.match(again.body, /<Code>CUSTODIAN_SWITCH_NOT_ORDERED<\/Code>/);
  });

  test('the 08:30 deadline expects the receiving custodian (not reporting daily otherwise) from the day the switch was ordered', async () => {
    await recordCustodiansFirstSeen(db(), ['demo-custodian', 'north-custodian'], new Date('2026-11-01T00:00:00Z'));
    const deps = { custodians: expectedCustodians(gateway.config.counterparties), mailSender: undefined, operationsAddress: undefined, log: gateway.log };
    assert.deepEqual(deps.custodians, ['demo-custodian'], 'north-custodian has reports: false');
    await db().transaction((tx) => checkReportDeadlines(tx, deps, ['2026-11-26', '2026-11-27'], new Date('2026-11-30T08:00:00Z')));
    const { rows } = await db().query<{ custodian: string; kind: string; day: string }>(
      `SELECT custodian_id AS custodian, kind, due_day::text AS day FROM custodian_report_deadlines WHERE status = 'missing' ORDER BY custodian_id, due_day, kind`);
    assert.deepEqual(rows.filter((r) => r.custodian === 'north-custodian').map((r) => [r.day, r.kind]), [['2026-11-27', 'Holdings'], ['2026-11-27', 'Transactions']]);
    assert.deepEqual(rows.filter((r) => r.custodian === 'demo-custodian').map((r) => r.day), ['2026-11-26', '2026-11-26', '2026-11-27', '2026-11-27']);
  });

  test("the releasing custodian's TransferOut and the receiving one's Holdings complete it: the account and custodian change with history; the waiting line is ordered at north-custodian", async () => {
    now = new Date('2026-11-30T07:00:00Z');
    const transfers = await receive('demo-custodian', 'tx.xml', transactionsReport('TX-SWITCH', '2026-11-27', [
      { accountNumber: 'DEPA-100006', transactions: [{ id: 'TO-1', type: 'TransferOut', tradeDate: '2026-11-27', isin: 'SE000DEPA010', quantity: '1000', amount: '0.00' }] },
    ]));
    assert.equal(transfers.outcome, 'accepted', transfers.body);
    assert.equal((await switchOf(switchId)).status, 'confirmed', 'half of the move is not the move');
    const holdings = await receive('north-custodian', 'h.xml', holdingsReport('H-NORTH', '2026-11-27', [
      { accountNumber: 'NC-600006', cash: '500.00', positions: [{ isin: 'SE000DEPA010', quantity: '1000', marketValue: '249500.00' }] },
    ], NORTH.organisationNumber));
    assert.equal(holdings.outcome, 'accepted', holdings.body);

    const done = await switchOf(switchId);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.history.map((e) => e.event), ['requested', 'signed', 'ordered', 'confirmed', 'transferred-out', 'value-arrived', 'moved', 'completed']);
    const { rows: [insurance] } = await db().query<{ account: string; custodian: string }>(
      `SELECT i.custody_account AS account, a.custodian_id AS custodian FROM insurances i JOIN custody_accounts a ON a.account_number = i.custody_account WHERE i.insurance_number = 'INS-100006'`);
    assert.deepEqual(insurance, { account: 'NC-600006', custodian: 'north-custodian' });
    const { rows: changes } = await db().query<Record<string, string>>(
      `SELECT effective_date::text, from_account, from_custodian, to_account, to_custodian, switch_id FROM insurance_custody_changes WHERE insurance_number = 'INS-100006'`);
    assert.deepEqual(changes, [{ effective_date: '2026-11-30', from_account: 'DEPA-100006', from_custodian: 'demo-custodian', to_account: 'NC-600006', to_custodian: 'north-custodian', switch_id: switchId }]);

    const deps = runDeps();
    const documents = await db().transaction((tx) => orderWaitingLines(tx, deps, now));
    assert.deepEqual(documents, [`DA-2026-Q4-${switchId}-north-custodian`]);
    assert.deepEqual(await db().transaction((tx) => orderWaitingLines(tx, deps, now)), [], 'ordered once');
    const { rows: lines } = await db().query<{ custodian_id: string; run_key: string; charge: string }>(
      `SELECT custodian_id, run_key, charge FROM debit_lines WHERE insurance_number = 'INS-100006' ORDER BY charge`);
    assert.ok(lines.length > 0 && lines.every((l) => l.custodian_id === 'north-custodian' && l.run_key === `2026-Q4-${switchId}`), JSON.stringify(lines));
    const { rows: [wait] } = await db().query<{ ordered: string }>('SELECT ordered_run_key AS ordered FROM custodian_switch_waits WHERE switch_id = $1', [switchId]);
    assert.equal(wait?.ordered, `2026-Q4-${switchId}`);
    const withdrawal = await as({ method: 'POST', url: '/Insurance/withdrawalrequest', payload: { insuranceNumber: 'INS-100006', amount: '5000.00', accountNumber: '50001234560' } });
    assert.notEqual((withdrawal.json() as { code?: string }).code, 'WITHDRAWAL_DURING_CUSTODIAN_SWITCH', 'completed: withdrawals are decided as before');
  });

  test('a switch with no step for more than the configured banking days is flagged and mailed once', async () => {
    const created = await staff({ method: 'POST', url: '/api/custodian-switches', payload: { insuranceNumber: 'INS-100006', toCustodian: 'demo-custodian', channel: 'paper-form', reference: 'form 4712' } });
    assert.equal(created.statusCode, 201, created.body);
    const { switchId: idle } = created.json() as { switchId: string };
    const mailSender = { send: async (mail: { to: string; subject: string; text: string }) => { mails.push(mail); return { messageId: 'm' }; }, close: async () => {} };
    const deps = { mailSender, operationsAddress: 'operations@insurer.example', stallBankingDays: 5, log: gateway.log };
    assert.deepEqual(await db().transaction((tx) => flagStalledSwitches(tx, deps, new Date('2026-12-07T08:00:00Z'))), [], 'five banking days: not yet');
    const flagged = await db().transaction((tx) => flagStalledSwitches(tx, deps, new Date('2026-12-08T08:00:00Z')));
    assert.deepEqual(flagged.map((s) => s.switchId), [idle]);
    assert.deepEqual(await db().transaction((tx) => flagStalledSwitches(tx, deps, new Date('2026-12-09T08:00:00Z'))), [], 'mailed once');
    assert.equal(mails.length, 1);
    assert.match(mails[0]!.text, new RegExp(`${idle}  INS-100006  north-custodian → demo-custodian  requested`));
    const overview = await staff({ method: 'GET', url: '/api/custodian-switches?open=true' });
    assert.deepEqual((overview.json() as { switchId: string; stalled: boolean }[]).map((s) => [s.switchId, s.stalled]), [[idle, true]]);

    // The console: the overview's card, the list marks it, and an operator's registration is refused with its code while it is open.
    const session = await signInToConsole(gateway.http!, 'staff', 'test-password');
    assert.match(await consolePage(gateway.http!, session, '/console'), /id="stalled-switches" href="\/console\/custodian-switches">1</);
    assert.match(await consolePage(gateway.http!, session, '/console/custodian-switches'), new RegExp(`data-switch="${idle}"><td>${idle}</td><td>requested <strong class="stalled">STALLED`));
    const refused = await gateway.http!.inject({
      method: 'POST', url: '/console/custodian-switches', headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: session.csrf, insuranceNumber: 'INS-100006', toCustodian: 'demo-custodian', channel: 'paper-form', reference: 'form 4713' }).toString(),
    });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /CUSTODIAN_SWITCH_NOT_ALLOWED: .* INS-100006 already has an open custodian switch/);
  });
  test('staff close the stalled switch; a switch back with the new account named is confirmed by the receiving custodian\'s first Holdings of it', async () => {
    const [stalled] = (await staff({ method: 'GET', url: '/api/custodian-switches?open=true' })).json() as { switchId: string }[];
    const closed = await staff({ method: 'POST', url: `/api/custodian-switches/${stalled!.switchId}/close`, payload: { reason: 'the policyholder changed her mind' } });
    assert.deepEqual([closed.statusCode, (closed.json() as { status: string }).status], [200, 'closed']);
    const signCase = (await as({ method: 'GET', url: `/SignCase/${(closed.json() as { signCaseId: string }).signCaseId}` })).json() as { closed: string | null };
    assert.equal(signCase.closed, 'the policyholder changed her mind', 'its sign case is closed with it');

    const created = await as({ method: 'POST', url: '/Insurance/INS-100006/custodianswitch', payload: { toCustodian: 'demo-custodian', toAccount: 'DEPA-700006' } });
    assert.equal(created.statusCode, 201, created.body);
    const { switchId: back, signCaseId } = created.json() as { switchId: string; signCaseId: string };
    const started = await as({ method: 'POST', url: `/SignCase/${signCaseId}/Sign`, payload: { role: 'policyholder', endUserIp: '192.0.2.10' } });
    const { orderRef } = started.json() as { orderRef: string };
    testBankId.server.control.signThrough(orderRef, ANNA);
    assert.equal(((await as({ method: 'POST', url: `/SignCase/${signCaseId}/Collect`, payload: { orderRef } })).json() as { status: string }).status, 'complete');
    assert.equal((await switchOf(back)).status, 'ordered');
    const { rows: [order] } = await db().query<{ counterparty: string; body: string }>('SELECT counterparty_id AS counterparty, body FROM outgoing_documents WHERE document_id = $1', [`CSO-${back}`]);
    assert.equal(order?.counterparty, 'north-custodian', 'the order goes to the custodian holding the insurance now');
    assert.match(order!.body, /<AccountNumber>NC-600006<\/AccountNumber>\s*<ReceivingCustodian>\s*<OrganisationNumber>5560000001<\/OrganisationNumber>\s*<Name>demo-custodian<\/Name>\s*<AccountNumber>DEPA-700006<\/AccountNumber>/);

    const holdings = await receive('demo-custodian', 'h-back.xml', holdingsReport('H-BACK', '2026-12-01', [
      { accountNumber: 'DEPA-700006', cash: '0.00', positions: [{ isin: 'SE000DEPA010', quantity: '1000', marketValue: '251000.00' }] },
    ]));
    assert.equal(holdings.outcome, 'accepted', holdings.body);
    const confirmed = await switchOf(back);
    assert.equal(confirmed.status, 'confirmed', 'the first Holdings of the named account confirm it; the transfer out is still to come');
    assert.deepEqual(confirmed.history.slice(-2).map((e) => [e.event, e.by, e.reason]), [
      ['confirmed', 'demo-custodian', 'Holdings of the new account DEPA-700006'], ['value-arrived', 'demo-custodian', '251000.00 SEK in DEPA-700006'],
    ]);
  });
});
