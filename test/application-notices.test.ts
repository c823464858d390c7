/**
 * Notices that an application went to manual review, on a real gateway (PostgreSQL,
 * the demo ledger, BankID on the local BankID server) and a real SMTP server: an
 * application awaiting signature has none; the last signature that sends it to review
 * records one notice for the advisor and one for the policyholder (or the employer's
 * contact) in the same transaction, none when it is approved once signed; the
 * calendar job mails each notice with an address once — a second run mails nothing, a
 * repeat after a crash before commit is the same mail (Message-ID), a refused mail is
 * tried again in the next run — and none without an address, without mail settings, or
 * of an application decided first. Staff list them through the API and the CLI.
 */
import { describe, test, beforeAll, afterAll, beforeEach, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSmtpSender } from '../src/channels/mail/smtp.sender.ts';
import type { MailSender } from '../src/channels/mail/mail-sender.ts';
import { hashSecret } from '../src/config/secret-hash.ts';
import { listApplicationNotices } from '../src/ledger/advice/application-notices.repository.ts';
import { applicationNoticeJob, mailApplicationNotices, type ApplicationNoticeDeps } from '../src/calendar/application-notices.job.ts';
import { runDuePeriods } from '../src/calendar/calendar.scheduler.ts';
import { registerCompanySignatories, signCase, submitSigned, type RestCall } from './support/application-signing.ts';
import { startTestBankId, type TestBankId } from './support/bankid.ts';
import { createDemoLedgerTemplate, createTestDatabase, startTestGateway, testSettings, type TestDatabase, type TestGateway } from './support/harness.ts';
import { freePort, runCliToEnd, writeConfigFile } from './support/processes.ts';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink.ts';

const ANNA = '197001011233';
const ANNA_MAIL = 'anna.andersson@mail.example';
const KARIN_MAIL = 'karin.lind@demo-radgivning.example';
const application = {
  productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: ANNA, email: ANNA_MAIL }, insured: { id: ANNA },
  premium: { single: '2500000.00' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
  custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
};
/** Wednesday 25 November 2026, 10:30 in Stockholm. */
const SUBMITTED = new Date('2026-11-25T09:30:00Z');
const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };

interface NoticeGateway {
  readonly gateway: TestGateway;
  readonly port: number;
  readonly mailSender: MailSender;
  readonly deps: ApplicationNoticeDeps;
  /** A request as the demo firm, answered as it came. */
  readonly firm: RestCall;
  /** A request as staff (the staff API). */
  readonly staff: RestCall;
  /** POSTs as the demo firm and gives the answer as it came. */
  post(path: '/InsuranceApplication' | '/PlanApplication', body: object): Promise<{ statusCode: number; body: string; json(): unknown }>;
  /** POSTs as the demo firm (the application must be saved awaiting signature) and has every signatory sign: its status then. */
  submit(path: '/InsuranceApplication' | '/PlanApplication', body: object): Promise<{ applicationId: string; status: string }>;
  notices(applicationId: string): Promise<{ recipient: string; address: string | null; sent_to: string | null; failed_attempts: number }[]>;
  close(): Promise<void>;
}

describe('notices of manual review', () => {
  let template: TestDatabase;
  let sink: SmtpSink;
  let testBankId: TestBankId;

  beforeAll(async () => {
    [template, sink, testBankId] = await Promise.all([createDemoLedgerTemplate(), startSmtpSink(), startTestBankId()]);
  });
  afterAll(async () => {
    await sink?.close();
    await template?.drop();
    await testBankId?.close();
  });
  beforeEach(() => {
    sink.mails.splice(0);
    sink.refusing = false;
    sink.refused = 0;
  });

  /** A gateway (api role) on a copy of the demo ledger, mailing through the sink, with the demo firm as an API client. */
  async function openGateway(): Promise<NoticeGateway> {
    const database = await createTestDatabase(template.name);
    const clients = [{ id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: await hashSecret('firm-secret') }];
    const gateway = await startTestGateway({
      roles: ['api'], inline: true, database, clock: () => SUBMITTED,
      settings: { api: { clients }, mail: { smtp: { host: sink.host, port: sink.port, from: 'gateway@insurer.example', timeoutMs: 5000 } }, bankid: await testBankId.settings() },
    });
    const address = gateway.http!.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const token = await gateway.http!.inject({
      method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&client_id=firm&client_secret=firm-secret',
    });
    const authorization = `Bearer ${(token.json() as { access_token: string }).access_token}`;
    const mailSender = createSmtpSender(gateway.config.mail.smtp!);
    const firm: RestCall = (options) => gateway.http!.inject({ ...options, headers: { ...options.headers, authorization } });
    const staff: RestCall = (options) => gateway.http!.inject({ ...options, headers: { ...options.headers, ...STAFF } });
    const post: NoticeGateway['post'] = (path, body) => firm({ method: 'POST', url: path, payload: body });
    return {
      gateway, port, mailSender, deps: { mailSender, log: gateway.log }, firm, staff, post,
      submit: (path, body) => submitSigned<{ applicationId: string; status: string; signCaseId: string }>(firm, testBankId.server, path, body),
      async notices(applicationId) {
        const { rows } = await gateway.deps.db.query<{ recipient: string; address: string | null; sent_to: string | null; failed_attempts: number }>(
          'SELECT recipient, address, sent_to, failed_attempts FROM application_notices WHERE application_id = $1 ORDER BY recipient', [applicationId]);
        return rows;
      },
      async close() {
        await mailSender.close();
        await gateway.destroy();
        await database.drop();
      },
    };
  }

  const at = (minutes: number) => new Date(SUBMITTED.getTime() + minutes * 60_000);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

  test('an insurance application under review: the advisor and the policyholder are each mailed once, however often the job runs', async () => {
    const notices = await openGateway();
    try {
      const badAddress = await notices.post('/InsuranceApplication', { ...application, policyholder: { id: ANNA, email: 'anna at mail' } });
      assert.equal(badAddress.statusCode, 400, 'an e-mail that is not an address is refused');
      assert.deepEqual((badAddress.json() as { errors: { path: string }[] }).errors.map((e) => e.path), ['$.policyholder.email']);

      const submitted = await notices.post('/InsuranceApplication', application);
      assert.equal(submitted.statusCode, 201, submitted.body);
      const awaiting = submitted.json() as { applicationId: string; status: string; signCaseId: string };
      assert.equal(awaiting.status, 'awaiting-signature');
      assert.deepEqual(await notices.notices(awaiting.applicationId), [], 'no notice before the policyholder signs');
      assert.equal((await signCase(notices.firm, testBankId.server, awaiting.signCaseId)).complete, true);
      const saved = (await notices.firm({ url: `/InsuranceApplication/${awaiting.applicationId}` })).json() as { applicationId: string; status: string };
      assert.equal(saved.status, 'under-review');
      assert.deepEqual(await notices.notices(saved.applicationId), [
        { recipient: 'advisor', address: KARIN_MAIL, sent_to: null, failed_attempts: 0 },
        { recipient: 'policyholder', address: ANNA_MAIL, sent_to: null, failed_attempts: 0 },
      ]);

      const job = applicationNoticeJob(notices.deps);
      const { db } = notices.gateway.deps;
      assert.deepEqual(await runDuePeriods(db, job, at(2), notices.gateway.log), ['2026-11-25T09:30Z']);
      assert.equal(sink.mails.length, 2);
      // The same slot again, and the next one: nothing more.
      assert.deepEqual(await runDuePeriods(db, job, at(4), notices.gateway.log), []);
      assert.deepEqual(await runDuePeriods(db, job, at(5), notices.gateway.log), ['2026-11-25T09:35Z']);
      await settle();
      assert.equal(sink.mails.length, 2);

      const to = (address: string) => sink.mails.find((mail) => mail.envelopeTo.includes(address))!;
      const advisor = to(KARIN_MAIL).parsed;
      assert.equal(advisor.subject, `Application ${saved.applicationId} is under manual review`);
      assert.equal(advisor.messageId, `<application-notice.${saved.applicationId}.advisor@depot-gateway>`);
      assert.match(advisor.text ?? '', /^Hello Karin Lind,\n/);
      assert.match(advisor.text ?? '', new RegExp(`  Application:  ${saved.applicationId}\n  Product:      Kapitalförsäkring Depå \\(KF-DEPA\\)\n  Policyholder: 19700101-\\*\\*\\*\\*\n  Submitted:    2026-11-25 at 10:30 \\(Swedish time\\)\n`));
      assert.match(advisor.text ?? '', new RegExp(`GET /InsuranceApplication/${saved.applicationId} in the advisor API`));
      const policyholder = to(ANNA_MAIL).parsed;
      assert.equal(policyholder.subject, `Your insurance application ${saved.applicationId} is being reviewed`);
      assert.equal(policyholder.messageId, `<application-notice.${saved.applicationId}.policyholder@depot-gateway>`);
      assert.match(policyholder.text ?? '', /We have received the insurance application made for you through Demo Rådgivning AB:/);
      assert.match(policyholder.text ?? '', /Before we issue the insurance, our staff review the application by hand\./);
      assert.match(policyholder.text ?? '', /please contact your advisor at Demo Rådgivning AB\./);
      for (const mail of sink.mails) {
        assert.doesNotMatch(mail.parsed.text ?? '', /1233|2500000/, 'no personal identity number and no premium in a notice');
      }
      assert.doesNotMatch(policyholder.text ?? '', /19700101/, "the policyholder's mail names no number at all");

      assert.deepEqual((await notices.notices(saved.applicationId)).map((n) => n.sent_to), [KARIN_MAIL, ANNA_MAIL]);
      assert.deepEqual(await listApplicationNotices(db, { unsent: true }), []);
    } finally {
      await notices.close();
    }
  });

  test('a repeat after a crash before commit sends the same mails, with the same Message-IDs; without mail settings the notices wait', async () => {
    const notices = await openGateway();
    try {
      const saved = await notices.submit('/InsuranceApplication', application);
      const { db } = notices.gateway.deps;

      assert.equal(await db.transaction((tx) => mailApplicationNotices(tx, { mailSender: undefined, log: notices.gateway.log }, at(1))), 0);
      assert.equal(sink.mails.length, 0);

      await assert.rejects(db.transaction(async (tx) => {
        assert.equal(await mailApplicationNotices(tx, notices.deps, at(2)), 2);
        throw new Error('the gateway stops before the commit');
      }), /stops before the commit/);
      assert.equal(sink.mails.length, 2);
      assert.equal((await listApplicationNotices(db, { unsent: true })).length, 2, 'not marked sent: the transaction rolled back');

      assert.deepEqual(await runDuePeriods(db, applicationNoticeJob(notices.deps), at(7), notices.gateway.log), ['2026-11-25T09:35Z']);
      assert.equal(sink.mails.length, 4);
      const ids = sink.mails.map((mail) => mail.parsed.messageId);
      assert.deepEqual(ids.slice(2).sort(), ids.slice(0, 2).sort());
      assert.deepEqual(ids.slice(0, 2).sort(), [`<application-notice.${saved.applicationId}.advisor@depot-gateway>`, `<application-notice.${saved.applicationId}.policyholder@depot-gateway>`]);
      assert.deepEqual(await listApplicationNotices(db, { unsent: true }), []);
    } finally {
      await notices.close();
    }
  });

  test('an application approved once signed records no notice', async () => {
    const notices = await openGateway();
    try {
      const saved = await notices.submit('/InsuranceApplication', { ...application, premium: { single: '50000.00' } });
      assert.equal(saved.status, 'issued');
      assert.deepEqual(await notices.notices(saved.applicationId), []);
      assert.equal(await notices.gateway.deps.db.transaction((tx) => mailApplicationNotices(tx, notices.deps, at(1))), 0);
      assert.equal(sink.mails.length, 0);
    } finally {
      await notices.close();
    }
  });

  test('a policyholder without an e-mail is listed with no address and not mailed; the staff API and the CLI list the notices', async () => {
    const notices = await openGateway();
    const folder = await mkdtemp(join(tmpdir(), 'dg-application-notices-'));
    try {
      const saved = await notices.submit('/InsuranceApplication', { ...application, policyholder: { id: ANNA } });
      assert.equal(saved.status, 'under-review');
      assert.deepEqual(await notices.notices(saved.applicationId), [
        { recipient: 'advisor', address: KARIN_MAIL, sent_to: null, failed_attempts: 0 },
        { recipient: 'policyholder', address: null, sent_to: null, failed_attempts: 0 },
      ]);
      assert.equal(await notices.gateway.deps.db.transaction((tx) => mailApplicationNotices(tx, notices.deps, at(1))), 1);
      assert.deepEqual(sink.mails.map((mail) => mail.envelopeTo), [[KARIN_MAIL]]);

      const base = `http://127.0.0.1:${notices.port}/api/application-notices`;
      const listed = await fetch(base, { headers: STAFF });
      assert.equal(listed.status, 200);
      const common = { applicationId: saved.applicationId, applicationStatus: 'under-review', recordedAt: SUBMITTED.toISOString(), failedAttempts: 0, lastError: null };
      const advisorNotice = { ...common, recipient: 'advisor', address: KARIN_MAIL, sentTo: KARIN_MAIL, sentAt: at(1).toISOString() };
      const policyholderNotice = { ...common, recipient: 'policyholder', address: null, sentTo: null, sentAt: null };
      expect(await listed.json()).toStrictEqual({ notices: [advisorNotice, policyholderNotice] });
      for (const query of ['?unsent=true', '?unsent']) {
        expect(await (await fetch(`${base}${query}`, { headers: STAFF })).json()).toStrictEqual({ notices: [policyholderNotice] });
      }
      assert.equal((await fetch(`${base}?limit=0`, { headers: STAFF })).status, 400);
      assert.equal((await fetch(base)).status, 401);

      const config = await writeConfigFile(folder, testSettings(join(folder, 'data'), { databaseUrl: notices.gateway.database!.url, port: notices.port, logLevel: 'warn' }));
      const json = await runCliToEnd(['application-notices', '--unsent', '--json', '--config', config]);
      assert.equal(json.code, 0, json.stderr);
      assert.deepEqual(json.stdout.trim().split('\n').map((line) => JSON.parse(line) as unknown), [policyholderNotice]);
      const human = await runCliToEnd(['application-notices', '--config', config]);
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /^APPLICATION +STATUS +RECIPIENT +ADDRESS +RECORDED +MAILED\n/);
      assert.match(human.stdout, new RegExp(`\n${saved.applicationId} +under-review +advisor +karin\\.lind@demo-radgivning\\.example +2026-11-25T09:30:00\\.000Z +2026-11-25T09:31:00\\.000Z\n`));
      assert.match(human.stdout, new RegExp(`\n${saved.applicationId} +under-review +policyholder +\\(no address\\) +2026-11-25T09:30:00\\.000Z +never \\(no address\\)\n`));

      // With no gateway answering, the command reads the same database in-process.
      const offline = await writeConfigFile(folder, testSettings(join(folder, 'offline'), { databaseUrl: notices.gateway.database!.url, port: await freePort(), logLevel: 'warn' }));
      const inProcess = await runCliToEnd(['application-notices', '--json', '--limit', '1', '--config', offline]);
      assert.equal(inProcess.code, 0, inProcess.stderr);
      assert.deepEqual(inProcess.stdout.trim().split('\n').map((line) => JSON.parse(line) as unknown), [advisorNotice]);
    } finally {
      await notices.close();
      await rm(folder, { recursive: true, force: true });
    }
  });

  test("a plan application under review: the advisor and the employer's contact are mailed", async () => {
    const notices = await openGateway();
    try {
      // The demo employer already has agreement AGR-1001: a person reviews the new plan once its signatory signs.
      await registerCompanySignatories(notices.staff, '5561234567', ['197003151235'], 1);
      const saved = await notices.submit('/PlanApplication', {
        productId: 'TJP-DEPA', advisorCode: 'ADV-001',
        employer: { organisationNumber: '5561234567', name: 'Demo Employer AB', contactEmail: 'hr@demo-employer.example' },
        agreement: { categories: [{ code: 'FAST', name: 'Fast premie', premium: { fixedMonthly: '1500' } }], costCenters: [{ code: '100', name: 'Ekonomi' }] },
        funds: [{ isin: 'SE000DEPA010', percent: 100 }], custodianId: 'demo-custodian',
        employees: [{ personalIdentityNumber: '199506151233', category: 'FAST', costCenter: '100', annualSalary: '480000', employmentStart: '2024-03-01' }],
      });
      assert.equal(saved.status, 'under-review');
      assert.deepEqual((await notices.notices(saved.applicationId)).map((n) => [n.recipient, n.address]), [['advisor', KARIN_MAIL], ['employer', 'hr@demo-employer.example']]);
      assert.equal(await notices.gateway.deps.db.transaction((tx) => mailApplicationNotices(tx, notices.deps, at(1))), 2);
      const employer = sink.mails.find((mail) => mail.envelopeTo.includes('hr@demo-employer.example'))!.parsed;
      assert.equal(employer.subject, `Your pension plan application ${saved.applicationId} is being reviewed`);
      assert.match(employer.text ?? '', /an occupational pension plan for Demo Employer AB, made through Demo Rådgivning AB:/);
      const advisor = sink.mails.find((mail) => mail.envelopeTo.includes(KARIN_MAIL))!.parsed;
      assert.match(advisor.text ?? '', / {2}Employer: +Demo Employer AB \(5561234567\)\n/);
      assert.match(advisor.text ?? '', new RegExp(`GET /PlanApplication/${saved.applicationId} in the advisor API`));
      for (const mail of sink.mails) assert.doesNotMatch(mail.parsed.text ?? '', /199506151233|19950615/, "no employee's number");
    } finally {
      await notices.close();
    }
  });

  test('a mail the SMTP server refuses is tried again in the next run; a notice of an application decided first is not mailed', async () => {
    const notices = await openGateway();
    try {
      const first = await notices.submit('/InsuranceApplication', application);
      const { db } = notices.gateway.deps;
      sink.refusing = true;
      assert.equal(await db.transaction((tx) => mailApplicationNotices(tx, notices.deps, at(1))), 0);
      assert.equal(sink.refused, 1, 'the run stops at the first refusal');
      const [failed] = (await listApplicationNotices(db, { unsent: true })).filter((n) => n.failedAttempts > 0);
      assert.equal(failed?.recipient, 'advisor');
      assert.match(failed?.lastError ?? '', /did not take the mail to karin\.lind@demo-radgivning\.example/);

      sink.refusing = false;
      assert.equal(await db.transaction((tx) => mailApplicationNotices(tx, notices.deps, at(6))), 2);
      // The policyholder's notice, which had not failed, goes before the one that had.
      assert.deepEqual(sink.mails.map((mail) => mail.envelopeTo), [[ANNA_MAIL], [KARIN_MAIL]]);
      assert.deepEqual((await notices.notices(first.applicationId)).map((n) => [n.recipient, n.sent_to, n.failed_attempts]), [['advisor', KARIN_MAIL, 1], ['policyholder', ANNA_MAIL, 0]]);

      // Approved by staff before mail could go out: no "under review" mail afterwards.
      const second = await notices.submit('/InsuranceApplication', application);
      const approve = await fetch(`http://127.0.0.1:${notices.port}/api/applications/${second.applicationId}/approve`, {
        method: 'POST', headers: { ...STAFF, 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'premium source documented' }),
      });
      assert.equal(approve.status, 200, await approve.text());
      assert.equal(await db.transaction((tx) => mailApplicationNotices(tx, notices.deps, at(11))), 0);
      assert.equal(sink.mails.length, 2);
      assert.deepEqual((await listApplicationNotices(db, { unsent: true })).map((n) => [n.applicationId, n.applicationStatus]), [[second.applicationId, 'issued'], [second.applicationId, 'issued']]);
    } finally {
      await notices.close();
    }
  });
});
