/**
 * Withdrawal requests and their sign cases through the REST API on a real gateway
 * (PostgreSQL) with the BankID adapter speaking mutual TLS to the local BankID server:
 * a request checked against the insurance's bounds and the policyholder's validated
 * accounts (nothing saved when refused), its receipt, both signatories signing — a
 * repeat of Sign while pending, a signature by the wrong person, a session that
 * expires — the staff approval, the DebitAccounts document made exactly once, and the
 * status following the custodian's report. The insurance is applied for by the firm and
 * signed by the policyholder and the insured on the same BankID server before the first
 * test; the orders of those signatures are left out where the withdrawal's are counted.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { pino } from 'pino';
import { startTestGateway, type TestGateway } from './support/harness.ts';
import { advisorFirmApi, startTestBankId, type TestBankId } from './support/bankid.ts';
import type { LocalBankIdServer } from '../src/bankid/local-bankid-server.ts';
import type { LocalPerson } from '../src/bankid/local-bankid-orders.ts';
import { runDepsFrom } from '../src/calendar/debit-run.ts';
import { orderWithdrawalIfReady } from '../src/requests/withdrawal-order.ts';
import { submitSigned } from './support/application-signing.ts';

const POLICYHOLDER: LocalPerson = { personalNumber: '198506152381', givenName: 'Tove', surname: 'Lind' };
const INSURED: LocalPerson = { personalNumber: '199203033452', givenName: 'Ebbe', surname: 'Lind' };
const STRANGER: LocalPerson = { personalNumber: '197905202388', givenName: 'Nils', surname: 'Holm' };
const VALIDATED = '50001234560';
const PENDING = '6000123456789';
const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };

describe('withdrawal requests and sign cases', () => {
  let gateway: TestGateway;
  let testBankId: TestBankId;
  let bankid: LocalBankIdServer;
  let bankidClockMs = 0;
  const now = new Date('2026-11-27T09:00:00Z');
  let insuranceNumber = '';
  let requestId = '';
  let signCaseId = '';
  /** The BankID orders the insurance application was signed with, not the withdrawal's. */
  let applicationOrders = new Set<string>();

  beforeAll(async () => {
    testBankId = await startTestBankId({ now: () => Date.now() + bankidClockMs });
    bankid = testBankId.server;
    gateway = await startTestGateway({
      roles: ['api'], clock: () => now,
      settings: {
        api: await advisorFirmApi(),
        counterparties: [{ id: 'demo-custodian', name: 'Demo Custodian AB', organisationNumber: '5560000001', role: 'custodian', messageTypes: ['custodian-reporting'] }],
        bankid: await testBankId.settings(),
      },
    });
    const power = await gateway.http!.inject({
      method: 'POST', url: '/api/powers-of-attorney', headers: STAFF,
      payload: { holderOrganisationNumber: '5565555553', customerId: POLICYHOLDER.personalNumber, kind: 'intermediation', validFrom: '2026-01-01' },
    });
    assert.equal(power.statusCode, 201, power.body);
    const issued = await submitSigned<{ applicationId: string; status: string; signCaseId: string; insuranceId: string }>(as, bankid, '/InsuranceApplication', {
      productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: POLICYHOLDER.personalNumber }, insured: { id: INSURED.personalNumber },
      premium: { single: '50000.00', monthly: '1000' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
      custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
    });
    assert.equal(issued.status, 'issued', JSON.stringify(issued));
    insuranceNumber = issued.insuranceId;
    applicationOrders = new Set(bankid.control.orders().map((order) => order.orderRef));
    const db = gateway.deps.db;
    await db.query(
      `INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
       SELECT custody_account, '2026-11-25', 2000, 118000, 120000, 1, 'test-holdings' FROM insurances WHERE insurance_number = $1`, [insuranceNumber],
    );
    for (const [digits, clearing, account, bank, status] of [[VALIDATED, '5000', '1234560', 'SEB', 'validated'], [PENDING, '6000', '123456789', 'Handelsbanken', 'pending']]) {
      await db.query(
        `INSERT INTO withdrawal_accounts (registration_id, customer_id, account_digits, clearing_number, account_number, bank_name, registered_at, registered_by, validation_day, status, decided_at)
         VALUES ($1, $2, $3, $4, $5, $6, now(), 'client:firm', '2026-11-27', $7, CASE WHEN $7 = 'validated' THEN now() END)`,
        [`WA-${digits}`, POLICYHOLDER.personalNumber, digits, clearing, account, bank, status],
      );
    }
  });
  afterAll(async () => {
    await gateway.destroy();
    await testBankId.close();
  });

  const as = async (options: InjectOptions) => {
    const token = await gateway.http!.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&client_id=firm&client_secret=firm-secret' });
    return gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${(token.json() as { access_token: string }).access_token}` } });
  };
  const requestWithdrawal = (amount: string, accountNumber = VALIDATED) => as({ method: 'POST', url: '/Insurance/withdrawalrequest', payload: { insuranceNumber, amount, accountNumber } });
  const count = async (table: string) => Number((await gateway.deps.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
  const sign = (role: string) => as({ method: 'POST', url: `/SignCase/${signCaseId}/Sign`, payload: { role, endUserIp: '192.0.2.10' } });
  const collect = async (orderRef: string) => (await as({ method: 'POST', url: `/SignCase/${signCaseId}/Collect`, payload: { orderRef } })).json() as Record<string, unknown>;
  /** The orders made at BankID since the insurance was signed. */
  const withdrawalOrders = () => bankid.control.orders().filter((order) => !applicationOrders.has(order.orderRef));
  const information = async () => (await as({ method: 'GET', url: `/Insurance/${insuranceNumber}/withdrawalInformation` })).json() as { maximum: string; requested: string };

  test('a request above the bound or to an account not validated is refused with its code, and nothing is saved', async () => {
    // Issued today (27 November): one day's charges reserved — fixed 360 / 365 → 0.99, capital 120 000 × 0.35 % / 365 → 1.16.
    assert.equal((await information()).maximum, '119997.85');
    const above = await requestWithdrawal('119997.86');
    assert.equal(above.statusCode, 422);
    const problem = above.json() as { code: string; detail: string; errors: { path: string; code: string }[] };
    assert.equal(problem.code, 'WITHDRAWAL_AMOUNT_OUT_OF_BOUNDS');
    assert.match(problem.detail, /119997\.86 SEK is outside what can be withdrawn today: 1000\.00 to 119997\.85 SEK/);
    const unvalidated = await requestWithdrawal('5000', PENDING);
    assert.equal(unvalidated.statusCode, 422);
    assert.deepEqual((unvalidated.json() as { errors: { path: string; code: string }[] }).errors.map((e) => [e.path, e.code]), [['$.accountNumber', 'WITHDRAWAL_ACCOUNT_NOT_VALIDATED']]);
    const both = await requestWithdrawal('500.00', PENDING);
    assert.deepEqual((both.json() as { errors: { code: string }[] }).errors.map((e) => e.code), ['WITHDRAWAL_AMOUNT_OUT_OF_BOUNDS', 'WITHDRAWAL_ACCOUNT_NOT_VALIDATED']);
    assert.equal((await requestWithdrawal('5000', '50001234567')).json().code, 'BANK_ACCOUNT_INVALID');
    assert.equal((await as({ method: 'POST', url: '/Insurance/withdrawalrequest', payload: { insuranceNumber: 'INS-404', amount: '5000', accountNumber: VALIDATED } })).statusCode, 404);
    assert.equal(await count('withdrawal_requests'), 0);
    assert.equal(await count(`sign_cases WHERE subject_kind = 'withdrawal'`), 0);
  });

  test('a request within the bounds: the request and its sign case with both signatories, counted in the information, with its receipt', async () => {
    const created = await requestWithdrawal('12500.00');
    assert.equal(created.statusCode, 201, created.body);
    const request = created.json() as { requestId: string; signCaseId: string; status: string; history: { event: string; by: string }[] };
    ({ requestId, signCaseId } = request);
    assert.equal(request.status, 'requested');
    assert.deepEqual(request.history.map((h) => [h.event, h.by]), [['requested', 'client:firm']]);
    assert.equal(created.headers.location, `/Insurance/withdrawalrequest/${requestId}`);
    assert.deepEqual(await information().then((i) => [i.requested, i.maximum]), ['12500.00', '107497.85']);

    const signCase = (await as({ method: 'GET', url: `/SignCase/${signCaseId}` })).json() as { complete: boolean; signatories: { role: string; personalNumber: string; signed: boolean }[] };
    assert.equal(signCase.complete, false);
    assert.deepEqual(signCase.signatories.map((s) => [s.role, s.personalNumber, s.signed]), [['policyholder', POLICYHOLDER.personalNumber, false], ['insured', INSURED.personalNumber, false]]);

    const receipt = (await as({ method: 'GET', url: `/Insurance/withdrawalrequest/${requestId}/receipt` })).json() as { amount: string; textToSign: string };
    assert.equal(receipt.amount, '12500.00');
    assert.equal(receipt.textToSign, `# Uttag från depåförsäkring\n\nJag begär uttag av **12 500,00 kr** från försäkring ${insuranceNumber}\ntill konto SEB 5000 1234560.`);
    const pdf = await as({ method: 'GET', url: `/Insurance/withdrawalrequest/${requestId}/receipt`, headers: { accept: 'application/pdf, application/json;q=0.5' } });
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
  });

  test('Sign starts a BankID order showing insurance, amount and account; a repeat while pending returns the same order', async () => {
    const first = await sign('policyholder');
    assert.equal(first.statusCode, 201, first.body);
    const order = first.json() as { orderRef: string; autoStartToken: string; qrData: string };
    assert.match(order.qrData, /^bankid\.[^.]+\.0\.[0-9a-f]{64}$/);
    const sent = bankid.control.order(order.orderRef)!.request;
    assert.match(Buffer.from(sent.userVisibleData, 'base64').toString('utf8'), new RegExp(`12 500,00 kr\\*\\* från försäkring ${insuranceNumber}\\ntill konto SEB 5000 1234560`));
    assert.equal(sent.userVisibleDataFormat, 'simpleMarkdownV1');

    const repeat = await sign('policyholder');
    assert.equal(repeat.statusCode, 200);
    assert.equal((repeat.json() as { orderRef: string }).orderRef, order.orderRef);
    assert.equal(withdrawalOrders().length, 1, 'no second order at BankID');
    assert.deepEqual(await collect(order.orderRef).then((c) => [c.status, c.hintCode]), ['pending', 'outstandingTransaction']);
  });

  test('signed by the wrong person: failed, not counted, its completion data kept; the right person then signs', async () => {
    const [pending] = withdrawalOrders();
    bankid.control.signThrough(pending!.orderRef, STRANGER);
    const wrong = await collect(pending!.orderRef);
    assert.deepEqual([wrong.status, wrong.reason], ['failed', 'signedByAnotherPerson']);
    const stored = await gateway.deps.db.query<{ status: string; signer: string }>(`SELECT status, completion_data->'user'->>'personalNumber' AS signer FROM sign_orders WHERE order_ref = $1`, [pending!.orderRef]);
    assert.deepEqual(stored.rows[0], { status: 'not-counted', signer: STRANGER.personalNumber });
    assert.equal(((await as({ method: 'GET', url: `/SignCase/${signCaseId}` })).json() as { signatories: { signed: boolean }[] }).signatories[0]!.signed, false);

    const again = await sign('policyholder');
    assert.equal(again.statusCode, 201);
    const { orderRef } = again.json() as { orderRef: string };
    bankid.control.startApp(orderRef);
    bankid.control.showToPerson(orderRef);
    assert.deepEqual(await collect(orderRef).then((c) => [c.status, c.hintCode]), ['pending', 'userSign']);
    bankid.control.sign(orderRef, POLICYHOLDER);
    const done = await collect(orderRef);
    assert.deepEqual([done.status, done.signedBy], ['complete', POLICYHOLDER.personalNumber]);
    assert.equal((await sign('policyholder')).json().code, 'SIGN_CASE_CLOSED');
  });

  test('a BankID session that expires fails with its reason; the insured then signs and the request is signed, awaiting approval', async () => {
    const started = (await sign('insured')).json() as { orderRef: string };
    bankidClockMs = 4 * 60_000;
    const expired = await collect(started.orderRef);
    assert.deepEqual([expired.status, expired.hintCode, expired.reason], ['failed', 'expiredTransaction', 'timedOut']);
    bankidClockMs = 0;
    const { orderRef } = (await sign('insured')).json() as { orderRef: string };
    bankid.control.signThrough(orderRef, INSURED);
    assert.equal((await collect(orderRef)).status, 'complete');
    const request = (await as({ method: 'GET', url: `/Insurance/withdrawalrequest/${requestId}` })).json() as { status: string; history: { event: string; reason: string | null }[] };
    assert.equal(request.status, 'signed');
    assert.deepEqual(request.history.map((h) => [h.event, h.reason]), [['requested', null], ['signed', 'policyholder'], ['signed', 'insured']]);
    assert.equal(await count('debit_runs'), 0, 'not ordered before the approval');
  });

  test('the staff approval orders it: one DebitAccounts document with the sell order and payout, exactly once; paid out when the custodian reports it', async () => {
    const approved = await gateway.http!.inject({ method: 'POST', url: `/api/withdrawal-requests/${requestId}/approve`, headers: STAFF, payload: { reason: 'checked against the policy' } });
    assert.equal(approved.statusCode, 200, approved.body);
    assert.deepEqual(approved.json(), { requestId, status: 'ordered' });
    const again = await gateway.http!.inject({ method: 'POST', url: `/api/withdrawal-requests/${requestId}/approve`, headers: STAFF, payload: { reason: 'twice' } });
    assert.equal(again.statusCode, 404);
    const deps = runDepsFrom(gateway.config, gateway.deps.scheduler, pino({ level: 'silent' }));
    assert.deepEqual(await gateway.deps.db.transaction((tx) => orderWithdrawalIfReady(tx, deps, requestId, now)), [], 'ordered already: nothing new');

    const documents = await gateway.deps.db.query<{ document_id: string; file_name: string; body: string; counterparty_id: string }>('SELECT document_id, file_name, body, counterparty_id FROM outgoing_documents');
    assert.equal(documents.rows.length, 1);
    const [document] = documents.rows;
    assert.equal(document!.counterparty_id, 'demo-custodian');
    assert.equal(document!.file_name, `withdrawal-${requestId}.DebitAccounts.xml`);
    // Approved Friday 27 November: sold Monday 30 November, paid two banking days later.
    assert.match(document!.body, /<PayoutMonth>2026-12<\/PayoutMonth>/);
    assert.match(document!.body, /<SellOrder>\s*<Reason>Payout<\/Reason>\s*<Amount>12500\.00<\/Amount>\s*<SellBy>2026-11-30<\/SellBy>\s*<\/SellOrder>/);
    assert.match(document!.body, /<Payout>\s*<Amount>12500\.00<\/Amount>\s*<PayBy>2026-12-02<\/PayBy>\s*<Installment>1<\/Installment>\s*<Final>false<\/Final>/);
    assert.equal(await count('debit_runs'), 1);

    const staffView = (await gateway.http!.inject({ method: 'GET', url: `/api/withdrawal-requests/${requestId}`, headers: STAFF })).json() as { status: string; history: { event: string; by: string; reason: string }[] };
    assert.equal(staffView.status, 'ordered');
    assert.deepEqual(staffView.history.slice(3).map((h) => [h.event, h.by]), [['approved', 'staff:staff'], ['ordered', 'withdrawal-order']]);
    assert.equal((await information()).requested, '12500.00', 'still reserved until paid out');

    await gateway.deps.db.query(
      `INSERT INTO custody_transactions (account_number, transaction_id, transaction_type, trade_date, settlement_date, amount, currency, message_id)
       SELECT custody_account, 'T-W1', 'Withdrawal', '2026-12-02', '2026-12-02', -12500.00, 'SEK', 'test-transactions' FROM insurances WHERE insurance_number = $1`, [insuranceNumber],
    );
    assert.equal(((await as({ method: 'GET', url: `/Insurance/withdrawalrequest/${requestId}` })).json() as { status: string }).status, 'paid-out');
    assert.equal((await information()).requested, '0.00');
  });

  test('a rejected request: the reason in its history, nothing ordered, and nothing more to sign', async () => {
    const created = (await requestWithdrawal('2000')).json() as { requestId: string; signCaseId: string };
    const rejected = await gateway.http!.inject({ method: 'POST', url: `/api/withdrawal-requests/${created.requestId}/reject`, headers: STAFF, payload: { reason: 'the policyholder withdrew it by phone' } });
    assert.deepEqual(rejected.json(), { requestId: created.requestId, status: 'rejected' });
    const refused = await as({ method: 'POST', url: `/SignCase/${created.signCaseId}/Sign`, payload: { role: 'policyholder' } });
    assert.equal(refused.statusCode, 409);
    assert.equal((refused.json() as { code: string }).code, 'SIGN_CASE_CLOSED');
    const unknown = await as({ method: 'POST', url: `/SignCase/${created.signCaseId}/Collect`, payload: { orderRef: 'no-such-order' } });
    assert.equal((unknown.json() as { code: string }).code, 'SIGN_ORDER_UNKNOWN');
    assert.equal((await information()).requested, '0.00', 'a rejected request reserves nothing');
    assert.equal(await count('debit_runs'), 1);
  });
});
