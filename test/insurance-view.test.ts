/**
 * Staff look at any insurance, on real PostgreSQL and Redis: an individual capital
 * insurance applied for through the REST API and signed with BankID on the local BankID
 * server (no agreement: the person view never finds it)
 * with a custody value, a withdrawal request and debit lines is read whole through GET
 * /api/insurances/:number — in one statement, counted on the database handle — and
 * through the console page, which masks the personal identity numbers and is linked
 * from the withdrawal, application and payout-notice lists; once its end is recorded it is shown
 * ended, with no premium. A demo insurance under the employer's agreement names the
 * agreement and the employer; an unknown number is RESOURCE_NOT_FOUND. The CLI's text
 * is checked on the view the API gave.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { parseBankAccount } from '../src/core/bank-account.ts';
import { formatInsurance } from '../src/cli/insurance.command.ts';
import type { Database, Sql } from '../src/ledger/database.ts';
import { insertLines, insertRun } from '../src/ledger/custody/debit-runs.repository.ts';
import type { InsuranceView } from '../src/ledger/plan/insurance-view.repository.ts';
import { recordPayoutCanBegin } from '../src/ledger/plan/payout-start.repository.ts';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { insertSignCase } from '../src/ledger/advice/sign-cases.repository.ts';
import { insertWithdrawalRequest } from '../src/ledger/advice/withdrawal-requests.repository.ts';
import { signatoriesOf, withdrawalSignText } from '../src/core/withdrawal-request.rules.ts';
import { submitSigned } from './support/application-signing.ts';
import { advisorFirmApi, startTestBankId, type TestBankId } from './support/bankid.ts';
import { signInToConsole, type ConsoleSession } from './support/console-session.ts';
import { createDemoLedgerTemplate, createTestDatabase, FIXED_NOW, startTestGateway, type TestDatabase, type TestGateway } from './support/harness.ts';

const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
const CUSTOMER = '198506152381';
const MASKED = '19850615-****';

/** The database handle the gateway is given, counting the statements sent through it (transactions' own included). */
function counting(db: Database): { db: Database; statements: string[] } {
  const statements: string[] = [];
  const counted = (sql: Sql): Sql => ({
    query: (text, params) => {
      statements.push(text);
      return sql.query(text, params);
    },
    exec: (text) => {
      statements.push(text);
      return sql.exec(text);
    },
    copyFrom: (statement, chunks) => sql.copyFrom(statement, chunks),
  });
  const wrapped: Database = { ...counted(db), transaction: (work) => db.transaction((tx) => work(counted(tx))), kind: db.kind, close: () => db.close() };
  return { db: wrapped, statements };
}

describe('staff look at any insurance', () => {
  let template: TestDatabase;
  let testBankId: TestBankId;
  let database: TestDatabase;
  let handle: Database;
  let statements: string[];
  let gateway: TestGateway;
  let session: ConsoleSession;
  let insurance: string;
  const inject = (options: InjectOptions) => gateway.http!.inject(options);

  beforeAll(async () => {
    template = await createDemoLedgerTemplate();
    testBankId = await startTestBankId();
    database = await createTestDatabase(template.name);
    const opened = counting(openPostgresDatabase({ url: database.url, max: 4 }));
    handle = opened.db;
    statements = opened.statements;
    gateway = await startTestGateway({ roles: ['api'], db: handle, database, keepDatabase: true, settings: { api: await advisorFirmApi(), bankid: await testBankId.settings() } });
    session = await signInToConsole(gateway.http!, 'staff', 'test-password');
    const power = await inject({ method: 'POST', url: '/api/powers-of-attorney', headers: STAFF, payload: { holderOrganisationNumber: '5565555553', customerId: CUSTOMER, kind: 'intermediation', validFrom: '2026-01-01' } });
    assert.equal(power.statusCode, 201, power.body);
    const token = (await inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&client_id=firm&client_secret=firm-secret' })).json() as { access_token: string };
    const firm = (options: InjectOptions) => inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${token.access_token}` } });
    const applied = await submitSigned<{ applicationId: string; status: string; signCaseId: string; insuranceId: string }>(firm, testBankId.server, '/InsuranceApplication', {
      productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: CUSTOMER }, insured: { id: CUSTOMER }, premium: { single: '50000.00', monthly: '1000' },
      funds: [{ isin: 'SE000DEPA010', percent: 100 }], custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
    });
    assert.equal(applied.status, 'issued');
    insurance = applied.insuranceId;
    // What no route makes here: the custodian's report of the account, a withdrawal request and a debit run's lines.
    const account = `DEPA-${insurance.slice('INS-'.length)}`;
    await handle.query(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
                        VALUES ($1, '2026-11-21', 0, 51000, 51000, 1, 'insurance-view-test')`, [account]);
    const bank = parseBankAccount('50001234560');
    assert.ok(bank.ok);
    await handle.transaction(async (tx) => {
      await insertWithdrawalRequest(tx, { requestId: 'WR-VIEW-1', insuranceNumber: insurance, customerId: CUSTOMER, amount: '2500.00', account: bank.account, requestedAt: FIXED_NOW, requestedBy: 'client:firm' });
      await insertSignCase(tx, {
        signCaseId: 'SC-VIEW-1', subject: { kind: 'withdrawal', id: 'WR-VIEW-1' }, customerId: CUSTOMER, custodianId: 'demo-custodian',
        visibleText: withdrawalSignText({ insuranceNumber: insurance, amount: '2500.00', account: bank.account }), signatories: signatoriesOf(CUSTOMER, CUSTOMER)!,
        companySignaturesRequired: null, createdAt: FIXED_NOW,
      });
      await insertRun(tx, { runKey: '2026-Q4', custodianId: 'demo-custodian', kind: 'debit', runDate: '2027-02-26', held: [], createdAt: FIXED_NOW, document: undefined });
      await insertLines(tx, '2026-Q4', 'demo-custodian', [{ accountNumber: account, insuranceNumber: insurance, charge: 'FixedCharge', amount: '39.13', periodFrom: '2026-11-22', periodTo: '2026-12-31' }]);
    });
  });
  afterAll(async () => {
    await gateway?.destroy();
    await handle?.close();
    await database?.drop();
    await template?.drop();
    await testBankId?.close();
  });

  test('an insurance issued through the REST API, whole, in one statement', async () => {
    statements.length = 0;
    const answer = await inject({ url: `/api/insurances/${insurance}`, headers: STAFF });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(statements.length, 1, `one statement, not:\n${statements.join('\n---\n')}`);
    const view = answer.json() as InsuranceView;
    assert.deepEqual(
      {
        status: view.status, agreement: view.agreementNumber, started: view.startDate, holder: view.policyholder.id, insured: view.insured.personalIdentityNumber,
        product: view.product, premium: view.premium, coverages: view.coverages.map((coverage) => coverage.type), end: view.end,
      },
      {
        status: 'in force', agreement: null, started: '2026-11-22', holder: CUSTOMER, insured: CUSTOMER,
        product: { code: 'KF-DEPA', name: 'Kapitalförsäkring Depå', kind: 'K' }, premium: { monthlyAmount: '1000.00', paidUpFrom: null }, coverages: ['repaymentProtection'], end: null,
      },
    );
    assert.deepEqual(view.custody, {
      accountNumber: `DEPA-${insurance.slice(4)}`, custodianId: 'demo-custodian', custodianName: 'Demo Custodian AB', openedOn: '2026-11-22', closedOn: null,
      latestValue: { asOf: '2026-11-21', totalValue: '51000.00' },
    });
    assert.deepEqual(view.withdrawals.map((w) => [w.requestId, w.status, w.amount, w.account]), [['WR-VIEW-1', 'requested', '2500.00', '50001234560']]);
    assert.deepEqual(view.debitLines.map((line) => [line.runKey, line.charge, line.amount, line.periodFrom, line.periodTo]), [['2026-Q4', 'FixedCharge', '39.13', '2026-11-22', '2026-12-31']]);
    assert.equal(view.payout.canBegin, '2050-06-15', 'the 65th birthday');
    assert.deepEqual([view.payout.registered, view.payout.orders, view.deathBenefit], [null, [], null]);

    const text = formatInsurance(view);
    assert.match(text, new RegExp(`^${insurance} {2}in force$`, 'm'));
    assert.match(text, /^ {2}started +2026-11-22, individual \(no agreement\)/m);
    assert.match(text, /^ {2}custody +DEPA-\d+ at demo-custodian \(Demo Custodian AB\), value 51000\.00 SEK on 2026-11-21$/m);
    assert.match(text, /^debit lines:\n {2}RUN +CUSTODIAN +ACCOUNT +CHARGE +BASIS +AMOUNT +FROM +TO\n {2}2026-Q4 +demo-custodian +DEPA-\d+ +FixedCharge +- +39\.13 +2026-11-22 +2026-12-31$/m);
  });

  test('the console page shows it with the personal identity numbers masked, and the lists that name it link to it', async () => {
    const page = await inject({ url: `/console/insurances/${insurance}`, headers: { cookie: session.cookie } });
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes(MASKED), 'the insured, masked');
    assert.ok(!page.body.includes(CUSTOMER), 'never in full');
    assert.match(page.body, /<strong data-status="in force">in force<\/strong>/);
    assert.match(page.body, /<table id="withdrawals">[\s\S]*WR-VIEW-1[\s\S]*<\/table>/);
    assert.match(page.body, /<table id="debit-lines">[\s\S]*39\.13[\s\S]*<\/table>/);
    assert.match(page.body, /<p id="payout-orders-none">No payout orders\.<\/p>/);
    const link = `<a href="/console/insurances/${insurance}">${insurance}</a>`;
    for (const list of ['/console/withdrawal-requests', '/console/applications?status=']) {
      const listed = await inject({ url: list, headers: { cookie: session.cookie } });
      assert.ok(listed.body.includes(link), `${list} links to the insurance page`);
    }
    // A payout notice names its insurance too: one whose agreed payout date has come.
    await handle.query(`UPDATE insurances SET payout_from = '2026-01-01' WHERE insurance_number = 'INS-100003'`);
    await recordPayoutCanBegin(handle, '2026-11-22', FIXED_NOW);
    const notices = await inject({ url: '/console/payout-notices', headers: { cookie: session.cookie } });
    assert.ok(notices.body.includes('<a href="/console/insurances/INS-100003">INS-100003</a>'), 'the payout notices link to the insurance page');
    const unknown = await inject({ url: '/console/insurances/INS-999999', headers: { cookie: session.cookie } });
    assert.equal(unknown.statusCode, 404);
  });

  test('once its end is recorded it is shown ended, with the cause and no premium', async () => {
    const ended = await inject({ method: 'POST', url: `/api/insurances/${insurance}/end`, headers: STAFF, payload: { cause: 'surrendered', date: '2026-11-22' } });
    assert.equal(ended.statusCode, 201, ended.body);
    const view = (await inject({ url: `/api/insurances/${insurance}`, headers: STAFF })).json() as InsuranceView;
    assert.deepEqual([view.status, view.end?.lastDay, view.end?.cause, view.end?.recordedBy], ['ended', '2026-11-22', 'surrendered', 'staff:staff']);
    // Its last day in force is today: the premium is the day's; the CLI and page say it ended.
    assert.match(formatInsurance(view), /^ {2}ended +2026-11-22 \(surrendered\), its last day in force; recorded by staff:staff$/m);
    const page = await inject({ url: `/console/insurances/${insurance}`, headers: { cookie: session.cookie } });
    assert.match(page.body, /<span data-end>2026-11-22 \(surrendered\), its last day in force/);
  });

  test("a demo insurance names its agreement and the employer; one ended in the past has no premium; an unknown number is not found", async () => {
    await handle.query(`UPDATE insurances SET end_date = '2026-10-31', end_cause = 'transferred-out', ended_by = 'staff:staff', end_recorded_at = now() WHERE insurance_number = 'INS-100002'`);
    const ended = (await inject({ url: '/api/insurances/INS-100002', headers: STAFF })).json() as InsuranceView;
    assert.deepEqual([ended.status, ended.agreementNumber, ended.policyholder, ended.premium.monthlyAmount], ['ended', 'AGR-1001', { id: '5561234567', name: 'Demo Employer AB' }, null]);
    const inForce = (await inject({ url: '/api/insurances/INS-100001', headers: STAFF })).json() as InsuranceView;
    assert.deepEqual([inForce.status, inForce.insured], ['in force', { personalIdentityNumber: '197001011233', name: 'Anna Andersson' }]);
    assert.notEqual(inForce.premium.monthlyAmount, null);
    const unknown = await inject({ url: '/api/insurances/INS-999999', headers: STAFF });
    assert.deepEqual([unknown.statusCode, (unknown.json() as { code: string }).code], [404, 'RESOURCE_NOT_FOUND']);
  });
});
