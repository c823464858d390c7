/**
 * The insured starts the payout through a signed request, on the embedded database and
 * on PostgreSQL, with the BankID adapter speaking mutual TLS to the local BankID server:
 *
 * - Anna's occupational pension (INS-100001, the employer its policyholder, payout agreed
 *   from 1 November 2026): her account registered at 06:55 on Friday 27 November is
 *   validated by the 13:00 run; a payout request is refused while it is pending, for an
 *   account never registered, for another person's validated account, for a month whose
 *   payout day has passed, for a month whose run has been made, for a period the product
 *   does not offer; the request for January 2027 is signed by Anna alone, registers the
 *   payout once, and January's payout run pays her account (ToAccount) in the
 *   custodian's DebitAccounts;
 * - Tove's capital insurance on Ebbe's life (applied for by the firm and signed by both with
 *   BankID; both sign the payout request, through a firm with Ebbe's power:
 *   the request is the insured's): a second request closes the
 *   first and its sign case; signed after its month's payout day has passed, a request is
 *   refused and nothing is registered; staff cannot register a payout to Tove's account.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import type { LocalPerson } from '../src/bankid/local-bankid-orders.ts';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { accountOwnershipFrom } from '../src/calendar/account-ownership.ts';
import { runDuePeriods } from '../src/calendar/calendar.scheduler.ts';
import { makeRun, runDepsFrom } from '../src/calendar/debit-run.ts';
import { runPayoutRun, schedulePayout } from '../src/calendar/payout-run.ts';
import { withdrawalAccountValidationJob } from '../src/calendar/withdrawal-account-validation.job.ts';
import { submitSigned } from './support/application-signing.ts';
import { advisorFirmApi, startTestBankId, type TestBankId } from './support/bankid.ts';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './support/harness.ts';

const ANNA: LocalPerson = { personalNumber: '197001011233', givenName: 'Anna', surname: 'Andersson' };
const TOVE: LocalPerson = { personalNumber: '198506152381', givenName: 'Tove', surname: 'Lind' };
const EBBE: LocalPerson = { personalNumber: '199203033452', givenName: 'Ebbe', surname: 'Lind' };
/** Anna's SEB account, and Ebbe's and Tove's Handelsbanken accounts. */
const ANNAS_ACCOUNT = '50001234560';
const EBBES_ACCOUNT = '6000123456789';
const TOVES_ACCOUNT = '6000987654322';
/** A valid account nobody registered. */
const UNREGISTERED = '50007654324';
const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));

let testBankId: TestBankId;
beforeAll(async () => {
  testBankId = await startTestBankId();
});
afterAll(async () => {
  await testBankId?.close();
});

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];

describe.each(ENGINES)('payout requests on %s', (_engine, engine) => {
  let gateway: TestGateway;
  let now = new Date('2026-11-27T05:55:00Z'); // Friday 27 November, 06:55 in Stockholm

  beforeAll(async () => {
    gateway = await startTestGateway({
      ...engine, roles: ['api'], inline: true, clock: () => now,
      settings: {
        api: await advisorFirmApi(),
        bankid: await testBankId.settings(),
        accountOwnership: { kind: 'local', holders: [{ accountNumber: ANNAS_ACCOUNT, holderId: ANNA.personalNumber }] },
      },
    });
    // The firm holds intermediation powers from Anna (the insured of her employer's pension) and from Tove.
    for (const customerId of [ANNA.personalNumber, TOVE.personalNumber]) {
      const power = await staff({ method: 'POST', url: '/api/powers-of-attorney', payload: { holderOrganisationNumber: '5565555553', customerId, kind: 'intermediation', validFrom: '2026-01-01' } });
      assert.equal(power.statusCode, 201, power.body);
    }
    await gateway.deps.db.query(`UPDATE insurances SET payout_from = '2026-11-01' WHERE insurance_number = 'INS-100001'`);
  }, 120_000);
  afterAll(() => gateway?.destroy());

  const as = async (options: InjectOptions) => {
    const token = await gateway.http!.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&client_id=firm&client_secret=firm-secret' });
    return gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${(token.json() as { access_token: string }).access_token}` } });
  };
  const staff = (options: InjectOptions) => gateway.http!.inject({ ...options, headers: { ...options.headers, ...STAFF } });
  const requestPayout = (insurance: string, body: { period: string; firstMonth: string; accountNumber: string }) => as({ method: 'POST', url: `/Insurance/${insurance}/payoutrequest`, payload: body });
  const problemOf = (answer: { statusCode: number; json(): unknown }) => {
    const body = answer.json() as { code: string; detail: string; errors?: { path: string; code: string }[] };
    return [answer.statusCode, body.code, body.errors?.map((e) => `${e.path} ${e.code}`) ?? [], body.detail] as const;
  };
  const count = async (sql: string, params: unknown[] = []) => Number((await gateway.deps.db.query<{ n: string }>(sql, params)).rows[0]!.n);
  const runDeps = () => runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log);
  /** The signatory of `role` signs through the local BankID server; the collected outcome. */
  const sign = async (signCaseId: string, role: string, person: LocalPerson) => {
    const started = await as({ method: 'POST', url: `/SignCase/${signCaseId}/Sign`, payload: { role, endUserIp: '192.0.2.10' } });
    assert.equal(started.statusCode, 201, started.body);
    const { orderRef } = started.json() as { orderRef: string };
    testBankId.server.control.signThrough(orderRef, person);
    const collected = (await as({ method: 'POST', url: `/SignCase/${signCaseId}/Collect`, payload: { orderRef } })).json() as { status: string; signedBy: string };
    return { orderRef, ...collected };
  };
  const requestNamed = async (id: string) => (await as({ method: 'GET', url: `/Insurance/payoutrequest/${id}` })).json() as {
    status: string; signCaseId: string; history: { event: string; by: string; reason: string | null }[];
  };

  test("Anna's account registered at 06:55, validated at 13:00; her payout request refused until it holds, then signed by her → registered once → January's run pays her account", async () => {
    const registered = await as({ method: 'POST', url: `/Customer/${ANNAS_ACCOUNT}/WithdrawalAccount`, payload: { customerId: ANNA.personalNumber } });
    assert.equal(registered.statusCode, 202, registered.body);
    assert.equal((registered.json() as { validationAt: string }).validationAt, '2026-11-27T12:00:00.000Z');
    const valid = { period: '5y', firstMonth: '2027-01', accountNumber: ANNAS_ACCOUNT };
    assert.deepEqual(problemOf(await requestPayout('INS-100001', valid)).slice(0, 3), [422, 'PAYOUT_ACCOUNT_NOT_VALIDATED', ['$.accountNumber PAYOUT_ACCOUNT_NOT_VALIDATED']], 'pending until 13:00');

    // 13:01: the validation run decides it against Anna.
    now = new Date('2026-11-27T12:01:00Z');
    const validation = withdrawalAccountValidationJob({ ownership: accountOwnershipFrom(gateway.config.accountOwnership!), log: gateway.log });
    assert.ok((await runDuePeriods(gateway.deps.db, validation, now, gateway.log)).includes('2026-11-27'));
    const [decided] = (await as({ method: 'GET', url: `/Customer/${ANNAS_ACCOUNT}/WithdrawalAccount` })).json() as { status: string }[];
    assert.equal(decided?.status, 'validated');

    // Tove's Handelsbanken account, validated as hers: another person's account. December's run is made for Bertil's payout.
    await gateway.deps.db.query(
      `INSERT INTO withdrawal_accounts (registration_id, customer_id, account_digits, clearing_number, account_number, bank_name, registered_at, registered_by, validation_day, status, decided_at)
       VALUES ('WA-TOVE', $1, $2, '6000', '987654322', 'Handelsbanken', now(), 'client:firm', '2026-11-27', 'validated', now())`, [TOVE.personalNumber, TOVES_ACCOUNT],
    );
    await gateway.deps.db.query(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
      VALUES ('DEPA-100002', '2026-11-26', 0, 40000.00, 40000.00, 1, 'test'), ('DEPA-100001', '2026-12-31', 0, 60000.00, 60000.00, 1, 'test')`);
    await gateway.deps.db.transaction((tx) => schedulePayout(tx, {
      insuranceNumber: 'INS-100002', startMonth: '2026-12', terms: { months: 4 }, registration: { withdrawalAccount: '50001111116', registeredBy: 'staff:staff' },
    }, now));
    await makeRun(gateway.deps.db, runDeps(), (tx) => runPayoutRun(tx, runDeps(), '2026-12', now));

    const refusals = [
      [{ ...valid, accountNumber: UNREGISTERED }, 'PAYOUT_ACCOUNT_NOT_VALIDATED', /50007654324 is not registered and validated as the insured's/],
      [{ ...valid, accountNumber: TOVES_ACCOUNT }, 'PAYOUT_ACCOUNT_NOT_VALIDATED', /6000987654322 is not registered and validated as the insured's/],
      [{ ...valid, firstMonth: '2026-11' }, 'PAYOUT_MONTH_PASSED', /The payout day of 2026-11 \(2026-11-20\) has passed: the first payout month is 2026-12 or later/],
      [{ ...valid, firstMonth: '2026-12' }, 'PAYOUT_MONTH_PASSED', /The payout run of 2026-12 has been made .*: the first payout month is 2027-01 or later/],
      [{ ...valid, period: '7y' }, 'PAYOUT_PERIOD_NOT_OFFERED', /7y is not offered; the product offers 5y, 10y, 20y/],
    ] as const;
    for (const [body, code, detail] of refusals) {
      const [status, answered, , text] = problemOf(await requestPayout('INS-100001', body));
      assert.deepEqual([status, answered], [422, code], JSON.stringify(body));
      assert.match(text, detail);
    }
    assert.equal((await requestPayout('INS-404', valid)).statusCode, 404);
    assert.equal(await count('SELECT count(*) AS n FROM payout_requests'), 0, 'a refused request saves nothing');
    assert.equal(await count(`SELECT count(*) AS n FROM sign_cases WHERE subject_kind = 'payout'`), 0);

    // The request: Anna alone signs her occupational pension's payout.
    now = new Date('2026-11-27T12:30:00Z');
    const created = await requestPayout('INS-100001', valid);
    assert.equal(created.statusCode, 201, created.body);
    const request = created.json() as { requestId: string; signCaseId: string; status: string; insured: string; customerId: string; period: string; months: number };
    assert.deepEqual([request.status, request.insured, request.customerId, request.period, request.months], ['requested', ANNA.personalNumber, '5561234567', '5y', 60]);
    assert.equal(created.headers.location, `/Insurance/payoutrequest/${request.requestId}`);
    const signCase = (await as({ method: 'GET', url: `/SignCase/${request.signCaseId}` })).json() as { subjectKind: string; requestId: string; signatories: { role: string; personalNumber: string }[] };
    assert.deepEqual([signCase.subjectKind, signCase.requestId], ['payout', request.requestId]);
    assert.deepEqual(signCase.signatories.map((s) => [s.role, s.personalNumber]), [['insured', ANNA.personalNumber]]);
    assert.equal(await count('SELECT count(*) AS n FROM payouts WHERE insurance_number = $1', ['INS-100001']), 0, 'nothing registered before it is signed');

    const signed = await sign(request.signCaseId, 'insured', ANNA);
    assert.deepEqual([signed.status, signed.signedBy], ['complete', ANNA.personalNumber]);
    const shown = Buffer.from(testBankId.server.control.order(signed.orderRef)!.request.userVisibleData, 'base64').toString('utf8');
    assert.equal(shown, [
      '# Utbetalning från depåförsäkring', '',
      'Jag begär att utbetalningen från försäkring INS-100001 börjar **januari 2027**',
      'och pågår i **5 år**, med en utbetalning i månaden',
      'till konto SEB 5000 1234560.',
    ].join('\n'));
    const after = await requestNamed(request.requestId);
    assert.equal(after.status, 'registered');
    assert.deepEqual(after.history.map((h) => [h.event, h.by]), [['requested', 'client:firm'], ['signed', `bankid:${ANNA.personalNumber}`], ['registered', 'payout-request']]);
    // Collecting the completed order again changes nothing.
    await as({ method: 'POST', url: `/SignCase/${request.signCaseId}/Collect`, payload: { orderRef: signed.orderRef } });
    assert.equal((await requestNamed(request.requestId)).history.length, 3);
    const { rows: payouts } = await gateway.deps.db.query('SELECT start_month, months, withdrawal_account, registered_by FROM payouts WHERE insurance_number = $1', ['INS-100001']);
    assert.deepEqual(payouts, [{ start_month: '2027-01', months: 60, withdrawal_account: ANNAS_ACCOUNT, registered_by: `bankid:${ANNA.personalNumber}` }]);
    // In payout now: another request, and staff, are refused.
    assert.equal(problemOf(await requestPayout('INS-100001', valid))[1], 'PAYOUT_ALREADY_REGISTERED');

    // January's payout run: the sell order, and the payout to Anna's account.
    await makeRun(gateway.deps.db, runDeps(), (tx) => runPayoutRun(tx, runDeps(), '2027-01', new Date('2027-01-04T06:00:00Z')));
    const { rows: documents } = await gateway.deps.db.query<{ body: string }>(`SELECT body FROM outgoing_documents WHERE file_name = 'payout-2027-01.DebitAccounts.xml'`);
    assert.equal(documents.length, 1);
    const xml = documents[0]!.body;
    assert.deepEqual(schemas.validate(xml, 'DebitAccounts'), []);
    const anna = /<Account>\s*<AccountNumber>DEPA-100001<\/AccountNumber>[\s\S]*?<\/Account>/.exec(xml)?.[0] ?? '';
    assert.match(anna, /<SellOrder>\s*<Reason>Payout<\/Reason>\s*<Amount>1000\.00<\/Amount>/, '60 000 over 60 months');
    assert.match(anna, /<Payout>\s*<Amount>1000\.00<\/Amount>\s*<PayBy>2027-01-22<\/PayBy>\s*<Installment>1<\/Installment>\s*<Final>false<\/Final>\s*<ToAccount>50001234560<\/ToAccount>\s*<\/Payout>/);
  });

  test("Tove's capital insurance on Ebbe's life: both sign; a new request closes the open one; signed after its month's payout day, refused; staff cannot pay to Tove's account", async () => {
    now = new Date('2026-11-27T12:40:00Z');
    const issued = await submitSigned<{ applicationId: string; status: string; signCaseId: string; insuranceId: string }>(as, testBankId.server, '/InsuranceApplication', {
      productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: TOVE.personalNumber }, insured: { id: EBBE.personalNumber, email: 'ebbe@mail.example' },
      premium: { single: '50000.00' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
      custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
    });
    assert.equal(issued.status, 'issued', JSON.stringify(issued));
    const insurance = issued.insuranceId;
    const { db } = gateway.deps;
    assert.deepEqual((await db.query('SELECT insured_email FROM insurances WHERE insurance_number = $1', [insurance])).rows, [{ insured_email: 'ebbe@mail.example' }], 'kept with the insurance');
    await db.query(`UPDATE insurances SET payout_from = '2026-12-01' WHERE insurance_number = $1`, [insurance]);
    await db.query(
      `INSERT INTO withdrawal_accounts (registration_id, customer_id, account_digits, clearing_number, account_number, bank_name, registered_at, registered_by, validation_day, status, decided_at)
       VALUES ('WA-EBBE', $1, $2, '6000', '123456789', 'Handelsbanken', now(), 'client:firm', '2026-11-27', 'validated', now())`, [EBBE.personalNumber, EBBES_ACCOUNT],
    );
    // January's run is made (the first test): both requests ask for a later month.
    // A payout request is the insured's: the firm's power from Tove, the policyholder, does not reach it; one from Ebbe does.
    const body = { period: '10y', firstMonth: '2027-02', accountNumber: EBBES_ACCOUNT };
    assert.equal((await requestPayout(insurance, body)).statusCode, 404);
    const power = await staff({ method: 'POST', url: '/api/powers-of-attorney', payload: { holderOrganisationNumber: '5565555553', customerId: EBBE.personalNumber, kind: 'intermediation', validFrom: '2026-01-01' } });
    assert.equal(power.statusCode, 201, power.body);
    const made = await requestPayout(insurance, body);
    assert.equal(made.statusCode, 201, made.body);
    const first = made.json() as { requestId: string; signCaseId: string };
    const signCase = (await as({ method: 'GET', url: `/SignCase/${first.signCaseId}` })).json() as { signatories: { role: string; personalNumber: string }[] };
    assert.deepEqual(signCase.signatories.map((s) => [s.role, s.personalNumber]), [['policyholder', TOVE.personalNumber], ['insured', EBBE.personalNumber]]);
    assert.equal((await sign(first.signCaseId, 'insured', EBBE)).status, 'complete');
    assert.equal((await requestNamed(first.requestId)).status, 'requested', 'the policyholder has not signed');

    const second = await requestPayout(insurance, { period: '20y', firstMonth: '2027-03', accountNumber: EBBES_ACCOUNT });
    assert.equal(second.statusCode, 201, second.body);
    const replacing = second.json() as { requestId: string; signCaseId: string };
    const closed = await requestNamed(first.requestId);
    assert.equal(closed.status, 'closed');
    assert.deepEqual(closed.history.at(-1), { event: 'closed', at: now.toISOString(), by: 'client:firm', reason: `Replaced by payout request ${replacing.requestId}.` });
    const refusedSign = await as({ method: 'POST', url: `/SignCase/${first.signCaseId}/Sign`, payload: { role: 'policyholder' } });
    assert.deepEqual([refusedSign.statusCode, (refusedSign.json() as { code: string }).code], [409, 'SIGN_CASE_CLOSED']);
    assert.equal(await count(`SELECT count(*) AS n FROM payout_requests WHERE insurance_number = $1 AND status = 'requested'`, [insurance]), 1, 'one open request');

    // Both sign on 23 March: March's payout day (the 22nd, a Monday) has passed, so the request is refused.
    now = new Date('2027-03-23T09:00:00Z');
    assert.equal((await sign(replacing.signCaseId, 'insured', EBBE)).status, 'complete');
    assert.equal((await sign(replacing.signCaseId, 'policyholder', TOVE)).status, 'complete');
    const refused = await requestNamed(replacing.requestId);
    assert.equal(refused.status, 'refused');
    assert.deepEqual(refused.history.map((h) => h.event), ['requested', 'signed', 'signed', 'refused']);
    assert.match(refused.history.at(-1)!.reason ?? '', /^PAYOUT_MONTH_PASSED: The payout day of 2027-03 \(2027-03-22\) has passed/);
    assert.equal(await count('SELECT count(*) AS n FROM payouts WHERE insurance_number = $1', [insurance]), 0, 'nothing registered');

    // Staff from a paper form: not to Tove's account, which is not Ebbe's.
    const paper = await staff({ method: 'POST', url: `/api/insurances/${insurance}/payout`, payload: { period: '10y', firstMonth: '2027-05', withdrawalAccount: TOVES_ACCOUNT } });
    assert.deepEqual([paper.statusCode, (paper.json() as { code: string }).code], [422, 'PAYOUT_ACCOUNT_NOT_VALIDATED']);
  });
});
