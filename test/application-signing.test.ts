/**
 * Applications take effect only once signed with BankID, on the embedded database and on
 * PostgreSQL, with the BankID adapter speaking mutual TLS to the local BankID server:
 *
 * - an insurance application of Tove's on Ebbe's life is `awaiting-signature` with its
 *   sign case (the firm reaches it without a power of attorney; another firm does not),
 *   the text both read names the product, the people, the premiums and the coverages; a
 *   stranger's signature does not count, Tove's alone issues nothing, and Ebbe's issues
 *   it; the receipt shows who signed and when;
 * - an organisation policyholder with no signatories is refused
 *   APPLICATION_SIGNATORIES_MISSING; with three registered of whom two must sign, two and
 *   the insured sign and the application goes to manual review (its notices recorded);
 * - a pension plan is signed by the employer's signatory and issued; the employer's next
 *   plan goes to review once signed (the employer has an agreement by then);
 * - the last two signatures collected sixteen times at once issue one insurance;
 * - not signed by its last day, an application expires at the nightly run and its case
 *   is closed; one signed too late expires instead of being issued.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import type { LocalPerson } from '../src/bankid/local-bankid-orders.ts';
import { hashSecret } from '../src/config/secret-hash.ts';
import { applicationExpiryJob } from '../src/calendar/application-expiry.job.ts';
import { runDuePeriods } from '../src/calendar/calendar.scheduler.ts';
import { registerCompanySignatories, signAs, signCase, type RestCall } from './support/application-signing.ts';
import { startTestBankId, type TestBankId } from './support/bankid.ts';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './support/harness.ts';

const TOVE: LocalPerson = { personalNumber: '198506152381', givenName: 'Tove', surname: 'Lind' };
const EBBE: LocalPerson = { personalNumber: '199203033452', givenName: 'Ebbe', surname: 'Lind' };
const STRANGER: LocalPerson = { personalNumber: '197905202388', givenName: 'Nils', surname: 'Holm' };
/** An organisation policyholder, and its three company signatories. */
const COMPANY = '5566778899';
const SIGNATORIES = ['197003151235', '198107074562', '196602207893'] as const;
/** An employer new to the insurer, its signatory and its employee. */
const EMPLOYER = '5569000127';
const EMPLOYER_SIGNATORY = '199011112340';
const EMPLOYEE = '197505053210';
/** Collects at once. */
const AT_ONCE = 16;
const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };

const insurance = (policyholder: string, insured: string) => ({
  productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: policyholder }, insured: { id: insured },
  premium: { single: '50000.00', monthly: '1000' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
  custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
});
const plan = {
  productId: 'TJP-DEPA', advisorCode: 'ADV-001', employer: { organisationNumber: EMPLOYER, name: 'Nya *Bolaget* AB' },
  agreement: {
    categories: [{ code: 'TJM', name: 'Tjänstemän', premium: { percentOfSalary: '4.5', percentAboveCap: '30' } }, { code: 'FAST', name: 'Fast premie', premium: { fixedMonthly: '1500' } }],
    costCenters: [{ code: '100', name: 'Ekonomi' }],
  },
  funds: [{ isin: 'SE000DEPA010', percent: 100 }], custodianId: 'demo-custodian',
  employees: [{ personalIdentityNumber: EMPLOYEE, category: 'FAST', costCenter: '100', annualSalary: '480000', employmentStart: '2024-03-01' }],
};

interface Status { applicationId: string; status: string; signCaseId: string; signBy: string; insuranceId: string | null; agreementId?: string | null; history: { status: string; by: string; reason: string | null }[] }
interface SignCaseView { subjectKind: string; requestId: string; closed: string | null; complete: boolean; companySignaturesRequired: number | null; signatories: { role: string; personalNumber: string; signed: boolean; signedAt: string | null }[] }

let testBankId: TestBankId;
beforeAll(async () => {
  testBankId = await startTestBankId();
});
afterAll(async () => {
  await testBankId?.close();
});

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];

describe.each(ENGINES)('applications signed with BankID on %s', (_engine, engine) => {
  let gateway: TestGateway;
  // Sunday 22 November 2026, 11:00 in Stockholm.
  let now = new Date('2026-11-22T10:00:00Z');
  /** Each client's token, got again when the clock has moved (tokens last minutes). */
  const tokens = new Map<string, { token: string; at: number }>();

  beforeAll(async () => {
    const clients = [
      { id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: await hashSecret('firm-secret') },
      { id: 'other-firm', kind: 'advisor-firm', organisationNumber: '5567777775', secretHash: await hashSecret('other-firm-secret') },
    ];
    gateway = await startTestGateway({ ...engine, roles: ['api'], inline: true, clock: () => now, settings: {
      // Limits no burst of Collects reaches (below the database pool of 20).
      api: { tokenRequestsPerMinute: 1000, clients, limits: { requestsPerSecond: 10_000, burst: 10_000, concurrentRequests: AT_ONCE } }, bankid: await testBankId.settings(),
    } });
  }, 120_000);
  afterAll(() => gateway?.destroy());

  const tokenOf = async (client: string) => {
    const held = tokens.get(client);
    if (held?.at === now.getTime()) return held.token;
    const answer = await gateway.http!.inject({
      method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=client_credentials&client_id=${client}&client_secret=${client}-secret`,
    });
    const token = (answer.json() as { access_token: string }).access_token;
    tokens.set(client, { token, at: now.getTime() });
    return token;
  };
  const as = (client: string): RestCall => async (options: InjectOptions) => gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${await tokenOf(client)}` } });
  const firm = as('firm');
  const staff: RestCall = (options) => gateway.http!.inject({ ...options, headers: { ...options.headers, ...STAFF } });
  const submit = async (url: '/InsuranceApplication' | '/PlanApplication', body: object) => {
    const answer = await firm({ method: 'POST', url, payload: body });
    assert.equal(answer.statusCode, 201, answer.body);
    return answer.json() as Status;
  };
  const statusOf = async (url: string) => (await firm({ method: 'GET', url })).json() as Status;
  const caseOf = async (signCaseId: string) => (await firm({ method: 'GET', url: `/SignCase/${signCaseId}` })).json() as SignCaseView;
  const issuedRows = async (applicationId: string) => (await gateway.deps.db.query<{ insurance_number: string; policyholder: string; insured_pin: string }>(
    'SELECT insurance_number, policyholder, insured_pin FROM insurances WHERE created_by_message = $1', [applicationId])).rows;
  const bankid = () => testBankId.server;

  test('never issued without every signature; issued by the last one, with the receipt naming who signed and when', async () => {
    const submitted = await submit('/InsuranceApplication', insurance(TOVE.personalNumber, EBBE.personalNumber));
    assert.equal(submitted.status, 'awaiting-signature');
    assert.match(submitted.signCaseId, /^SC-[0-9A-Z]{26}$/);
    assert.equal(submitted.signBy, '2026-12-22', '30 days after the day of submission');
    assert.equal(submitted.insuranceId, null);
    assert.deepEqual(submitted.history.map((h) => [h.status, h.by, h.reason]), [
      ['received', 'advisor:ADV-001', null], ['awaiting-signature', 'gateway', `sign case ${submitted.signCaseId}, to be signed by 2026-12-22`],
    ]);
    const url = `/InsuranceApplication/${submitted.applicationId}`;
    assert.deepEqual(await statusOf(url), submitted, 'the status answer carries the sign case');

    // The firm that made it reaches its case without a power of attorney on Tove; another firm gets the 404 of no case.
    const signCaseView = await caseOf(submitted.signCaseId);
    assert.deepEqual([signCaseView.subjectKind, signCaseView.requestId, signCaseView.complete, signCaseView.companySignaturesRequired], ['application', submitted.applicationId, false, null]);
    assert.deepEqual(signCaseView.signatories.map((s) => [s.role, s.personalNumber, s.signed]), [['policyholder', TOVE.personalNumber, false], ['insured', EBBE.personalNumber, false]]);
    const refused = await as('other-firm')({ method: 'GET', url: `/SignCase/${submitted.signCaseId}` });
    const unknown = await as('other-firm')({ method: 'GET', url: '/SignCase/SC-01JD8Z3Q4X5Y6Z7A8B9C0D1E2F' });
    assert.deepEqual([refused.statusCode, refused.body], [unknown.statusCode, unknown.body]);
    assert.equal((await as('other-firm')({ method: 'POST', url: `/SignCase/${submitted.signCaseId}/Sign`, payload: { role: 'policyholder' } })).statusCode, 404);

    // A stranger signs Tove's order: it does not count. The text at BankID is the application's.
    const stranger = await signAs(firm, bankid(), submitted.signCaseId, { role: 'policyholder', personalNumber: TOVE.personalNumber }, STRANGER);
    assert.deepEqual([stranger.status, stranger.reason], ['failed', 'signedByAnotherPerson']);
    const order = bankid().control.orders().find((o) => Buffer.from(o.request.userVisibleData, 'base64').toString('utf8').includes(submitted.applicationId))!;
    assert.equal(Buffer.from(order.request.userVisibleData, 'base64').toString('utf8'), [
      '# Ansökan om depåförsäkring', '', `Ansökan ${submitted.applicationId} om **Kapitalförsäkring Depå** (KF-DEPA).`, '',
      '- Försäkringstagare: 19850615-2381', '- Försäkrad: 19920303-3452', '- Engångspremie: **50 000,00 kr**', '- Månadspremie: **1 000,00 kr**',
      '- Återbetalningsskydd: ja', '- Premiebefrielse: nej',
    ].join('\n'));
    assert.equal(order.request.userVisibleDataFormat, 'simpleMarkdownV1');

    now = new Date('2026-11-22T10:05:00Z');
    assert.equal((await signAs(firm, bankid(), submitted.signCaseId, { role: 'policyholder', personalNumber: TOVE.personalNumber }, TOVE)).status, 'complete');
    assert.equal((await statusOf(url)).status, 'awaiting-signature', 'the insured has not signed');
    assert.deepEqual(await issuedRows(submitted.applicationId), [], 'nothing issued');
    const halfway = pdfText((await firm({ method: 'GET', url: `${url}/Receipt` })).rawPayload);
    assert.match(halfway, /Status: awaiting-signature/);
    assert.match(halfway, new RegExp(`policyholder ${TOVE.personalNumber}: signed 2026-11-22T10:05:00.000Z`));
    assert.match(halfway, new RegExp(`insured ${EBBE.personalNumber}: not yet signed`));

    now = new Date('2026-11-23T08:00:00Z');
    assert.equal((await signAs(firm, bankid(), submitted.signCaseId, { role: 'insured', personalNumber: EBBE.personalNumber }, EBBE)).status, 'complete');
    const issued = await statusOf(url);
    assert.equal(issued.status, 'issued');
    assert.deepEqual(issued.history.slice(2).map((h) => [h.status, h.by]), [['approved', 'gateway'], ['issued', 'gateway']]);
    assert.deepEqual(await issuedRows(submitted.applicationId), [{ insurance_number: issued.insuranceId, policyholder: TOVE.personalNumber, insured_pin: EBBE.personalNumber }]);
    const receipt = pdfText((await firm({ method: 'GET', url: `${url}/Receipt` })).rawPayload);
    for (const line of [`Signatories (sign case ${submitted.signCaseId})`, 'To be signed by 2026-12-22.', `policyholder ${TOVE.personalNumber}: signed 2026-11-22T10:05:00.000Z`, `insured ${EBBE.personalNumber}: signed 2026-11-23T08:00:00.000Z`]) {
      assert.ok(receipt.includes(line), `the receipt holds "${line}":\n${receipt}`);
    }
    const again = await firm({ method: 'POST', url: `/SignCase/${submitted.signCaseId}/Sign`, payload: { role: 'insured' } });
    assert.equal(again.statusCode, 409);
  });

  test('an organisation signs through its company signatories: refused until registered; two of three and the insured sign, then manual review', async () => {
    const body = insurance(COMPANY, EBBE.personalNumber);
    const checked = await firm({ method: 'POST', url: '/InsuranceApplication/validation', payload: body });
    const refused = await firm({ method: 'POST', url: '/InsuranceApplication', payload: body });
    for (const answer of [checked, refused]) {
      assert.equal(answer.statusCode, 422);
      const problem = answer.json() as { code: string; errors: { path: string; code: string; message: string }[] };
      assert.equal(problem.code, 'APPLICATION_INVALID');
      assert.deepEqual(problem.errors.map((e) => [e.path, e.code]), [['$.policyholder.id', 'APPLICATION_SIGNATORIES_MISSING']]);
      assert.match(problem.errors[0]!.message, new RegExp(`The policyholder ${COMPANY} is an organisation with no company signatories in force: register them with POST /api/organisations/${COMPANY}/signatories`));
    }
    assert.equal(Number((await gateway.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM applications WHERE customer_id = $1', [COMPANY])).rows[0]!.n), 0, 'nothing saved');

    await registerCompanySignatories(staff, COMPANY, SIGNATORIES, 2);
    const submitted = await submit('/InsuranceApplication', body);
    const view = await caseOf(submitted.signCaseId);
    assert.equal(view.companySignaturesRequired, 2);
    assert.deepEqual(view.signatories.map((s) => [s.role, s.personalNumber]), [
      ['company-signatory', SIGNATORIES[2]], ['company-signatory', SIGNATORIES[0]], ['company-signatory', SIGNATORIES[1]], ['insured', EBBE.personalNumber],
    ]);
    await signCase(firm, bankid(), submitted.signCaseId, [SIGNATORIES[0], EBBE.personalNumber]);
    const url = `/InsuranceApplication/${submitted.applicationId}`;
    assert.equal((await statusOf(url)).status, 'awaiting-signature', 'one of two company signatories');
    assert.equal((await signCase(firm, bankid(), submitted.signCaseId, [SIGNATORIES[1]])).complete, true);
    const reviewed = await statusOf(url);
    assert.equal(reviewed.status, 'under-review');
    assert.deepEqual(reviewed.history.at(-1), { status: 'under-review', at: now.toISOString(), by: 'gateway', reason: 'the policyholder is an organisation' });
    const notices = await gateway.deps.db.query<{ recipient: string }>('SELECT recipient FROM application_notices WHERE application_id = $1 ORDER BY recipient', [submitted.applicationId]);
    assert.deepEqual(notices.rows.map((n) => n.recipient), ['advisor', 'policyholder'], 'the notices of the review, as before signing');
    const third = await firm({ method: 'POST', url: `/SignCase/${submitted.signCaseId}/Sign`, payload: { role: 'company-signatory', personalNumber: SIGNATORIES[2] } });
    assert.equal(third.statusCode, 409);

    const approved = await staff({ method: 'POST', url: `/api/applications/${submitted.applicationId}/approve`, payload: { reason: 'company documents checked' } });
    assert.deepEqual(approved.json(), { applicationId: submitted.applicationId, status: 'issued' });
    assert.equal((await issuedRows(submitted.applicationId))[0]?.policyholder, COMPANY);
  });

  test("a pension plan is signed by the employer's signatory and issued; the employer's next plan goes to review once signed", async () => {
    const refused = await firm({ method: 'POST', url: '/PlanApplication', payload: plan });
    assert.equal(refused.statusCode, 422);
    const problem = refused.json() as { errors: { path: string; code: string; message: string }[] };
    assert.deepEqual(problem.errors.map((e) => [e.path, e.code]), [['$.employer.organisationNumber', 'APPLICATION_SIGNATORIES_MISSING']]);
    assert.match(problem.errors[0]!.message, new RegExp(`The employer ${EMPLOYER} is an organisation with no company signatories in force`));

    await registerCompanySignatories(staff, EMPLOYER, [EMPLOYER_SIGNATORY], 1);
    const submitted = await submit('/PlanApplication', plan);
    assert.equal(submitted.status, 'awaiting-signature');
    const view = await caseOf(submitted.signCaseId);
    assert.deepEqual(view.signatories.map((s) => [s.role, s.personalNumber]), [['company-signatory', EMPLOYER_SIGNATORY]], 'the employer alone: its employees do not sign');
    const signed = await signAs(firm, bankid(), submitted.signCaseId, { role: 'company-signatory', personalNumber: EMPLOYER_SIGNATORY }, { personalNumber: EMPLOYER_SIGNATORY, givenName: 'Vera', surname: 'Ström' });
    assert.equal(signed.status, 'complete');
    const text = bankid().control.orders().map((o) => Buffer.from(o.request.userVisibleData, 'base64').toString('utf8')).find((t) => t.includes(submitted.applicationId))!;
    assert.equal(text, [
      '# Ansökan om tjänstepension', '', `Ansökan ${submitted.applicationId}: **Nya Bolaget AB** (556900-0127)`, 'tecknar **Tjänstepension Depå** (TJP-DEPA) för **1 anställd**.', '',
      '## Kategorier', '- TJM Tjänstemän: 4,5 % av månadslönen upp till 7,5 inkomstbasbelopp om året, 30 % över', '- FAST Fast premie: 1 500,00 kr i månaden',
    ].join('\n'), "the employer's name without the marks it carried");
    const issued = await statusOf(`/PlanApplication/${submitted.applicationId}`) as Status & { insurances: { personalIdentityNumber: string }[] };
    assert.equal(issued.status, 'issued');
    assert.match(issued.agreementId ?? '', /^AGR-\d+$/);
    assert.deepEqual(issued.insurances.map((i) => i.personalIdentityNumber), [EMPLOYEE]);

    const next = await submit('/PlanApplication', plan);
    assert.equal((await statusOf(`/PlanApplication/${next.applicationId}`)).status, 'awaiting-signature', 'nothing decided before the signature');
    await signCase(firm, bankid(), next.signCaseId);
    const reviewed = await statusOf(`/PlanApplication/${next.applicationId}`);
    assert.deepEqual(reviewed.history.at(-1), { status: 'under-review', at: now.toISOString(), by: 'gateway', reason: "the insurer's staff review the application" }, 'the reason about the employer withheld from a firm without its power');
    const staffView = (await staff({ method: 'GET', url: `/api/applications/${next.applicationId}` })).json() as Status & { signing: { signatories: { signedAt: string | null }[] } };
    assert.equal(staffView.history.at(-1)!.reason, `the employer already has agreement ${issued.agreementId} with the insurer`);
    assert.equal(staffView.signing.signatories[0]!.signedAt, now.toISOString());
  });

  test('the last two signatures collected sixteen times at once issue one insurance', async () => {
    const submitted = await submit('/InsuranceApplication', insurance(TOVE.personalNumber, EBBE.personalNumber));
    const orderRefs: string[] = [];
    for (const [role, person] of [['policyholder', TOVE], ['insured', EBBE]] as const) {
      const started = await firm({ method: 'POST', url: `/SignCase/${submitted.signCaseId}/Sign`, payload: { role, endUserIp: '192.0.2.10' } });
      assert.equal(started.statusCode, 201, started.body);
      const { orderRef } = started.json() as { orderRef: string };
      bankid().control.signThrough(orderRef, person);
      orderRefs.push(orderRef);
    }
    const answers = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => firm({ method: 'POST', url: `/SignCase/${submitted.signCaseId}/Collect`, payload: { orderRef: orderRefs[i % 2] } })));
    assert.deepEqual([...new Set(answers.map((a) => `${a.statusCode} ${(a.json() as { status: string }).status}`))], ['200 complete']);
    const issued = await statusOf(`/InsuranceApplication/${submitted.applicationId}`);
    assert.deepEqual(issued.history.map((h) => h.status), ['received', 'awaiting-signature', 'approved', 'issued'], 'decided once');
    assert.equal((await issuedRows(submitted.applicationId)).length, 1, 'one insurance');
  });

  test('not signed by its last day, an application expires at the nightly run and its case is closed; one signed too late expires too', async () => {
    now = new Date('2026-11-24T09:00:00Z');
    const unsigned = await submit('/InsuranceApplication', insurance(TOVE.personalNumber, EBBE.personalNumber));
    const late = await submit('/InsuranceApplication', insurance(TOVE.personalNumber, EBBE.personalNumber));
    assert.equal(unsigned.signBy, '2026-12-24');
    await signCase(firm, bankid(), late.signCaseId, [TOVE.personalNumber]);

    const job = applicationExpiryJob({ log: gateway.log });
    now = new Date('2026-12-24T22:30:00Z'); // 23:30 on its last day: not yet
    assert.deepEqual(await runDuePeriods(gateway.deps.db, job, now, gateway.log), ['2026-12-24']);
    assert.equal((await statusOf(`/InsuranceApplication/${unsigned.applicationId}`)).status, 'awaiting-signature');

    // 00:02 the day after, before the run: Ebbe's signature comes too late and expires the application instead.
    now = new Date('2026-12-24T23:02:00Z');
    assert.equal((await signAs(firm, bankid(), late.signCaseId, { role: 'insured', personalNumber: EBBE.personalNumber }, EBBE)).status, 'complete');
    const lateStatus = await statusOf(`/InsuranceApplication/${late.applicationId}`);
    assert.deepEqual([lateStatus.status, lateStatus.history.at(-1)?.reason], ['expired', 'not signed by 2026-12-24']);
    assert.deepEqual(await issuedRows(late.applicationId), []);

    // The run of the 25th (caught up on the 27th, after downtime) expires the other.
    now = new Date('2026-12-27T07:00:00Z');
    assert.deepEqual(await runDuePeriods(gateway.deps.db, job, now, gateway.log), ['2026-12-27']);
    const expired = await statusOf(`/InsuranceApplication/${unsigned.applicationId}`);
    assert.deepEqual(expired.history.at(-1), { status: 'expired', at: now.toISOString(), by: 'gateway', reason: 'not signed by 2026-12-24' });
    const closed = await caseOf(unsigned.signCaseId);
    assert.equal(closed.closed, 'The application was not signed by 2026-12-24 and has expired.');
    const sign = await firm({ method: 'POST', url: `/SignCase/${unsigned.signCaseId}/Sign`, payload: { role: 'policyholder' } });
    assert.equal(sign.statusCode, 409);
    assert.match((sign.json() as { detail: string }).detail, /not signed by 2026-12-24 and has expired/);
    const listed = (await staff({ method: 'GET', url: '/api/applications?status=expired' })).json() as { applicationId: string }[];
    assert.deepEqual(listed.map((a) => a.applicationId).sort(), [unsigned.applicationId, late.applicationId].sort());
    assert.equal((await staff({ method: 'POST', url: `/api/applications/${unsigned.applicationId}/approve`, payload: { reason: 'no' } })).statusCode, 404, 'staff approve only what is under review');
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
