/**
 * Company signatories of an organisation policyholder, on a real gateway (PostgreSQL)
 * with the BankID adapter speaking mutual TLS to the local BankID server: the insurance
 * was applied for in June, signed by the organisation's signatory of the time and the
 * insured, and approved by staff; in November, with that signatory's term over, a
 * request is refused until signatories are registered; staff keep the register (audited)
 * and the signing rule (none set: an application is refused saying so); a request then
 * gets a sign case of the signatories in force and the
 * insured, which completes when the required count of them has signed — a signer who is
 * not a registered signatory does not count — and the approved request is ordered once.
 * The register from the command line too, in-process (audited under `cli:<account>`).
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, startTestGateway, testSettings, type TestDatabase, type TestGateway } from './support/harness.ts';
import { freePort, runCliToEnd, writeConfigFile } from './support/processes.ts';
import { advisorFirmApi, startTestBankId, type TestBankId } from './support/bankid.ts';
import { signCase as signApplication } from './support/application-signing.ts';
import type { LocalBankIdServer } from '../src/bankid/local-bankid-server.ts';
import type { LocalPerson } from '../src/bankid/local-bankid-orders.ts';

const ORGANISATION = '5561234567';
const FIRST: LocalPerson = { personalNumber: '198506152381', givenName: 'Tove', surname: 'Lind' };
const SECOND: LocalPerson = { personalNumber: '199004044567', givenName: 'Nils', surname: 'Holm' };
const THIRD: LocalPerson = { personalNumber: '197703033451', givenName: 'Maja', surname: 'Berg' };
const FORMER: LocalPerson = { personalNumber: '198001011231', givenName: 'Olof', surname: 'Ek' };
const INSURED: LocalPerson = { personalNumber: '199203033452', givenName: 'Ebbe', surname: 'Lind' };
const STRANGER: LocalPerson = { personalNumber: '198102022343', givenName: 'Sven', surname: 'Dahl' };
/** An organisation with a signatory but no signing rule. */
const WITHOUT_RULE = '5566778899';
const VALIDATED = '50001234560';
const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };

describe('company signatories of an organisation policyholder', () => {
  let gateway: TestGateway;
  let testBankId: TestBankId;
  let bankid: LocalBankIdServer;
  /** Monday 15 June 2026 while the insurance is applied for, then Friday 27 November 2026. */
  let now = new Date('2026-06-15T09:00:00Z');
  let insuranceNumber = '';
  let requestId = '';
  let signCaseId = '';

  beforeAll(async () => {
    testBankId = await startTestBankId();
    bankid = testBankId.server;
    gateway = await startTestGateway({
      roles: ['api'], clock: () => now,
      settings: {
        api: await advisorFirmApi(),
        counterparties: [{ id: 'demo-custodian', name: 'Demo Custodian AB', organisationNumber: '5560000001', role: 'custodian', messageTypes: ['custodian-reporting'] }],
        bankid: await testBankId.settings(),
      },
    });
    // The insurance: applied for in June, when FORMER alone signed for the organisation.
    const former = await staff({ method: 'POST', url: `/api/organisations/${ORGANISATION}/signatories`, payload: { personalNumber: FORMER.personalNumber, name: `${FORMER.givenName} ${FORMER.surname}`, validFrom: '2026-01-01', validTo: '2026-06-30' } });
    assert.equal(former.statusCode, 201, former.body);
    assert.equal((await staff({ method: 'PUT', url: `/api/organisations/${ORGANISATION}/signing-rule`, payload: { requiredSignatures: 1 } })).statusCode, 200);
    const power = await staff({ method: 'POST', url: '/api/powers-of-attorney', payload: { holderOrganisationNumber: '5565555553', customerId: ORGANISATION, kind: 'intermediation', validFrom: '2026-01-01' } });
    assert.equal(power.statusCode, 201, power.body);
    const submitted = (await as({
      method: 'POST', url: '/InsuranceApplication', payload: {
        productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: ORGANISATION }, insured: { id: INSURED.personalNumber },
        premium: { single: '50000.00', monthly: '1000' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
        custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
      },
    })).json() as { applicationId: string; status: string; signCaseId: string };
    assert.equal(submitted.status, 'awaiting-signature');
    const signed = await signApplication(as, bankid, submitted.signCaseId);
    assert.deepEqual(signed.signatories.map((s) => [s.role, s.personalNumber, s.signed]), [['company-signatory', FORMER.personalNumber, true], ['insured', INSURED.personalNumber, true]]);
    const reviewed = (await as({ method: 'GET', url: `/InsuranceApplication/${submitted.applicationId}` })).json() as { status: string };
    assert.equal(reviewed.status, 'under-review', 'an organisation policyholder is reviewed by staff');
    assert.equal((await staff({ method: 'POST', url: `/api/applications/${submitted.applicationId}/approve`, payload: { reason: 'company documents checked' } })).statusCode, 200);
    insuranceNumber = ((await as({ method: 'GET', url: `/InsuranceApplication/${submitted.applicationId}` })).json() as { insuranceId: string }).insuranceId;
    assert.match(insuranceNumber, /^INS-\d+$/);
    now = new Date('2026-11-27T09:00:00Z');
    const db = gateway.deps.db;
    await db.query(
      `INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
       SELECT custody_account, '2026-11-25', 2000, 118000, 120000, 1, 'test-holdings' FROM insurances WHERE insurance_number = $1`, [insuranceNumber],
    );
    await db.query(
      `INSERT INTO withdrawal_accounts (registration_id, customer_id, account_digits, clearing_number, account_number, bank_name, registered_at, registered_by, validation_day, status, decided_at)
       VALUES ('WA-1', $1, $2, '5000', '1234560', 'SEB', now(), 'client:firm', '2026-11-27', 'validated', now())`, [ORGANISATION, VALIDATED],
    );
  });
  afterAll(async () => {
    await gateway.destroy();
    await testBankId.close();
  });

  const staff = (options: InjectOptions) => gateway.http!.inject({ ...options, headers: { ...options.headers, ...STAFF } });
  const as = async (options: InjectOptions) => {
    const token = await gateway.http!.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&client_id=firm&client_secret=firm-secret' });
    return gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${(token.json() as { access_token: string }).access_token}` } });
  };
  const requestWithdrawal = (amount: string) => as({ method: 'POST', url: '/Insurance/withdrawalrequest', payload: { insuranceNumber, amount, accountNumber: VALIDATED } });
  const signCase = async () => (await as({ method: 'GET', url: `/SignCase/${signCaseId}` })).json() as { complete: boolean; companySignaturesRequired: number | null; signatories: { role: string; personalNumber: string; signed: boolean }[] };
  const requestStatus = async () => ((await as({ method: 'GET', url: `/Insurance/withdrawalrequest/${requestId}` })).json() as { status: string }).status;
  const sign = (role: string, personalNumber?: string) => as({ method: 'POST', url: `/SignCase/${signCaseId}/Sign`, payload: { role, endUserIp: '192.0.2.10', ...(personalNumber ? { personalNumber } : {}) } });
  const collect = async (orderRef: string) => (await as({ method: 'POST', url: `/SignCase/${signCaseId}/Collect`, payload: { orderRef } })).json() as Record<string, unknown>;
  /** Starts a signing for the signatory, has `signer` sign it at the local BankID server, and collects it. */
  const signAs = async (role: string, expected: string | undefined, signer: LocalPerson) => {
    const started = await sign(role, expected);
    assert.equal(started.statusCode, 201, started.body);
    const { orderRef } = started.json() as { orderRef: string };
    bankid.control.signThrough(orderRef, signer);
    return collect(orderRef);
  };

  test('no company signatories in force (the one of June has left): refused WITHDRAWAL_NOT_ALLOWED, saying to register them; nothing saved', async () => {
    const refused = await requestWithdrawal('5000');
    assert.equal(refused.statusCode, 422);
    const problem = refused.json() as { code: string; errors: { path: string; code: string; message: string }[] };
    assert.equal(problem.code, 'WITHDRAWAL_NOT_ALLOWED');
    assert.match(problem.errors[0]!.message, new RegExp(`no company signatories in force: register them with POST /api/organisations/${ORGANISATION}/signatories`));
    assert.equal(Number((await gateway.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM withdrawal_requests')).rows[0]!.n), 0);
  });

  test('staff register signatories and the signing rule, every change audited; a revoked or expired one is not in force', async () => {
    for (const [person, validTo] of [[FIRST, null], [SECOND, null], [THIRD, '2027-12-31']] as const) {
      const registered = await staff({ method: 'POST', url: `/api/organisations/${ORGANISATION}/signatories`, payload: { personalNumber: person.personalNumber, name: `${person.givenName} ${person.surname}`, validFrom: '2026-01-01', validTo } });
      assert.equal(registered.statusCode, 201, registered.body);
      assert.equal((registered.json() as { createdBy: string }).createdBy, 'staff:staff');
    }
    const invalid = await staff({ method: 'POST', url: `/api/organisations/${ORGANISATION}/signatories`, payload: { personalNumber: '198506152380', validFrom: '2026-13-01' } });
    assert.equal(invalid.statusCode, 400);
    assert.match((invalid.json() as { message: string }).message, /personalNumber: a personnummer.*name:.*validFrom: a date/);

    // An organisation whose signatory is registered but whose rule is not set cannot sign, so cannot apply.
    const other = await staff({ method: 'POST', url: `/api/organisations/${WITHOUT_RULE}/signatories`, payload: { personalNumber: FIRST.personalNumber, name: 'Tove Lind', validFrom: '2026-01-01' } });
    assert.equal(other.statusCode, 201, other.body);
    const noRule = await as({ method: 'POST', url: '/InsuranceApplication/validation', payload: {
      productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: WITHOUT_RULE }, insured: { id: INSURED.personalNumber }, premium: { monthly: '1000' },
      funds: [{ isin: 'SE000DEPA010', percent: 100 }], custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
    } });
    assert.equal(noRule.statusCode, 422, noRule.body);
    const noRuleProblem = noRule.json() as { errors: { path: string; code: string; message: string }[] };
    assert.deepEqual(noRuleProblem.errors.map((e) => [e.path, e.code]), [['$.policyholder.id', 'APPLICATION_SIGNATORIES_MISSING']]);
    assert.match(noRuleProblem.errors[0]!.message, /no signing rule: set how many company signatories must sign/);
    assert.equal((await staff({ method: 'PUT', url: `/api/organisations/${ORGANISATION}/signing-rule`, payload: { requiredSignatures: 0 } })).statusCode, 400);
    const ruled = await staff({ method: 'PUT', url: `/api/organisations/${ORGANISATION}/signing-rule`, payload: { requiredSignatures: 2 } });
    assert.equal((ruled.json() as { requiredSignatures: number }).requiredSignatures, 2);

    const extra = (await staff({ method: 'POST', url: `/api/organisations/${ORGANISATION}/signatories`, payload: { personalNumber: STRANGER.personalNumber, name: 'Sven Dahl', validFrom: '2026-01-01' } })).json() as { id: string };
    const revoked = await staff({ method: 'POST', url: `/api/organisations/${ORGANISATION}/signatories/${extra.id}/revoke`, payload: { reason: 'left the board' } });
    assert.equal((revoked.json() as { revokedBy: string }).revokedBy, 'staff:staff');
    assert.equal((await staff({ method: 'POST', url: `/api/organisations/${ORGANISATION}/signatories/${extra.id}/revoke`, payload: {} })).statusCode, 404);

    const register = (await staff({ method: 'GET', url: `/api/organisations/${ORGANISATION}/signatories` })).json() as { requiredSignatures: number; signatories: { personalNumber: string; revokedAt: string | null }[] };
    assert.equal(register.requiredSignatures, 2);
    assert.equal(register.signatories.length, 5);
    const audit = await gateway.deps.db.query<{ change: string; changed_by: string }>('SELECT change, changed_by FROM company_signatory_changes WHERE organisation_number = $1 ORDER BY id', [ORGANISATION]);
    assert.deepEqual(audit.rows.map((r) => r.change), ['registered', 'rule-set', 'registered', 'registered', 'registered', 'rule-set', 'registered', 'revoked']);
    assert.ok(audit.rows.every((r) => r.changed_by === 'staff:staff'));
  });

  test('a request lists the three signatories in force and the insured; two must sign', async () => {
    const created = await requestWithdrawal('12500.00');
    assert.equal(created.statusCode, 201, created.body);
    ({ requestId, signCaseId } = created.json() as { requestId: string; signCaseId: string });
    const view = await signCase();
    assert.equal(view.complete, false);
    assert.equal(view.companySignaturesRequired, 2);
    assert.deepEqual(view.signatories.map((s) => [s.role, s.personalNumber]), [
      ['company-signatory', THIRD.personalNumber], ['company-signatory', FIRST.personalNumber], ['company-signatory', SECOND.personalNumber], ['insured', INSURED.personalNumber],
    ]);
  });

  test('a signer who is not a registered signatory does not count', async () => {
    const which = await sign('company-signatory');
    assert.equal(which.statusCode, 400);
    assert.match((which.json() as { detail: string }).detail, /give personalNumber/);
    const unregistered = await sign('company-signatory', STRANGER.personalNumber);
    assert.equal(unregistered.statusCode, 400);
    assert.match((unregistered.json() as { detail: string }).detail, /is not a company-signatory of the sign case/);

    const other = await signAs('company-signatory', FIRST.personalNumber, STRANGER);
    assert.deepEqual([other.status, other.reason], ['failed', 'signedByAnotherPerson']);
    assert.deepEqual((await signCase()).signatories.filter((s) => s.signed), []);
  });

  test('one company signatory signs: not complete; a second signs: complete, and the approved request is ordered once', async () => {
    assert.equal((await signAs('company-signatory', FIRST.personalNumber, FIRST)).status, 'complete');
    assert.equal((await signAs('insured', undefined, INSURED)).status, 'complete');
    assert.equal((await signCase()).complete, false, 'one of two company signatories');
    assert.equal(await requestStatus(), 'requested');
    const approved = await staff({ method: 'POST', url: `/api/withdrawal-requests/${requestId}/approve`, payload: { reason: 'checked' } });
    assert.deepEqual(approved.json(), { requestId, status: 'approved' });

    const second = await signAs('company-signatory', SECOND.personalNumber, SECOND);
    assert.deepEqual([second.status, second.signedBy], ['complete', SECOND.personalNumber]);
    const view = await signCase();
    assert.equal(view.complete, true);
    assert.deepEqual(view.signatories.filter((s) => s.signed).map((s) => s.personalNumber), [FIRST.personalNumber, SECOND.personalNumber, INSURED.personalNumber]);
    assert.equal(await requestStatus(), 'ordered');
    assert.equal(Number((await gateway.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM debit_runs')).rows[0]!.n), 1);

    const third = await sign('company-signatory', THIRD.personalNumber);
    assert.equal(third.statusCode, 409);
    assert.match((third.json() as { code: string; detail: string }).detail, /2 company signatories have signed, as many as must/);
  });
});

describe('company signatories from the CLI', () => {
  let database: TestDatabase;
  let gateway: TestGateway;
  let folder: string;
  let config: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    gateway = await startTestGateway({ database, roles: ['api'] });
    folder = await mkdtemp(join(tmpdir(), 'dg-company-signatories-'));
    config = await writeConfigFile(folder, testSettings(join(folder, 'data'), { databaseUrl: database.url, port: await freePort(), logLevel: 'warn' }));
  });
  afterAll(async () => {
    await gateway.destroy();
    await database.drop();
    await rm(folder, { recursive: true, force: true });
  });
  const cli = (args: string[]) => runCliToEnd([...args, '--config', config]);

  test('register, rule, list and revoke in-process, each change audited under the account that ran it', async () => {
    const from = new Date();
    const registered = await cli(['company-signatories', 'register', '--organisation', ORGANISATION, '--personal-number', FIRST.personalNumber, '--name', 'Tove Lind', '--from', '2026-01-01', '--json']);
    assert.equal(registered.code, 0, registered.stderr);
    const row = JSON.parse(registered.stdout) as { id: string; createdBy: string };
    assert.equal(row.createdBy, `cli:${userInfo().username}`);
    assert.equal((await cli(['company-signatories', 'rule', '--organisation', ORGANISATION, '--required', '1'])).code, 0);
    const listed = await cli(['company-signatories', '--organisation', ORGANISATION, '--json']);
    const register = JSON.parse(listed.stdout) as { requiredSignatures: number; signatories: { personalNumber: string }[] };
    assert.deepEqual([register.requiredSignatures, register.signatories.map((s) => s.personalNumber)], [1, [FIRST.personalNumber]]);
    assert.equal((await cli(['company-signatories', 'revoke', row.id, '--organisation', ORGANISATION, '--reason', 'resigned'])).code, 0);
    const again = await cli(['company-signatories', 'revoke', row.id, '--organisation', ORGANISATION]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /RESOURCE_NOT_FOUND/);

    const audit = await gateway.deps.db.query<{ change: string; changed_by: string; changed_at: Date; details: { reason?: string } }>(
      'SELECT change, changed_by, changed_at, details FROM company_signatory_changes ORDER BY id');
    assert.deepEqual(audit.rows.map((r) => [r.change, r.changed_by]), [['registered', `cli:${userInfo().username}`], ['rule-set', `cli:${userInfo().username}`], ['revoked', `cli:${userInfo().username}`]]);
    assert.equal(audit.rows[2]!.details.reason, 'resigned');
    assert.ok(audit.rows.every((r) => r.changed_at.getTime() >= from.getTime() - 1000 && r.changed_at.getTime() <= Date.now()), 'recorded when the commands ran');
  });
});
