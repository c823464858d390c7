/**
 * Individual insurance applications through the REST API on a real gateway
 * (PostgreSQL, the demo ledger, BankID on the local BankID server): every problem at
 * once, nothing half-saved, signed by the policyholder before the review rules decide,
 * status history, the PDF receipt read back with pdftotext, and the access rules (the
 * submitting firm only; a customer's list needs a power of attorney).
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import { startTestGateway, type TestGateway } from './support/harness.ts';
import { hashSecret } from '../src/config/secret-hash.ts';
import { signCase, submitSigned } from './support/application-signing.ts';
import { startTestBankId, type TestBankId } from './support/bankid.ts';

const ANNA = '197001011233';
const application = {
  productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: ANNA }, insured: { id: ANNA },
  premium: { single: '50000.00', monthly: '1000' }, funds: [{ isin: 'SE000DEPA010', percent: 60 }, { isin: 'SE000DEPA044', percent: 40 }],
  custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
};

describe('insurance applications', () => {
  let gateway: TestGateway;
  let testBankId: TestBankId;
  const tokens = new Map<string, string>();
  const now = new Date('2026-11-25T09:30:00Z');

  beforeAll(async () => {
    testBankId = await startTestBankId();
    const clients = [
      { id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: await hashSecret('firm-secret') },
      { id: 'other-firm', kind: 'advisor-firm', organisationNumber: '5567777775', secretHash: await hashSecret('other-secret') },
      { id: 'custodian', kind: 'custodian', counterpartyId: 'demo-custodian', secretHash: await hashSecret('custodian-secret') },
    ];
    gateway = await startTestGateway({ roles: ['api'], clock: () => now, settings: { api: { tokenRequestsPerMinute: 1000, clients }, bankid: await testBankId.settings() } });
    for (const [id, secret] of [['firm', 'firm-secret'], ['other-firm', 'other-secret'], ['custodian', 'custodian-secret']]) {
      const answer = await gateway.http!.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=client_credentials&client_id=${id}&client_secret=${secret}` });
      tokens.set(id!, (answer.json() as { access_token: string }).access_token);
    }
  });
  afterAll(async () => {
    await gateway.destroy();
    await testBankId.close();
  });

  const as = (client: string, options: InjectOptions) => gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${tokens.get(client)}` } });
  const submit = (body: object, client = 'firm') => as(client, { method: 'POST', url: '/InsuranceApplication', payload: body });
  /** Submitted and signed by Anna (policyholder and insured); its status then. */
  const submitSignedByAnna = (body: object) => submitSigned<{ applicationId: string; status: string; signCaseId: string; insuranceId: string | null; history: { status: string; by: string; reason: string | null }[] }>(
    (options) => as('firm', options), testBankId.server, '/InsuranceApplication', body);
  const staff = (method: 'GET' | 'POST', url: string, payload?: object) =>
    gateway.http!.inject({ method, url, headers: { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` }, ...(payload ? { payload } : {}) });
  /** The insurance an application was issued as, in the ledger: account at the custodian, premium, charges, distribution plan. */
  const assertIssued = async (applicationId: string, expected: { monthly: string | null }) => {
    const db = gateway.deps.db;
    const [app] = (await db.query<{ insurance_number: string }>('SELECT insurance_number FROM applications WHERE application_id = $1', [applicationId])).rows;
    const insuranceNumber = app!.insurance_number;
    assert.match(insuranceNumber, /^INS-\d+$/);
    const [insurance] = (await db.query<Record<string, string>>(
      `SELECT i.insured_pin, i.policyholder, i.product_code, i.start_date::text AS start, i.custody_account, a.custodian_id, i.created_by_message
         FROM insurances i JOIN custody_accounts a ON a.account_number = i.custody_account WHERE i.insurance_number = $1`, [insuranceNumber])).rows;
    assert.deepEqual(insurance, {
      insured_pin: ANNA, policyholder: ANNA, product_code: 'KF-DEPA', start: '2026-11-25', custody_account: `DEPA-${insuranceNumber.slice(4)}`, custodian_id: 'demo-custodian', created_by_message: applicationId,
    });
    const premiums = (await db.query<{ monthly_amount: string }>('SELECT monthly_amount::text FROM insurance_premiums WHERE insurance_number = $1', [insuranceNumber])).rows;
    assert.deepEqual(premiums.map((p) => p.monthly_amount), expected.monthly ? [expected.monthly] : []);
    const fees = (await db.query<{ fee_type: string; value: string }>('SELECT fee_type, value::text FROM insurance_fees WHERE insurance_number = $1 ORDER BY fee_type', [insuranceNumber])).rows;
    assert.deepEqual(fees.map((f) => [f.fee_type, Number(f.value)]), [['CapitalCharge', 0.35], ['FixedCharge', 360]]);
    const lines = (await db.query<{ isin: string; percent: string }>(
      'SELECT l.isin, l.percent::text FROM fund_allocations a JOIN fund_allocation_lines l ON l.allocation_id = a.id WHERE a.insurance_number = $1 ORDER BY l.isin', [insuranceNumber])).rows;
    assert.deepEqual(lines.map((l) => [l.isin, Number(l.percent)]), [['SE000DEPA010', 60], ['SE000DEPA044', 40]]);
  };
  const savedCount = async () => Number((await gateway.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM applications')).rows[0]!.n);

  test('a check without saving: valid, or every business problem with its JSON path', async () => {
    const valid = await as('firm', { method: 'POST', url: '/InsuranceApplication/validation', payload: application });
    assert.equal(valid.statusCode, 200, valid.body);
    assert.deepEqual(valid.json(), { valid: true, reviewReasons: [] });

    const broken = await as('firm', { method: 'POST', url: '/InsuranceApplication/validation', payload: {
      ...application, insured: { id: '197001011234' }, funds: [{ isin: 'SE000DEPA010', percent: 50 }, { isin: 'SE0000108656', percent: 40 }, { isin: 'SE0000000019', percent: 5 }], custodianId: 'nobody',
    } });
    assert.equal(broken.statusCode, 422);
    const problem = broken.json() as { code: string; errors: { path: string; code: string }[] };
    assert.equal(problem.code, 'APPLICATION_INVALID');
    assert.deepEqual(problem.errors.map((e) => [e.path, e.code]), [
      ['$.insured.id', 'PERSONAL_IDENTITY_NUMBER_INVALID'], ['$.funds[1].isin', 'FUND_NOT_SELECTABLE'], ['$.funds[2].isin', 'ISIN_INVALID'], ['$.funds', 'ALLOCATION_NOT_100'], ['$.custodianId', 'CUSTODIAN_UNKNOWN'],
    ]);
    assert.equal(await savedCount(), 0, 'nothing saved by a check');
  });

  test('a malformed body is a 400 naming every field: unknown ones, missing ones, wrong types', async () => {
    const { coverages: _left, ...withoutCoverages } = application;
    void _left;
    const answer = await submit({ ...withoutCoverages, premium: { single: 50000 }, extra: 'field' });
    assert.equal(answer.statusCode, 400);
    const paths = (answer.json() as { errors: { path: string }[] }).errors.map((e) => e.path).sort();
    assert.deepEqual(paths, ['$.coverages', '$.extra', '$.premium.single']);
    const notJson = await as('firm', { method: 'POST', url: '/InsuranceApplication', headers: { 'content-type': 'application/json' }, payload: '{"productId":' });
    assert.equal(notJson.statusCode, 400);
    assert.equal(notJson.json().code, 'REQUEST_INVALID');
    assert.equal(await savedCount(), 0);
  });

  test('submitted: received and awaiting signature, then signed, approved and issued, with its history, a Location and a PDF receipt', async () => {
    const answer = await submit(application);
    assert.equal(answer.statusCode, 201, answer.body);
    const submitted = answer.json() as { applicationId: string; status: string; signCaseId: string; signBy: string; insuranceId: string | null; submittedAt: string };
    assert.match(submitted.applicationId, /^IA-[0-9A-Z]{26}$/);
    assert.equal(answer.headers.location, `/InsuranceApplication/${submitted.applicationId}`);
    assert.deepEqual([submitted.status, submitted.insuranceId, submitted.signBy], ['awaiting-signature', null, '2026-12-25']);
    assert.equal(submitted.submittedAt, now.toISOString());
    assert.equal((await signCase((options) => as('firm', options), testBankId.server, submitted.signCaseId)).complete, true);

    const read = await as('firm', { url: `/InsuranceApplication/${submitted.applicationId}` });
    const saved = read.json() as { applicationId: string; status: string; insuranceId: string; history: { status: string; by: string }[] };
    assert.equal(saved.status, 'issued');
    assert.deepEqual(saved.history.map((h) => [h.status, h.by]), [['received', 'advisor:ADV-001'], ['awaiting-signature', 'gateway'], ['approved', 'gateway'], ['issued', 'gateway']]);
    await assertIssued(saved.applicationId, { monthly: '1000.00' });

    const receipt = await as('firm', { url: `/InsuranceApplication/${saved.applicationId}/Receipt` });
    assert.equal(receipt.headers['content-type'], 'application/pdf');
    const text = pdfText(receipt.rawPayload);
    for (const expected of [saved.applicationId, 'Kapitalförsäkring Depå (KF-DEPA)', `Policyholder: ${ANNA}`, 'single 50000.00 SEK, monthly 1000 SEK', 'SE000DEPA010: 60 %', 'SE000DEPA044: 40 %', now.toISOString(), 'Repayment protection: yes', `policyholder ${ANNA}: signed ${now.toISOString()}`]) {
      assert.ok(text.includes(expected), `receipt holds "${expected}":\n${text}`);
    }
  });

  test('a single premium above the review limit goes to manual review once signed, saying why', async () => {
    const saved = await submitSignedByAnna({ ...application, premium: { single: '2000000.00' } });
    assert.equal(saved.status, 'under-review');
    assert.deepEqual(saved.history.at(-1), { status: 'under-review', at: now.toISOString(), by: 'gateway', reason: 'single premium above 1000000 SEK' });
    assert.equal(saved.insuranceId, null, 'nothing issued before a person decides');

    const review = (await staff('GET', '/api/applications?status=under-review')).json() as { applicationId: string }[];
    assert.ok(review.some((row) => row.applicationId === saved.applicationId));
    assert.equal((await staff('POST', `/api/applications/${saved.applicationId}/approve`, {})).statusCode, 400, 'a decision needs its reason');
    const approved = await staff('POST', `/api/applications/${saved.applicationId}/approve`, { reason: 'source of funds checked' });
    assert.deepEqual(approved.json(), { applicationId: saved.applicationId, status: 'issued' });
    const after = (await as('firm', { url: `/InsuranceApplication/${saved.applicationId}` })).json() as { history: { status: string; by: string; reason: string }[] };
    assert.deepEqual(after.history.slice(-2).map((h) => [h.status, h.by]), [['approved', 'staff:staff'], ['issued', 'gateway']]);
    await assertIssued(saved.applicationId, { monthly: null });
    assert.equal((await staff('POST', `/api/applications/${saved.applicationId}/reject`, { reason: 'too late' })).statusCode, 404, 'decided already');

    const other = await submitSignedByAnna({ ...application, premium: { single: '3000000.00' } });
    const rejected = await staff('POST', `/api/applications/${other.applicationId}/reject`, { reason: 'no source of funds' });
    assert.deepEqual(rejected.json(), { applicationId: other.applicationId, status: 'rejected' });
    assert.equal(((await as('firm', { url: `/InsuranceApplication/${other.applicationId}` })).json() as { insuranceId: null }).insuranceId, null);
  });

  test('an application is its firm\'s only, and a customer\'s list needs a power of attorney', async () => {
    const mine = await submitSignedByAnna(application);
    const unknown = await as('firm', { url: '/InsuranceApplication/IA-01JZZZZZZZZZZZZZZZZZZZZZZZ' });
    assert.equal(unknown.statusCode, 404);
    for (const client of ['other-firm', 'custodian']) {
      for (const url of [`/InsuranceApplication/${mine.applicationId}`, `/InsuranceApplication/${mine.applicationId}/Receipt`]) {
        const refused = await as(client, { url });
        assert.equal(refused.statusCode, 404, `${client} ${url}`);
        assert.equal(refused.json().code, 'RESOURCE_NOT_FOUND');
        assert.doesNotMatch(refused.body, new RegExp(ANNA));
      }
    }
    assert.equal((await submit(application, 'custodian')).statusCode, 404, 'custodians do not apply');

    const list = await as('firm', { url: `/Customer/${ANNA}/InsuranceApplications` });
    assert.equal(list.statusCode, 200);
    const rows = list.json() as { applicationId: string; productName: string; status: string; insuranceId: string | null }[];
    assert.ok(rows.some((row) => row.applicationId === mine.applicationId && row.productName === 'Kapitalförsäkring Depå' && /^INS-\d+$/.test(String(row.insuranceId))));
    assert.equal((await as('other-firm', { url: `/Customer/${ANNA}/InsuranceApplications` })).statusCode, 404, 'no power of attorney');
    assert.equal((await as('firm', { url: '/Customer/198002021239/InsuranceApplications' })).statusCode, 404, 'a customer without the firm\'s power of attorney');
  });
});

function pdfText(pdf: Buffer): string {
  const folder = mkdtempSync(join(tmpdir(), 'dg-receipt-'));
  try {
    writeFileSync(join(folder, 'receipt.pdf'), pdf);
    return execFileSync('pdftotext', ['-layout', join(folder, 'receipt.pdf'), '-'], { encoding: 'utf8' });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
