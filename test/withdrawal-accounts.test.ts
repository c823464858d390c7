/**
 * Withdrawal accounts through the REST API on a real gateway (PostgreSQL, the demo
 * ledger): registration with the account checked by the bank rules (every wrong one
 * says what is wrong, nothing saved), the validation day from the 07:00 cutoff, the
 * 13:00 validation run against a local account-ownership register, and the access
 * rules (a firm with a power of attorney, the custodian holding the customer's account).
 * The customer's insurance is applied for by the firm and signed by the customer with
 * BankID on the local BankID server.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { pino } from 'pino';
import { startTestGateway, type TestGateway } from './support/harness.ts';
import { hashSecret } from '../src/config/secret-hash.ts';
import { LocalAccountOwnership } from '../src/calendar/account-ownership.ts';
import { withdrawalAccountValidationJob } from '../src/calendar/withdrawal-account-validation.job.ts';
import { submitSigned } from './support/application-signing.ts';
import { startTestBankId, type TestBankId } from './support/bankid.ts';

const CUSTOMER = '198506152381';
const OWN_ACCOUNT = '50001234560';
const LATE_ACCOUNT = '6000123456789';
const SOMEONE_ELSES = '83279931432489';
const application = {
  productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: CUSTOMER }, insured: { id: CUSTOMER },
  premium: { single: '50000.00', monthly: '1000' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
  custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
};

describe('withdrawal accounts', () => {
  let gateway: TestGateway;
  let testBankId: TestBankId;
  let now = new Date('2026-11-24T09:30:00Z');
  let insuranceNumber = '';
  const clients = { firm: 'firm-secret', 'other-firm': 'other-secret', custodian: 'custodian-secret', 'other-custodian': 'other-custodian-secret' };

  beforeAll(async () => {
    testBankId = await startTestBankId();
    gateway = await startTestGateway({
      roles: ['api'], clock: () => now,
      settings: {
        api: {
          tokenRequestsPerMinute: 1000,
          clients: [
            { id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: await hashSecret(clients.firm) },
            { id: 'other-firm', kind: 'advisor-firm', organisationNumber: '5567777775', secretHash: await hashSecret(clients['other-firm']) },
            { id: 'custodian', kind: 'custodian', counterpartyId: 'demo-custodian', secretHash: await hashSecret(clients.custodian) },
            { id: 'other-custodian', kind: 'custodian', counterpartyId: 'other-custodian', secretHash: await hashSecret(clients['other-custodian']) },
          ],
        },
        counterparties: [
          { id: 'demo-employer', name: 'Demo Employer AB', organisationNumber: '5561234567', role: 'employer', messageTypes: ['plan-administration'] },
          { id: 'demo-custodian', name: 'Demo Custodian AB', organisationNumber: '5560000001', role: 'custodian', messageTypes: ['custodian-reporting'] },
          { id: 'other-custodian', name: 'Other Custodian AB', organisationNumber: '5560000019', role: 'custodian', messageTypes: ['custodian-reporting'] },
        ],
        bankid: await testBankId.settings(),
      },
    });
    const power = await gateway.http!.inject({
      method: 'POST', url: '/api/powers-of-attorney', headers: { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` },
      payload: { holderOrganisationNumber: '5565555553', customerId: CUSTOMER, kind: 'intermediation', validFrom: '2026-01-01' },
    });
    assert.equal(power.statusCode, 201, power.body);
    const issued = await submitSigned<{ applicationId: string; status: string; signCaseId: string; insuranceId: string }>(
      (options) => as('firm', options), testBankId.server, '/InsuranceApplication', application);
    assert.equal(issued.status, 'issued', JSON.stringify(issued));
    insuranceNumber = issued.insuranceId;
  });
  afterAll(async () => {
    await gateway?.destroy();
    await testBankId?.close();
  });

  /** A token at the test's clock (the clock moves over days; a token lasts minutes). */
  const tokenOf = async (client: string) => {
    const secret = clients[client as keyof typeof clients];
    const answer = await gateway.http!.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=client_credentials&client_id=${client}&client_secret=${secret}` });
    return (answer.json() as { access_token: string }).access_token;
  };
  const as = async (client: string, options: InjectOptions) => gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${await tokenOf(client)}` } });
  const register = (account: string, customerId = CUSTOMER, client = 'firm') => as(client, { method: 'POST', url: `/Customer/${account}/WithdrawalAccount`, payload: { customerId } });
  const registrations = async () => Number((await gateway.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM withdrawal_accounts')).rows[0]!.n);
  const validate = async (at: Date, ownership = new LocalAccountOwnership([{ accountNumber: OWN_ACCOUNT, holderId: CUSTOMER }, { accountNumber: LATE_ACCOUNT, holderId: CUSTOMER }, { accountNumber: SOMEONE_ELSES, holderId: '197001011233' }])) => {
    const log = pino({ level: 'silent' });
    const job = withdrawalAccountValidationJob({ ownership, log });
    const periods = job.duePeriods(at);
    for (const period of periods) await gateway.deps.db.transaction((sql) => job.run({ sql, period, firedAt: at, log, afterCommit: () => undefined }));
    return periods;
  };

  test('an account registered at 06:55 is pending for that day\'s 13:00 run; one at 07:05 for the next banking day\'s; a repeat finds the first', async () => {
    now = new Date('2026-11-25T05:55:00Z'); // Wednesday 06:55 in Stockholm
    const early = await register(OWN_ACCOUNT);
    assert.equal(early.statusCode, 202, early.body);
    const registration = early.json() as Record<string, unknown>;
    assert.match(String(registration.registrationId), /^WA-/);
    assert.deepEqual({ ...registration, registrationId: 'x' }, {
      registrationId: 'x', customerId: CUSTOMER, accountNumber: OWN_ACCOUNT, bankName: 'SEB', status: 'pending',
      registeredAt: '2026-11-25T05:55:00.000Z', validationAt: '2026-11-25T12:00:00.000Z', decidedAt: null, reason: null,
    });
    const someoneElses = await register(SOMEONE_ELSES);
    assert.equal(someoneElses.statusCode, 202);

    now = new Date('2026-11-25T06:05:00Z'); // 07:05
    const again = await register(OWN_ACCOUNT, CUSTOMER, 'custodian');
    assert.equal(again.statusCode, 200, 'registered already: the same registration');
    assert.equal((again.json() as { registrationId: string }).registrationId, registration.registrationId);
    const late = await register(LATE_ACCOUNT);
    assert.equal(late.statusCode, 202);
    assert.equal((late.json() as { validationAt: string }).validationAt, '2026-11-26T12:00:00.000Z');
    assert.equal(await registrations(), 3);
  });

  test('a wrong account or customer is 422 saying exactly what is wrong, and nothing is saved', async () => {
    const before = await registrations();
    const cases: [string, string, string, RegExp][] = [
      ['99991234567', CUSTOMER, 'BANK_ACCOUNT_INVALID', /clearing number 9999 belongs to no Swedish bank/],
      ['50001234567', CUSTOMER, 'BANK_ACCOUNT_INVALID', /check digit of SEB account 5000 1234567 is wrong \(mod 11 over clearing number and account number\)/],
      ['5000123456', CUSTOMER, 'BANK_ACCOUNT_INVALID', /SEB accounts \(clearing 5000\) have 7 digits after the clearing number; 123456 has 6/],
      [OWN_ACCOUNT, '198506152382', 'PERSONAL_IDENTITY_NUMBER_INVALID', /198506152382 is not a personnummer/],
    ];
    for (const [account, customerId, code, detail] of cases) {
      const answer = await register(account, customerId);
      assert.equal(answer.statusCode, 422, `${account} ${customerId}`);
      assert.equal(answer.headers['content-type'], 'application/problem+json; charset=utf-8');
      const problem = answer.json() as { code: string; detail: string; errors: { path: string; code: string }[] };
      assert.equal(problem.code, code);
      assert.match(problem.detail, detail);
      assert.equal(problem.errors[0]!.path, code === 'BANK_ACCOUNT_INVALID' ? '$params.customerNumber' : '$.customerId');
    }
    const hyphen = await register('5000-1234560');
    assert.equal(hyphen.statusCode, 400);
    assert.equal((hyphen.json() as { code: string }).code, 'REQUEST_INVALID');
    assert.equal(await registrations(), before);
  });

  test('the 13:00 run validates what is due: the policyholder\'s account, someone else\'s refused with the reason; the later one waits a day', async () => {
    assert.deepEqual(await validate(new Date('2026-11-25T11:59:00Z')), ['2026-11-23', '2026-11-24'], 'before 13:00 the day is not due yet');
    assert.equal((await as('firm', { method: 'GET', url: `/Customer/${OWN_ACCOUNT}/WithdrawalAccount` })).json()[0].status, 'pending');

    assert.deepEqual(await validate(new Date('2026-11-25T12:00:30Z')), ['2026-11-24', '2026-11-25']);
    const own = (await as('firm', { method: 'GET', url: `/Customer/${OWN_ACCOUNT}/WithdrawalAccount` })).json() as { status: string; decidedAt: string }[];
    assert.deepEqual(own.map((row) => [row.status, row.decidedAt]), [['validated', '2026-11-25T12:00:30.000Z']]);
    const refused = (await as('firm', { method: 'GET', url: `/Customer/${SOMEONE_ELSES}/WithdrawalAccount` })).json() as { status: string; reason: string }[];
    assert.deepEqual(refused.map((row) => [row.status, row.reason]), [['refused', `the account is not held by the policyholder ${CUSTOMER}`]]);
    assert.equal((await as('firm', { method: 'GET', url: `/Customer/${LATE_ACCOUNT}/WithdrawalAccount` })).json()[0].status, 'pending');

    await validate(new Date('2026-11-26T12:01:00Z'));
    assert.equal((await as('firm', { method: 'GET', url: `/Customer/${LATE_ACCOUNT}/WithdrawalAccount` })).json()[0].status, 'validated');
    // A refused account can be registered again: a new registration, for the next run.
    now = new Date('2026-11-26T13:00:00Z');
    const again = await register(SOMEONE_ELSES);
    assert.equal(again.statusCode, 202);
    assert.equal((again.json() as { validationAt: string }).validationAt, '2026-11-27T12:00:00.000Z');
  });

  test('an ownership check that fails leaves the registration pending for the next run', async () => {
    now = new Date('2026-11-26T14:00:00Z');
    const failing = { check: () => Promise.reject(new Error('bank service unreachable')) };
    await validate(new Date('2026-11-27T12:00:00Z'), failing as unknown as LocalAccountOwnership);
    const rows = (await as('firm', { method: 'GET', url: `/Customer/${SOMEONE_ELSES}/WithdrawalAccount` })).json() as { status: string }[];
    assert.deepEqual(rows.map((row) => row.status), ['refused', 'pending']);
  });

  test('who may see and register: a firm with a power of attorney and the custodian holding the customer; others as for an account never registered', async () => {
    const path = `/Customer/${OWN_ACCOUNT}/WithdrawalAccount`;
    assert.equal((await as('custodian', { method: 'GET', url: path })).statusCode, 200);
    const unknown = await as('firm', { method: 'GET', url: '/Customer/50007654324/WithdrawalAccount' });
    assert.equal(unknown.statusCode, 404);
    for (const client of ['other-firm', 'other-custodian']) {
      const read = await as(client, { method: 'GET', url: path });
      assert.equal(read.statusCode, 404, client);
      assert.equal(read.body, unknown.body, `${client}: the body of an account never registered`);
      const write = await register('50007654324', CUSTOMER, client);
      assert.equal(write.statusCode, 404, client);
      assert.equal(write.body, unknown.body);
    }
    const noToken = await gateway.http!.inject({ method: 'GET', url: path });
    assert.equal(noToken.statusCode, 401);
  });

  test('withdrawal information: the K insurance\'s bounds from its latest custody value minus charges not yet debited; by account and by insurance, within the access rules', async () => {
    now = new Date('2026-11-27T09:00:00Z');
    const path = `/Insurance/${insuranceNumber}/withdrawalInformation`;
    const noValue = (await as('firm', { method: 'GET', url: path })).json() as Record<string, unknown>;
    assert.deepEqual(noValue, { insuranceNumber, customerId: CUSTOMER, productId: 'KF-DEPA', taxCategory: 'K', withdrawalAllowed: false, reason: 'the custodian has not reported a value for the account yet' });
    assert.deepEqual((await as('firm', { method: 'GET', url: `/Customer/${OWN_ACCOUNT}/WithdrawalInformation` })).json(), [], 'nothing to withdraw yet');

    // The custodian's Holdings of 25 November, as the pipeline stores them.
    const [{ account }] = (await gateway.deps.db.query<{ account: string }>('SELECT custody_account AS account FROM insurances WHERE insurance_number = $1', [insuranceNumber])).rows as [{ account: string }];
    await gateway.deps.db.query(
      `INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id) VALUES ($1, '2026-11-25', 2000, 118000, 120000, 1, 'test-holdings')`, [account],
    );
    // Issued 24 November, never debited: 4 days to reserve — fixed 360 × 4 / 365 = 3.945 → 3.95, capital 120 000 × 0.35 % × 4 / 365 = 4.603 → 4.61.
    const expected = {
      insuranceNumber, customerId: CUSTOMER, productId: 'KF-DEPA', taxCategory: 'K', withdrawalAllowed: true, minimum: '1000.00', maximum: '119991.44',
      value: '120000.00', valueAsOf: '2026-11-25', reservedForCharges: '8.56', reservedForTax: '0.00', requested: '0.00',
    };
    assert.deepEqual((await as('firm', { method: 'GET', url: path })).json(), expected);
    assert.deepEqual((await as('custodian', { method: 'GET', url: `/Customer/${OWN_ACCOUNT}/WithdrawalInformation` })).json(), [expected]);

    const missing = await as('firm', { method: 'GET', url: '/Insurance/INS-404/withdrawalInformation' });
    assert.equal(missing.statusCode, 404);
    for (const client of ['other-firm', 'other-custodian']) {
      assert.equal((await as(client, { method: 'GET', url: path })).body, missing.body, client);
      assert.equal((await as(client, { method: 'GET', url: `/Customer/${OWN_ACCOUNT}/WithdrawalInformation` })).body, missing.body, client);
    }
    // An account that is not validated for the customer shows nothing: the same 404.
    assert.equal((await as('firm', { method: 'GET', url: `/Customer/${SOMEONE_ELSES}/WithdrawalInformation` })).body, missing.body);
    const invalid = await as('firm', { method: 'GET', url: '/Customer/50001234567/WithdrawalInformation' });
    assert.equal(invalid.statusCode, 422);
  });
});
