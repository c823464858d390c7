/**
 * Pension plan applications through the REST API on a real gateway (PostgreSQL, the
 * demo ledger, BullMQ on Redis, BankID on the local BankID server): every problem at
 * once and nothing saved, awaiting the employer's company signatory at submission, the
 * review rules once signed and a staff decision, and issued meaning real — the employer's first
 * SalaryAdjustment is accepted for a new employee, the custodian's Holdings report is
 * taken for the new custody accounts, and the next debit run debits them. The PDF
 * receipt is read back with pdftotext; another firm's application is a 404 like an
 * unknown id.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import { hashSecret } from '../src/config/secret-hash.ts';
import { makeRun, runDebitRun, runDepsFrom } from '../src/calendar/debit-run.ts';
import { registerCompanySignatories, signCase, submitSigned, type RestCall } from './support/application-signing.ts';
import { startTestBankId, type TestBankId } from './support/bankid.ts';
import { holdingsReport } from './support/custodian-reports.ts';
import { salaryAdjustment } from './support/documents.ts';
import { startTestGateway, waitFor, type TestGateway } from './support/harness.ts';

const HANNA = '199506151233';
const IVAR = '197505051230';
const JOHAN = '200101012342';
/** A configured employer counterparty (test/support/harness.ts) without an agreement in the demo ledger. */
const OTHER_EMPLOYER = '8020000009';
/** The employers the tests apply for, each with one company signatory who signs alone. */
const SIGNATORY_OF: Readonly<Record<string, string>> = {
  [OTHER_EMPLOYER]: '197003151235', '5561234567': '198107074562', '5569012346': '196602207893', '5590123450': '199011112340',
};

const plan = {
  productId: 'TJP-DEPA', advisorCode: 'ADV-001',
  employer: { organisationNumber: OTHER_EMPLOYER, name: 'Other Employer AB' },
  agreement: {
    categories: [
      { code: 'TJM', name: 'Tjänstemän', premium: { percentOfSalary: '4.5', percentAboveCap: '30' } },
      { code: 'FAST', name: 'Fast premie', premium: { fixedMonthly: '1500' } },
    ],
    costCenters: [{ code: '100', name: 'Ekonomi' }, { code: '200', name: 'Produktion' }],
  },
  funds: [{ isin: 'SE000DEPA010', percent: 60 }, { isin: 'SE000DEPA044', percent: 40 }],
  custodianId: 'demo-custodian',
  employees: [
    { personalIdentityNumber: HANNA, category: 'TJM', costCenter: '100', annualSalary: '720000.00', employmentStart: '2024-03-01' },
    { personalIdentityNumber: IVAR, category: 'FAST', costCenter: '200', annualSalary: '450000', employmentStart: '2019-08-15' },
    { personalIdentityNumber: JOHAN, category: 'TJM', costCenter: '200', annualSalary: '480000', employmentStart: '2027-01-01' },
  ],
};

interface PlanStatus {
  applicationId: string; status: string; submittedAt: string; signCaseId: string; signBy: string; agreementId: string | null; employerOrganisationNumber: string;
  insurances: { personalIdentityNumber: string; insuranceId: string }[]; history: { status: string; at: string; by: string; reason: string | null }[];
}

describe('pension plan applications', () => {
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
    gateway = await startTestGateway({
      roles: ['api', 'worker'], clock: () => now,
      settings: {
        api: { tokenRequestsPerMinute: 1000, clients, review: { planEmployeesAbove: 2 } },
        // The insurer's P/T yield tax rate for 2027 (the form only), so the Q4 2026 debit run can tax the opening value.
        charges: { yieldTaxRates: { '2027': { pt: '0.300' } } },
        bankid: await testBankId.settings(),
      },
    });
    for (const [id, secret] of [['firm', 'firm-secret'], ['other-firm', 'other-secret'], ['custodian', 'custodian-secret']]) {
      const answer = await gateway.http!.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=client_credentials&client_id=${id}&client_secret=${secret}` });
      tokens.set(id!, (answer.json() as { access_token: string }).access_token);
    }
    for (const [employer, signatory] of Object.entries(SIGNATORY_OF)) await registerCompanySignatories(staffCall, employer, [signatory], 1);
  });
  afterAll(async () => {
    await gateway?.destroy();
    await testBankId?.close();
  });

  const as = (client: string, options: InjectOptions) => gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${tokens.get(client)}` } });
  const submit = (body: object, client = 'firm') => as(client, { method: 'POST', url: '/PlanApplication', payload: body });
  const firm: RestCall = (options) => as('firm', options);
  /** Submitted and signed by the employer's company signatory; its status then. */
  const submitSignedByEmployer = (body: object) => submitSigned<PlanStatus>(firm, testBankId.server, '/PlanApplication', body);
  const staffCall: RestCall = (options) => gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` } });
  const staff = (method: 'GET' | 'POST', url: string, payload?: object) =>
    gateway.http!.inject({ method, url, headers: { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` }, ...(payload ? { payload } : {}) });
  const query = async <Row>(sql: string, params: unknown[] = []) => (await gateway.deps.db.query<Row & Record<string, unknown>>(sql, params)).rows;
  const counts = async () => (await query<{ applications: number; agreements: number; insurances: number }>(
    `SELECT (SELECT count(*)::int FROM applications) AS applications, (SELECT count(*)::int FROM agreements) AS agreements, (SELECT count(*)::int FROM insurances) AS insurances`))[0];

  /** Receives a document from a counterparty through the queues and waits for its response. */
  async function send(counterpartyId: string, name: string, xml: string): Promise<string> {
    const receipt = await gateway.intake.receive({
      channel: 'cli', counterpartyId, externalId: name, receivedAt: now, content: { bytes: Buffer.from(xml) }, metadata: { fileName: `${name}.xml` },
    });
    const [row] = await waitFor(async () => {
      const rows = await query<{ body: string }>('SELECT body FROM responses WHERE message_id = $1', [receipt.messageId]);
      return rows.length > 0 && rows;
    }, `the response to ${name}`);
    return row!.body;
  }

  test("a check without saving gives each employee's premium, or every problem with its JSON path", async () => {
    const before = await counts();
    const valid = await as('firm', { method: 'POST', url: '/PlanApplication/validation', payload: plan });
    assert.equal(valid.statusCode, 200, valid.body);
    // 2026: 7.5 × 83 400 / 12 = 52 125 a month. Hanna 60 000: 4.5 % × 52 125 + 30 % × 7 875 = 4 708.125; Johan 40 000 × 4.5 %.
    assert.deepEqual(valid.json(), {
      valid: true, reviewReasons: ['more than 2 employees'],
      premiums: [{ personalIdentityNumber: HANNA, monthlyPremium: '4708.13' }, { personalIdentityNumber: IVAR, monthlyPremium: '1500.00' }, { personalIdentityNumber: JOHAN, monthlyPremium: '1800.00' }],
    });

    const broken = await as('firm', { method: 'POST', url: '/PlanApplication/validation', payload: {
      ...plan,
      employer: { ...plan.employer, organisationNumber: '8020000008' },
      employees: [plan.employees[0], { ...plan.employees[1], category: 'ARB' }, { ...plan.employees[2], personalIdentityNumber: HANNA }],
    } });
    assert.equal(broken.statusCode, 422);
    const problem = broken.json() as { code: string; errors: { path: string; code: string; message: string }[] };
    assert.equal(problem.code, 'APPLICATION_INVALID');
    assert.deepEqual(problem.errors.map((e) => [e.path, e.code]), [
      ['$.employer.organisationNumber', 'ORGANISATION_NUMBER_INVALID'], ['$.employees[1].category', 'CATEGORY_UNKNOWN'], ['$.employees[2].personalIdentityNumber', 'EMPLOYEE_LISTED_TWICE'],
    ]);
    assert.equal(problem.errors[1]!.message, "Category ARB is not one of the plan's (TJM, FAST).");
    assert.deepEqual(await counts(), before, 'nothing saved by a check');
  });

  test('a bad application is refused with every problem and nothing saved: unknown fields and malformed values (400), broken rules (422)', async () => {
    const before = await counts();
    const malformed = await submit({
      ...plan, extra: 'field',
      employer: { organisationNumber: '802000000', name: 'Other Employer AB' },
      agreement: { ...plan.agreement, categories: [{ code: 'TJM', name: 'Tjänstemän', premium: { fixedMonthly: '1500', percentAboveCap: '30' } }] },
      employees: [{ ...plan.employees[0], salary: '1' }],
    });
    assert.equal(malformed.statusCode, 400);
    const paths = (malformed.json() as { code: string; errors: { path: string }[] }).errors.map((e) => e.path);
    for (const path of ['$.extra', '$.employer.organisationNumber', '$.agreement.categories[0].premium', '$.employees[0].salary']) {
      assert.ok(paths.includes(path), `${path} among ${paths.join(', ')}`);
    }

    const broken = await submit({
      ...plan, productId: 'KF-DEPA', custodianId: 'nobody',
      agreement: { ...plan.agreement, costCenters: [...plan.agreement.costCenters, { code: '100', name: 'Again' }] },
      employees: [...plan.employees, { ...plan.employees[1], personalIdentityNumber: IVAR, costCenter: '300' }],
    });
    assert.equal(broken.statusCode, 422);
    assert.deepEqual((broken.json() as { errors: { path: string; code: string }[] }).errors.map((e) => [e.path, e.code]), [
      ['$.productId', 'PRODUCT_UNKNOWN'], ['$.agreement.costCenters[2].code', 'COST_CENTER_ALREADY_DEFINED'], ['$.custodianId', 'CUSTODIAN_UNKNOWN'],
      ['$.employees[3].personalIdentityNumber', 'EMPLOYEE_LISTED_TWICE'], ['$.employees[3].costCenter', 'COST_CENTER_UNKNOWN'],
    ]);
    assert.deepEqual(await counts(), before, 'nothing saved');
  });

  test('signed by the employer and approved by staff, the plan is issued: agreement, employments and insurances; the employer then reports salaries and the next debit run debits the new accounts', async () => {
    const submitted = await submit(plan);
    assert.equal(submitted.statusCode, 201, submitted.body);
    const awaiting = submitted.json() as PlanStatus;
    assert.match(awaiting.applicationId, /^PA-[0-9A-Z]{26}$/);
    assert.equal(submitted.headers.location, `/PlanApplication/${awaiting.applicationId}`);
    assert.deepEqual([awaiting.status, awaiting.signBy, awaiting.agreementId, awaiting.insurances, awaiting.employerOrganisationNumber, awaiting.submittedAt],
      ['awaiting-signature', '2026-12-25', null, [], OTHER_EMPLOYER, now.toISOString()]);
    assert.equal((await query('SELECT 1 FROM agreements WHERE employer_organisation_number = $1', [OTHER_EMPLOYER])).length, 0, 'nothing issued before the employer signs');
    const signed = await signCase(firm, testBankId.server, awaiting.signCaseId);
    assert.deepEqual([signed.complete, signed.signatories.map((s) => [s.role, s.personalNumber, s.signed])], [true, [['company-signatory', SIGNATORY_OF[OTHER_EMPLOYER], true]]]);

    const saved = (await as('firm', { url: `/PlanApplication/${awaiting.applicationId}` })).json() as PlanStatus;
    assert.deepEqual([saved.status, saved.agreementId, saved.insurances], ['under-review', null, []]);
    assert.deepEqual(saved.history, [
      { status: 'received', at: now.toISOString(), by: 'advisor:ADV-001', reason: null },
      { status: 'awaiting-signature', at: now.toISOString(), by: 'gateway', reason: `sign case ${awaiting.signCaseId}, to be signed by 2026-12-25` },
      { status: 'under-review', at: now.toISOString(), by: 'gateway', reason: 'more than 2 employees' },
    ]);
    assert.equal((await query('SELECT 1 FROM agreements WHERE employer_organisation_number = $1', [OTHER_EMPLOYER])).length, 0, 'nothing issued before a person decides');

    const review = (await staff('GET', '/api/applications?status=under-review')).json() as { applicationId: string; kind: string; customerId: string }[];
    assert.ok(review.some((row) => row.applicationId === saved.applicationId && row.kind === 'plan' && row.customerId === OTHER_EMPLOYER));
    const approved = await staff('POST', `/api/applications/${saved.applicationId}/approve`, { reason: 'large plan checked with the employer' });
    assert.deepEqual(approved.json(), { applicationId: saved.applicationId, status: 'issued' });

    const issued = (await as('firm', { url: `/PlanApplication/${saved.applicationId}` })).json() as PlanStatus;
    const agreement = issued.agreementId!;
    assert.match(agreement, /^AGR-\d+$/);
    assert.deepEqual(issued.history.slice(3).map((h) => [h.status, h.by, h.reason]), [
      ['approved', 'staff:staff', 'large plan checked with the employer'], ['issued', 'gateway', `agreement ${agreement} with 3 insurances`],
    ]);
    assert.deepEqual(issued.insurances.map((i) => i.personalIdentityNumber).sort(), [HANNA, IVAR, JOHAN].sort());
    const insuranceOf = new Map(issued.insurances.map((i) => [i.personalIdentityNumber, i.insuranceId]));

    // The ledger: the agreement and its terms from the day of issue, each employment from its own start.
    assert.deepEqual(await query('SELECT name, employer_organisation_number AS employer FROM agreements WHERE agreement_number = $1', [agreement]), [{ name: 'Other Employer AB pension plan', employer: OTHER_EMPLOYER }]);
    assert.deepEqual(await query(
      `SELECT code, name, premium_percent::text AS percent, premium_percent_above_cap::text AS above, fixed_monthly_premium::text AS fixed, valid_from::text AS valid_from
         FROM agreement_categories WHERE agreement_number = $1 ORDER BY code`, [agreement]), [
      { code: 'FAST', name: 'Fast premie', percent: null, above: null, fixed: '1500.00', valid_from: '2026-11-25' },
      { code: 'TJM', name: 'Tjänstemän', percent: '4.5000', above: '30.0000', fixed: null, valid_from: '2026-11-25' },
    ]);
    assert.deepEqual(await query('SELECT code, name FROM agreement_cost_centers WHERE agreement_number = $1 ORDER BY code', [agreement]), [{ code: '100', name: 'Ekonomi' }, { code: '200', name: 'Produktion' }]);
    assert.deepEqual(await query(
      `SELECT e.personal_identity_number AS pin, e.start_date::text AS start, c.category_code AS category, k.cost_center, c.effective_date::text AS covered, s.annual_salary::text AS salary
         FROM employments e JOIN employment_categories c ON c.employment_id = e.id JOIN employment_cost_centers k ON k.employment_id = e.id JOIN salaries s ON s.employment_id = e.id
        WHERE e.agreement_number = $1 ORDER BY e.personal_identity_number`, [agreement]), [
      { pin: IVAR, start: '2019-08-15', category: 'FAST', cost_center: '200', covered: '2026-11-25', salary: '450000.00' },
      { pin: HANNA, start: '2024-03-01', category: 'TJM', cost_center: '100', covered: '2026-11-25', salary: '720000.00' },
      { pin: JOHAN, start: '2027-01-01', category: 'TJM', cost_center: '200', covered: '2027-01-01', salary: '480000.00' },
    ]);
    // Each insurance: the employer its policyholder, a custody account at the custodian, the category's premium, the product's charges, the plan's funds.
    const insurances = await query<{ insurance_number: string }>(
      `SELECT i.insurance_number, i.insured_pin AS pin, i.product_code AS product, i.start_date::text AS start, i.policyholder, i.custody_account AS account, a.custodian_id AS custodian,
              i.created_by_message AS created_by,
              (SELECT string_agg(p.monthly_amount::text, ',') FROM insurance_premiums p WHERE p.insurance_number = i.insurance_number) AS premium,
              (SELECT string_agg(f.fee_type || ' ' || f.value::float8, ',' ORDER BY f.fee_type) FROM insurance_fees f WHERE f.insurance_number = i.insurance_number) AS fees,
              (SELECT string_agg(l.isin || ' ' || l.percent::float8, ',' ORDER BY l.isin) FROM fund_allocations f JOIN fund_allocation_lines l ON l.allocation_id = f.id WHERE f.insurance_number = i.insurance_number) AS funds
         FROM insurances i JOIN custody_accounts a ON a.account_number = i.custody_account WHERE i.agreement_number = $1 ORDER BY i.insured_pin`, [agreement]);
    const common = { product: 'TJP-DEPA', policyholder: OTHER_EMPLOYER, custodian: 'demo-custodian', created_by: saved.applicationId, fees: 'CapitalCharge 0.35,FixedCharge 360', funds: 'SE000DEPA010 60,SE000DEPA044 40' };
    const account = (pin: string) => `DEPA-${insuranceOf.get(pin)!.slice('INS-'.length)}`;
    assert.deepEqual(insurances, [
      { insurance_number: insuranceOf.get(IVAR), pin: IVAR, start: '2026-11-25', account: account(IVAR), premium: '1500.00', ...common },
      { insurance_number: insuranceOf.get(HANNA), pin: HANNA, start: '2026-11-25', account: account(HANNA), premium: '4708.13', ...common },
      { insurance_number: insuranceOf.get(JOHAN), pin: JOHAN, start: '2027-01-01', account: account(JOHAN), premium: '1800.00', ...common },
    ]);

    // The employer's first SalaryAdjustment: Hanna's new salary is taken; Johan's before his employment begins is not.
    const response = await send('other-employer', 'salaries', salaryAdjustment({ messageId: 'OE-SAL-1', agreementNumber: agreement, employer: OTHER_EMPLOYER }, [
      { pin: HANNA, date: '2026-12-01', salary: '750000.00' }, { pin: JOHAN, date: '2026-12-01', salary: '500000.00' },
    ]));
    assert.match(response, /<Status>PartiallyAccepted<\/Status>/, response);
    assert.match(response, /<ItemId>1<\/ItemId>\s*<Status>Accepted<\/Status>/);
    assert.match(response, /<ItemId>2<\/ItemId>\s*<Status>Rejected<\/Status>\s*<Code>EFFECTIVE_DATE_BEFORE_START<\/Code>/);
    assert.deepEqual(await query(
      `SELECT s.effective_date::text AS date, s.annual_salary::text AS salary FROM salaries s JOIN employments e ON e.id = s.employment_id
        WHERE e.agreement_number = $1 AND e.personal_identity_number = $2 ORDER BY s.effective_date`, [agreement, HANNA]), [
      { date: '2026-11-25', salary: '720000.00' }, { date: '2026-12-01', salary: '750000.00' },
    ]);

    // The custodian reports the new accounts (100 000 each, 10 000 of it cash); Johan's opens in January.
    const holdings = await send('demo-custodian', 'holdings', holdingsReport('HOLD-PLAN-1', '2026-11-25', [HANNA, IVAR].map((pin) => ({
      accountNumber: account(pin), cash: '10000.00', positions: [{ isin: 'SE000DEPA010', quantity: '900', marketValue: '90000.00' }],
    }))));
    assert.match(holdings, /<Status>Accepted<\/Status>/, holdings);

    // The next debit run (Q4 2026, in February 2027) debits both accounts for the 37 days from 25 November:
    // fixed 360 × 37 / (4 × 92) = 36.195… → 36.20; capital 37 × 100 000 × 0.35 % / 365 = 35.479… → 35.48;
    // yield tax on the opening value 100 000 × 0.300 % = 300.00. Cash covers it: no sell order.
    const deps = runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log);
    await makeRun(gateway.deps.db, deps, (tx) => runDebitRun(tx, deps, { year: 2026, quarter: 4 }, new Date('2027-02-26T07:00:00Z')));
    const lines = await query(
      `SELECT account_number AS account, charge, coalesce(basis, '') AS basis, amount::text AS amount FROM debit_lines
        WHERE run_key = '2026-Q4' AND insurance_number = ANY($1::text[]) ORDER BY account_number, charge, basis`, [[...insuranceOf.values()]]);
    const expected = (pin: string) => [
      { account: account(pin), charge: 'CapitalCharge', basis: '', amount: '35.48' }, { account: account(pin), charge: 'FixedCharge', basis: '', amount: '36.20' },
      { account: account(pin), charge: 'YieldTax', basis: 'OpeningValue', amount: '300.00' },
    ];
    assert.deepEqual(lines, [...expected(HANNA), ...expected(IVAR)].sort((a, b) => a.account.localeCompare(b.account)));
    const file = await waitFor(async () => readFile(join(gateway.outbox('demo-custodian'), 'debit-run-2026-Q4.DebitAccounts.xml'), 'utf8').catch(() => undefined), 'the DebitAccounts file');
    for (const pin of [HANNA, IVAR]) assert.match(file, new RegExp(`<AccountNumber>${account(pin)}</AccountNumber>`));
    assert.doesNotMatch(file, new RegExp(account(JOHAN)), 'not insured in the quarter');
  });

  test('an employer that already has an agreement goes to review once signed, and a rejection issues nothing', async () => {
    const saved = await submitSignedByEmployer({ ...plan, employer: { organisationNumber: '5561234567', name: 'Demo Employer AB' }, employees: [plan.employees[0]] });
    assert.equal(saved.status, 'under-review');
    assert.deepEqual(saved.history.at(-1), { status: 'under-review', at: now.toISOString(), by: 'gateway', reason: 'the employer already has agreement AGR-1001 with the insurer' });
    const rejected = await staff('POST', `/api/applications/${saved.applicationId}/reject`, { reason: 'extend AGR-1001 instead' });
    assert.deepEqual(rejected.json(), { applicationId: saved.applicationId, status: 'rejected' });
    const after = (await as('firm', { url: `/PlanApplication/${saved.applicationId}` })).json() as PlanStatus;
    assert.deepEqual([after.status, after.agreementId, after.insurances], ['rejected', null, []]);
    assert.deepEqual(await query("SELECT agreement_number FROM agreements WHERE employer_organisation_number = '5561234567'"), [{ agreement_number: 'AGR-1001' }]);
  });

  test('a small plan for a new employer is issued once its signatory signs; its receipt holds the employer, the application id, the submission time and the signature', async () => {
    const saved = await submitSignedByEmployer({ ...plan, employer: { organisationNumber: '5569012346', name: 'Nya Verkstaden AB' }, employees: [plan.employees[1]] });
    assert.equal(saved.status, 'issued');
    assert.deepEqual(saved.history.map((h) => [h.status, h.by]), [['received', 'advisor:ADV-001'], ['awaiting-signature', 'gateway'], ['approved', 'gateway'], ['issued', 'gateway']]);
    assert.match(saved.agreementId!, /^AGR-\d+$/);
    assert.deepEqual(saved.insurances.map((i) => i.personalIdentityNumber), [IVAR]);

    const receipt = await as('firm', { url: `/PlanApplication/${saved.applicationId}/Receipt` });
    assert.equal(receipt.statusCode, 200);
    assert.equal(receipt.headers['content-type'], 'application/pdf');
    const text = pdfText(receipt.rawPayload);
    for (const expected of [
      saved.applicationId, now.toISOString(), 'Employer: Nya Verkstaden AB (5569012346)', 'Tjänstepension Depå (TJP-DEPA)', `Agreement: ${saved.agreementId}`,
      'TJM Tjänstemän: 4.5 % of the monthly salary up to 7.5 income base amounts a year, 30 % above', 'FAST Fast premie: 1500 SEK a month',
      `${IVAR}: category FAST, cost center 200`, 'premium 1500.00 SEK a month', `company-signatory ${SIGNATORY_OF['5569012346']}: signed ${now.toISOString()}`,
    ]) {
      assert.ok(text.includes(expected), `receipt holds "${expected}":\n${text}`);
    }
  });

  test("another firm's plan application is the same 404 as a missing one; custodians do not apply", async () => {
    const mine = (await submit({ ...plan, employer: { organisationNumber: '5590123450', name: 'Tredje AB' }, employees: [plan.employees[0]] })).json() as PlanStatus;
    assert.equal(mine.status, 'awaiting-signature');
    const missing = await as('firm', { url: '/PlanApplication/PA-01JZZZZZZZZZZZZZZZZZZZZZZZ' });
    assert.equal(missing.statusCode, 404);
    for (const client of ['other-firm', 'custodian']) {
      for (const url of [`/PlanApplication/${mine.applicationId}`, `/PlanApplication/${mine.applicationId}/Receipt`]) {
        const refused = await as(client, { url });
        assert.equal(refused.statusCode, 404, `${client} ${url}`);
        assert.deepEqual(withoutDetail(refused.json()), withoutDetail(missing.json()));
        assert.doesNotMatch(refused.body, /Tredje|5590123450/);
      }
    }
    // An insurance application's id is not a plan application's, nor the other way round.
    assert.equal((await as('firm', { url: `/InsuranceApplication/${mine.applicationId}` })).statusCode, 404);
    assert.equal((await submit(plan, 'custodian')).statusCode, 404, 'custodians do not apply');
  });

  test('the OpenAPI description lists the plan application paths', async () => {
    const description = (await gateway.http!.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    for (const path of ['/PlanApplication', '/PlanApplication/validation', '/PlanApplication/{id}', '/PlanApplication/{id}/Receipt']) {
      assert.ok(description.paths[path], `${path} in /openapi.json`);
    }
    assert.deepEqual(Object.keys(description.paths['/PlanApplication']!), ['post']);
  });
});

/** A problem without its detail (which names the id asked for). */
function withoutDetail(problem: Record<string, unknown>): Record<string, unknown> {
  const { detail: _detail, ...rest } = problem;
  void _detail;
  return rest;
}

function pdfText(pdf: Buffer): string {
  const folder = mkdtempSync(join(tmpdir(), 'dg-plan-receipt-'));
  try {
    writeFileSync(join(folder, 'receipt.pdf'), pdf);
    return execFileSync('pdftotext', ['-layout', join(folder, 'receipt.pdf'), '-'], { encoding: 'utf8' });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
