/**
 * A withdrawal from end to end on gateways that run their workers, real PostgreSQL and
 * Redis, the local BankID server over mutual TLS, and the custodian's folder channel:
 * an account registered at 06:55 is validated by the 13:00 run the configuration
 * schedules (accountOwnership: local), a request, the staff approval, both signatories
 * (the policyholder and a different insured) sign, the deliver stage puts the sell order
 * in the custodian's outbox exactly once (`sent`), and the custodian's Transactions make
 * it `paid-out`. Then a request registered by staff on the policyholder's behalf whose
 * worker process is killed between the approval and the DebitAccounts file: after a
 * restart the recorded file is delivered, once.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { InjectOptions } from 'fastify';
import type { LocalBankIdServer } from '../src/bankid/local-bankid-server.ts';
import type { LocalPerson } from '../src/bankid/local-bankid-orders.ts';
import { CALENDAR_QUEUE } from '../src/calendar/calendar.scheduler.ts';
import { WITHDRAWAL_ACCOUNT_JOB } from '../src/calendar/withdrawal-account-validation.job.ts';
import { submitSigned } from './support/application-signing.ts';
import { advisorFirmApi, startTestBankId, type TestBankId } from './support/bankid.ts';
import { holdingsReport, transactionsReport } from './support/custodian-reports.ts';
import { createDemoLedgerTemplate, createTestDatabase, dropFile, startTestGateway, testSettings, TEST_REDIS_URL, waitFor, type TestDatabase, type TestGateway } from './support/harness.ts';
import { runCli, writeConfigFile, type GatewayProcess } from './support/processes.ts';

const POLICYHOLDER: LocalPerson = { personalNumber: '198506152381', givenName: 'Tove', surname: 'Lind' };
const INSURED: LocalPerson = { personalNumber: '199203033452', givenName: 'Ebbe', surname: 'Lind' };
const ACCOUNT = '50001234560';
const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
/** A worker process started from the sources: some 10 s on an idle machine, minutes while other test runs load it. */
const WORKER_START_MS = 180_000;

let template: TestDatabase;
let testBankId: TestBankId;
let bankid: LocalBankIdServer;
beforeAll(async () => {
  template = await createDemoLedgerTemplate();
  testBankId = await startTestBankId();
  bankid = testBankId.server;
});
afterAll(async () => {
  await testBankId?.close();
  await template?.drop();
});

/** The settings both tests share: an advisor firm, BankID, and the local ownership register that holds the account for the policyholder. */
async function withdrawalSettings(): Promise<Record<string, unknown>> {
  return {
    api: await advisorFirmApi(),
    bankid: await testBankId.settings(),
    accountOwnership: { kind: 'local', holders: [{ accountNumber: ACCOUNT, holderId: POLICYHOLDER.personalNumber }] },
  };
}

/** REST and staff calls on an in-process gateway's HTTP server. */
function clientOf(gateway: TestGateway) {
  const as = async (options: InjectOptions) => {
    const token = await gateway.http!.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&client_id=firm&client_secret=firm-secret' });
    return gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${(token.json() as { access_token: string }).access_token}` } });
  };
  const staff = (options: InjectOptions) => gateway.http!.inject({ ...options, headers: { ...options.headers, ...STAFF } });
  const status = async (requestId: string) => ((await as({ method: 'GET', url: `/Insurance/withdrawalrequest/${requestId}` })).json() as { status: string }).status;
  /** Both signatories sign through the local BankID server. */
  const signAll = async (signCaseId: string) => {
    for (const [role, person] of [['policyholder', POLICYHOLDER], ['insured', INSURED]] as const) {
      const started = await as({ method: 'POST', url: `/SignCase/${signCaseId}/Sign`, payload: { role, endUserIp: '192.0.2.10' } });
      assert.equal(started.statusCode, 201, started.body);
      const { orderRef } = started.json() as { orderRef: string };
      bankid.control.signThrough(orderRef, person);
      const collected = (await as({ method: 'POST', url: `/SignCase/${signCaseId}/Collect`, payload: { orderRef } })).json() as { status: string; signedBy: string };
      assert.deepEqual([collected.status, collected.signedBy], ['complete', person.personalNumber]);
    }
  };
  return { as, staff, status, signAll };
}

/** A K insurance for the policyholder with a different insured, applied for through the REST API by a firm with a power of attorney and signed by both with BankID. */
async function issueInsurance(gateway: TestGateway): Promise<{ insuranceNumber: string; custodyAccount: string }> {
  const { as, staff } = clientOf(gateway);
  const power = await staff({ method: 'POST', url: '/api/powers-of-attorney', payload: { holderOrganisationNumber: '5565555553', customerId: POLICYHOLDER.personalNumber, kind: 'intermediation', validFrom: '2026-01-01' } });
  assert.equal(power.statusCode, 201, power.body);
  const issued = await submitSigned<{ applicationId: string; status: string; signCaseId: string; insuranceId: string }>(as, bankid, '/InsuranceApplication', {
    productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: POLICYHOLDER.personalNumber }, insured: { id: INSURED.personalNumber },
    premium: { single: '50000.00', monthly: '1000' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
    custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
  });
  assert.equal(issued.status, 'issued', JSON.stringify(issued));
  const insuranceNumber = issued.insuranceId;
  const { rows } = await gateway.deps.db.query<{ account: string }>('SELECT custody_account AS account FROM insurances WHERE insurance_number = $1', [insuranceNumber]);
  return { insuranceNumber, custodyAccount: rows[0]!.account };
}

const withdrawalFiles = async (outbox: string) => (await readdir(outbox)).filter((name) => name.startsWith('withdrawal-')).sort();

test('registered at 06:55, validated at 13:00, requested, approved, signed by both → one sell order in the custodian\'s outbox → sent → paid out', async () => {
  let now = new Date('2026-11-27T05:55:00Z'); // Friday 27 November, 06:55 in Stockholm
  const database = await createTestDatabase(template.name);
  const gateway = await startTestGateway({ roles: ['api', 'worker', 'watch'], database, clock: () => now, settings: await withdrawalSettings() });
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  const calendar = new Queue(CALENDAR_QUEUE, { connection: redis, prefix: gateway.config.queuePrefix });
  try {
    const { as, staff, status, signAll } = clientOf(gateway);
    const { insuranceNumber, custodyAccount } = await issueInsurance(gateway);
    const { db } = gateway.deps;
    await dropFile(gateway.inbox('demo-custodian'), 'holdings-2026-11-26.xml', holdingsReport('H-E2E-1', '2026-11-26', [
      { accountNumber: custodyAccount, cash: '2000.00', positions: [{ isin: 'SE000DEPA010', quantity: '1000', marketValue: '118000.00' }] },
    ]));
    await waitFor(async () => (await db.query('SELECT 1 FROM custody_valuations WHERE account_number = $1', [custodyAccount])).rows.length > 0, 'the Holdings applied');

    const registered = await as({ method: 'POST', url: `/Customer/${ACCOUNT}/WithdrawalAccount`, payload: { customerId: POLICYHOLDER.personalNumber } });
    assert.equal(registered.statusCode, 202, registered.body);
    assert.equal((registered.json() as { validationAt: string }).validationAt, '2026-11-27T12:00:00.000Z');

    // 13:01: the calendar's fire wakes the job the configuration scheduled; the run validates the account.
    now = new Date('2026-11-27T12:01:00Z');
    await calendar.add(WITHDRAWAL_ACCOUNT_JOB, {});
    const validated = await waitFor(async () => {
      const [registration] = (await as({ method: 'GET', url: `/Customer/${ACCOUNT}/WithdrawalAccount` })).json() as { status: string; decidedAt: string }[];
      return registration?.status === 'validated' && registration;
    }, 'the 13:00 run to validate the account', 60_000);
    assert.equal(validated.decidedAt, now.toISOString());

    now = new Date('2026-11-27T12:30:00Z');
    const created = await as({ method: 'POST', url: '/Insurance/withdrawalrequest', payload: { insuranceNumber, amount: '12500.00', accountNumber: ACCOUNT } });
    assert.equal(created.statusCode, 201, created.body);
    const { requestId, signCaseId } = created.json() as { requestId: string; signCaseId: string };
    const approved = await staff({ method: 'POST', url: `/api/withdrawal-requests/${requestId}/approve`, payload: { reason: 'within the policy' } });
    assert.deepEqual(approved.json(), { requestId, status: 'approved' });
    // withdrawalFiles derives from fs.readdir (another realm's array): compared with toStrictEqual.
    expect(await withdrawalFiles(gateway.outbox('demo-custodian'))).toStrictEqual([]); // nothing ordered before both have signed

    await signAll(signCaseId);
    const outbox = gateway.outbox('demo-custodian');
    await waitFor(async () => (await status(requestId)) === 'sent', 'the DebitAccounts file delivered');
    const file = `withdrawal-${requestId}.DebitAccounts.xml`;
    expect(await withdrawalFiles(outbox)).toStrictEqual([file]);
    const body = await readFile(join(outbox, file), 'utf8');
    assert.match(body, new RegExp(`<AccountNumber>${custodyAccount}</AccountNumber>`));
    assert.match(body, /<SellOrder>\s*<Reason>Payout<\/Reason>\s*<Amount>12500\.00<\/Amount>\s*<SellBy>2026-11-30<\/SellBy>\s*<\/SellOrder>/);
    assert.match(body, new RegExp(`<Payout>\\s*<Amount>12500\\.00</Amount>\\s*<PayBy>2026-12-02</PayBy>\\s*<Installment>1</Installment>\\s*<Final>false</Final>\\s*<ToAccount>${ACCOUNT}</ToAccount>\\s*</Payout>`), 'paid to the validated withdrawal account of the request');
    const documents = await db.query<{ body: string }>(`SELECT o.body FROM outgoing_documents o JOIN debit_runs r ON r.document_id = o.document_id WHERE r.run_key = $1`, [`withdrawal-${requestId}`]);
    assert.deepEqual(documents.rows.map((row) => row.body), [body], 'one document, the bytes delivered');
    const sellOrders = await Promise.all((await readdir(outbox)).map(async (name) => (await readFile(join(outbox, name), 'utf8')).includes('<Amount>12500.00</Amount>')));
    assert.equal(sellOrders.filter(Boolean).length, 1, 'the sell order is in one file of the outbox');

    now = new Date('2026-12-02T07:00:00Z');
    await dropFile(gateway.inbox('demo-custodian'), 'transactions-2026-12-02.xml', transactionsReport('T-E2E-1', '2026-12-02', [
      { accountNumber: custodyAccount, transactions: [{ id: 'T-E2E-W1', type: 'Withdrawal', tradeDate: '2026-12-02', amount: '-12500.00' }] },
    ]));
    await waitFor(async () => (await status(requestId)) === 'paid-out', 'the custodian\'s Transactions to report the payment');
    const history = ((await staff({ method: 'GET', url: `/api/withdrawal-requests/${requestId}` })).json() as { history: { event: string; by: string }[] }).history;
    assert.deepEqual(history.map((h) => h.event), ['requested', 'approved', 'signed', 'signed', 'ordered', 'sent', 'paid-out']);
    assert.deepEqual(history.slice(0, 2).map((h) => h.by), ['client:firm', 'staff:staff']);
  } finally {
    await calendar.close();
    redis.disconnect();
    await gateway.destroy();
  }
});

test('registered by staff from a paper form; the worker killed between the approval and the DebitAccounts file: after a restart, delivered once', async () => {
  const database = await createTestDatabase(template.name);
  const folder = await mkdtemp(join(tmpdir(), 'dg-withdrawal-crash-'));
  const settings = testSettings(join(folder, 'data'), {
    ...(await withdrawalSettings()), databaseUrl: database.url, logLevel: 'warn',
    workers: { backoffMs: 200, attempts: 50, reconcileEveryMs: 500, reconcileAfterMs: 1500, lockDurationMs: 3000, stalledIntervalMs: 1000 },
  });
  // The api in this process (no workers of its own); the deliver stage only in the worker process.
  const now = new Date('2026-11-27T12:30:00Z');
  const gateway = await startTestGateway({ roles: ['api'], database, keepDatabase: true, clock: () => now, settings });
  const config = await writeConfigFile(folder, settings);
  const workers: GatewayProcess[] = [];
  const startWorker = () => {
    const worker = runCli(['worker', '--config', config]);
    workers.push(worker);
    return worker;
  };
  try {
    const { staff, status, signAll } = clientOf(gateway);
    const { db } = gateway.deps;
    const { insuranceNumber, custodyAccount } = await issueInsurance(gateway);
    await db.query(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id) VALUES ($1, '2026-11-26', 2000, 118000, 120000, 1, 'test')`, [custodyAccount]);
    await db.query(
      `INSERT INTO withdrawal_accounts (registration_id, customer_id, account_digits, clearing_number, account_number, bank_name, registered_at, registered_by, validation_day, status, decided_at)
       VALUES ('WA-crash', $1, $2, '5000', '1234560', 'SEB', now(), 'client:firm', '2026-11-27', 'validated', now())`, [POLICYHOLDER.personalNumber, ACCOUNT],
    );

    const registered = await staff({ method: 'POST', url: '/api/withdrawal-requests', payload: { insuranceNumber, amount: '8000', accountNumber: ACCOUNT, channel: 'paper-form', reference: 'form 2026-4711' } });
    assert.equal(registered.statusCode, 201, registered.body);
    const request = registered.json() as { requestId: string; signCaseId: string; status: string; history: { event: string; by: string; reason: string }[] };
    assert.deepEqual(request.history.map((h) => [h.event, h.by, h.reason]), [['requested', 'staff:staff', 'paper-form: form 2026-4711']]);
    await signAll(request.signCaseId);
    assert.equal(await status(request.requestId), 'signed');

    // The custodian's outbox cannot be written: the worker's delivery fails after the approval has committed.
    const outbox = join(folder, 'data', 'counterparties', 'demo-custodian', 'outbox');
    let worker = startWorker();
    // Up once its calendar has caught up the validation run the configuration scheduled (past making its folders).
    await waitFor(async () => {
      if (worker.child.exitCode !== null) throw new Error(`worker exited:\n${worker.output()}`);
      return (await db.query('SELECT 1 FROM calendar_runs WHERE job = $1', [WITHDRAWAL_ACCOUNT_JOB])).rows.length > 0;
    }, 'the worker to start', WORKER_START_MS);
    await rm(outbox, { recursive: true, force: true });
    await writeFile(outbox, 'not a folder');

    const approved = await staff({ method: 'POST', url: `/api/withdrawal-requests/${request.requestId}/approve`, payload: { reason: 'form checked' } });
    assert.deepEqual(approved.json(), { requestId: request.requestId, status: 'ordered' });
    const [document] = await waitFor(async () => {
      const { rows } = await db.query<{ document_id: string; file_name: string; body: string }>(
        `SELECT o.document_id, o.file_name, o.body FROM outgoing_documents o JOIN debit_runs r ON r.document_id = o.document_id
          WHERE r.run_key = $1 AND EXISTS (SELECT 1 FROM outgoing_deliveries d WHERE d.document_id = o.document_id AND d.outcome = 'failed')`, [`withdrawal-${request.requestId}`],
      );
      return rows.length > 0 && rows;
    }, 'a delivery of the ordered file to fail', 60_000);
    worker.child.kill('SIGKILL');
    assert.equal(await worker.exited, 'SIGKILL');
    assert.equal(await status(request.requestId), 'ordered', 'recorded, not delivered');

    await rm(outbox, { force: true });
    await mkdir(outbox);
    worker = startWorker();
    await waitFor(async () => {
      if (worker.child.exitCode !== null) throw new Error(`worker exited:\n${worker.output()}`);
      return (await status(request.requestId)) === 'sent';
    }, 'the recorded file delivered after the restart', WORKER_START_MS);
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.output());

    expect(await withdrawalFiles(outbox)).toStrictEqual([document!.file_name]);
    assert.equal(await readFile(join(outbox, document!.file_name), 'utf8'), document!.body);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM debit_runs WHERE run_key = $1', [`withdrawal-${request.requestId}`]);
    assert.equal(rows[0]!.n, 1, 'ordered once');
  } finally {
    for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    await gateway.destroy();
    await database.drop();
    await rm(folder, { recursive: true, force: true });
  }
}, 2 * WORKER_START_MS + 240_000);
