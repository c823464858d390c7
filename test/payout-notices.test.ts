/**
 * The insured is told that payout can begin, on the embedded database and on PostgreSQL,
 * with a real SMTP server: on the day five insurances reach it, the notice job mails the
 * insured whose application gave an address (the policyholder's own, being the insured),
 * makes a letter (a PDF, read back with pdftotext) for those without one — and for one
 * whose address the mail server refuses for good — tells nobody where the payout was
 * started first, and mails customer service one copy saying how each was told. The
 * letters are the print queue of the staff API, the console and the CLI. Each insured is
 * told once: a later check sends nothing, and a run that crashed before its commit sends
 * the same mail (the same Message-ID) again. The insurances are applied for through the
 * REST API and signed by their policyholders with BankID on the local BankID server.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import { createSmtpSender } from '../src/channels/mail/smtp.sender.ts';
import type { MailSender } from '../src/channels/mail/mail-sender.ts';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { runDuePeriods } from '../src/calendar/calendar.scheduler.ts';
import { listPayoutNotices, mailPayoutNotices, payoutNoticeJob } from '../src/calendar/payout-notices.job.ts';
import { schedulePayout } from '../src/calendar/payout-run.ts';
import { payoutStartJob } from '../src/calendar/payout-start.job.ts';
import { submitSigned } from './support/application-signing.ts';
import { advisorFirmApi, startTestBankId, type TestBankId } from './support/bankid.ts';
import { signInToConsole } from './support/console-session.ts';
import { startTestGateway, testSettings, type TestGateway, type TestGatewayOptions } from './support/harness.ts';
import { runCliToEnd, writeConfigFile } from './support/processes.ts';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink.ts';

const CUSTOMER_SERVICE = 'customer.service@insurer.example';
const EBBE = '199203033452';
const TOVE = '198506152381';
const NILS = '197905202383';
const GONE = 'gone@mail.example';
const PINS = [EBBE, TOVE, NILS, '198002021239', '199003031235'];

/** What the status answer of a signed application tells. */
interface Issued { applicationId: string; status: string; signCaseId: string; insuranceId: string }

let testBankId: TestBankId;
beforeAll(async () => {
  testBankId = await startTestBankId();
});
afterAll(async () => {
  await testBankId?.close();
});

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];

describe.each(ENGINES)('payout notices on %s', (_engine, engine) => {
  let gateway: TestGateway;
  let sink: SmtpSink;
  let mailSender: MailSender;
  let folder: string;
  let now = new Date('2026-11-23T05:00:00Z'); // Monday 23 November, 06:00 in Stockholm
  const issued: Record<'ebbe' | 'tove' | 'nils', string> = { ebbe: '', tove: '', nils: '' };

  beforeAll(async () => {
    sink = await startSmtpSink();
    sink.refusedRecipients.add(GONE);
    folder = await mkdtemp(join(tmpdir(), 'dg-payout-notices-'));
    gateway = await startTestGateway({
      ...engine, roles: ['api'], inline: true, clock: () => now,
      settings: {
        api: await advisorFirmApi(),
        mail: { smtp: { host: sink.host, port: sink.port, from: 'gateway@insurer.example', timeoutMs: 5000 } },
        notifications: { operationsAddress: 'operations@insurer.example', customerServiceAddress: CUSTOMER_SERVICE },
        bankid: await testBankId.settings(),
      },
    });
    mailSender = createSmtpSender(gateway.config.mail.smtp!);
    // Ebbe's own insurance, his address given as the policyholder's; Tove's without an address; Nils's to an address that does not exist.
    for (const [who, policyholder, insured] of [
      ['ebbe', { id: EBBE, email: 'ebbe@mail.example' }, { id: EBBE }],
      ['tove', { id: TOVE }, { id: TOVE }],
      ['nils', { id: NILS }, { id: NILS, email: GONE }],
    ] as const) {
      const answer = await submitSigned<Issued>(as, testBankId.server, '/InsuranceApplication', {
        productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder, insured, premium: { single: '50000.00' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
        custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
      });
      assert.equal(answer.status, 'issued', JSON.stringify(answer));
      issued[who] = answer.insuranceId;
    }
    // Payout can begin today for them and for Bertil's and INS-100003's occupational pensions (agreed dates).
    await gateway.deps.db.query(`UPDATE insurances SET payout_from = '2026-11-23' WHERE insurance_number = ANY($1::text[])`, [[...Object.values(issued), 'INS-100002', 'INS-100003']]);
  }, 120_000);
  afterAll(async () => {
    await mailSender?.close();
    await gateway?.destroy();
    await sink?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const as = async (options: InjectOptions) => {
    const token = await gateway.http!.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&client_id=firm&client_secret=firm-secret' });
    return gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${(token.json() as { access_token: string }).access_token}` } });
  };
  const staff = (url: string) => gateway.http!.inject({ url, headers: { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` } });
  const pdfText = async (pdf: Buffer, name: string) => {
    const file = join(folder, `${name}.pdf`);
    await writeFile(file, pdf);
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  };
  const job = () => payoutNoticeJob({ mailSender, address: CUSTOMER_SERVICE, log: gateway.log });

  test('each insured told once — by mail, by letter, or not at all when started first — and customer service mailed one copy', async () => {
    assert.deepEqual(await runDuePeriods(gateway.deps.db, payoutStartJob({ log: gateway.log }), now, gateway.log), ['2026-11-23']);
    assert.equal((await listPayoutNotices(gateway.deps.db)).length, 5);
    // INS-100003's insured starts the payout before the notice goes out (staff register a paper form at 07:00).
    await gateway.deps.db.transaction((tx) => schedulePayout(tx, {
      insuranceNumber: 'INS-100003', startMonth: '2026-12', terms: { months: 120 }, registration: { withdrawalAccount: '50001234560', registeredBy: 'staff:staff' },
    }, new Date('2026-11-23T06:00:00Z')));

    // The 07:30 check.
    now = new Date('2026-11-23T06:31:00Z');
    assert.deepEqual(await runDuePeriods(gateway.deps.db, job(), now, gateway.log), ['2026-11-23 07:30']);
    assert.deepEqual(sink.mails.map((mail) => mail.envelopeTo[0]).sort(), [CUSTOMER_SERVICE, 'ebbe@mail.example']);
    const toEbbe = sink.mails.find((mail) => mail.envelopeTo[0] === 'ebbe@mail.example')!;
    assert.equal(toEbbe.parsed.subject, `Din utbetalning kan börja – försäkring ${issued.ebbe}`);
    assert.equal(toEbbe.parsed.messageId, `<payout-notice.${issued.ebbe}.insured@depot-gateway>`);
    const ebbesText = toEbbe.parsed.text ?? '';
    assert.match(ebbesText, new RegExp(`Från och med 2026-11-23 kan utbetalningen från din försäkring ${issued.ebbe} \\(Kapitalförsäkring Depå, depå DEPA-\\d+\\) börja`));
    assert.match(ebbesText, /Välj hur länge utbetalningen ska pågå: 5 år, 10 år eller 20 år/);
    assert.match(ebbesText, /Registrera det bankkonto pengarna ska betalas till, i ditt eget namn/);
    assert.match(ebbesText, /begäran om utbetalning .* Du signerar den med BankID \(och försäkringstagaren/);

    const notices = new Map((await listPayoutNotices(gateway.deps.db)).map((notice) => [notice.insuranceNumber, notice]));
    const told = (insurance: string) => [notices.get(insurance)?.insuredNotice, notices.get(insurance)?.insuredAddress, notices.get(insurance)?.sentTo];
    assert.deepEqual(told(issued.ebbe), ['mail', 'ebbe@mail.example', CUSTOMER_SERVICE]);
    assert.deepEqual(told(issued.tove), ['letter', null, CUSTOMER_SERVICE]);
    assert.deepEqual(told(issued.nils), ['letter', null, CUSTOMER_SERVICE], 'the mail server refused the address for good: a letter instead');
    assert.deepEqual(told('INS-100002'), ['letter', null, CUSTOMER_SERVICE]);
    assert.deepEqual(told('INS-100003'), ['not-needed', null, CUSTOMER_SERVICE], 'the payout was started before the notice went out');

    const copy = sink.mails.find((mail) => mail.envelopeTo[0] === CUSTOMER_SERVICE)!;
    assert.equal(copy.parsed.subject, 'Payout can begin: 5 insurances');
    const copyText = copy.parsed.text ?? '';
    assert.match(copyText, new RegExp(`- ${issued.ebbe} \\(19920303-\\*\\*\\*\\*\\), custody account DEPA-\\d+: payout can begin 2026-11-23; not started yet; the insured was mailed at ebbe@mail\\.example`));
    assert.match(copyText, new RegExp(`- ${issued.tove} \\(19850615-\\*\\*\\*\\*\\), .*; a letter to the insured is in the print queue \\(depot-gateway payout-notices letter ${issued.tove}\\)`));
    assert.match(copyText, /- INS-100002 \(Bertil Berg, 19800202-\*\*\*\*\), custody account DEPA-100002: payout can begin 2026-11-23; not started yet; a letter/);
    assert.match(copyText, /- INS-100003 \(.*19900303-\*\*\*\*\), .*; the insured was not told: the payout was started, or the insurance ended, first/);
    for (const mail of sink.mails) for (const pin of PINS) assert.ok(!(mail.parsed.text ?? '').includes(pin), `no personnummer in full in the mail to ${mail.envelopeTo[0]}`);

    // The 13:00 check: nothing new.
    now = new Date('2026-11-23T12:01:00Z');
    assert.deepEqual(await runDuePeriods(gateway.deps.db, job(), now, gateway.log), ['2026-11-23 13:00']);
    assert.equal(sink.mails.length, 2);
  });

  test('the letters: a PDF each in the print queue of the staff API, the console and the CLI', async () => {
    const queue = (await staff('/api/payout-notices?letters=true')).json() as { notices: { insuranceNumber: string }[] };
    assert.deepEqual(queue.notices.map((n) => n.insuranceNumber).sort(), [issued.tove, issued.nils, 'INS-100002'].sort());
    const letter = await staff(`/api/payout-notices/${issued.tove}/letter`);
    assert.equal(letter.statusCode, 200);
    assert.equal(letter.headers['content-type'], 'application/pdf');
    const text = await pdfText(letter.rawPayload, 'tove');
    for (const line of ['Din utbetalning kan börja', 'Till den försäkrade', 'Personnummer 19850615-2381', `Försäkring ${issued.tove}`, 'Från och med 2026-11-23 kan utbetalningen', 'Så startar du utbetalningen', 'blankett för utbetalning']) {
      assert.ok(text.includes(line), `the letter says "${line}":\n${text}`);
    }
    assert.match(await pdfText((await staff('/api/payout-notices/INS-100002/letter')).rawPayload, 'bertil'), /Bertil Berg\s+Personnummer 19800202-1239/);
    const mailed = await staff(`/api/payout-notices/${issued.ebbe}/letter`);
    assert.deepEqual([mailed.statusCode, (mailed.json() as { code: string }).code], [404, 'RESOURCE_NOT_FOUND'], 'mailed, no letter');

    // The console: the print queue with a link to each letter.
    const session = await signInToConsole(gateway.http!, 'staff', 'test-password');
    const page = (await gateway.http!.inject({ url: '/console/payout-notices?letters=true', headers: { cookie: session.cookie } })).body;
    const links = [...page.matchAll(/<a data-letter href="([^"]+)">letter \(PDF\)<\/a>/g)].map((m) => m[1]);
    assert.deepEqual(links.sort(), [issued.tove, issued.nils, 'INS-100002'].map((n) => `/console/payout-notices/${n}/letter`).sort());
    assert.ok(!page.includes(TOVE), 'the personnummer masked on the page');
    const download = await gateway.http!.inject({ url: `/console/payout-notices/${issued.tove}/letter`, headers: { cookie: session.cookie } });
    assert.deepEqual([download.statusCode, download.headers['content-type']], [200, 'application/pdf']);
    assert.ok(download.rawPayload.equals(letter.rawPayload), 'the same letter');

    // The CLI, through the running gateway: the queue, and a letter written to a file.
    const address = gateway.http!.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const config = await writeConfigFile(folder, testSettings(join(folder, 'data'), { port, logLevel: 'warn' }));
    const listed = await runCliToEnd(['payout-notices', '--letters', '--json', '--config', config]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(listed.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { insuranceNumber: string }).insuranceNumber).sort(), [issued.tove, issued.nils, 'INS-100002'].sort());
    const table = await runCliToEnd(['payout-notices', '--config', config]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^INSURANCE +INSURED +CUSTODY ACCOUNT +CAN BEGIN +FIRST MONTH +FIRST PAYOUT +INSURED TOLD +COPY MAILED\n/);
    assert.match(table.stdout, /\nINS-100002 +Bertil Berg +DEPA-100002 +2026-11-23 +- +- +2026-11-23T06:31:00\.000Z letter \(payout-notices letter INS-100002\) +2026-11-23T06:31:00\.000Z to customer\.service@insurer\.example\n/);
    const file = join(folder, 'letter.pdf');
    const out = openSync(file, 'w');
    const exit = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'depot-gateway.js'), 'payout-notices', 'letter', issued.tove, '--config', config], {
        cwd: PROJECT_ROOT, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', out, 'inherit'],
      });
      child.on('exit', (code) => resolve(code));
    });
    closeSync(out);
    assert.equal(exit, 0);
    assert.ok((await readFile(file)).equals(letter.rawPayload), 'payout-notices letter writes the PDF');
    const none = await runCliToEnd(['payout-notices', 'letter', issued.ebbe, '--config', config]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /RESOURCE_NOT_FOUND/);
  });

  test('a run that crashed before its commit sends the same mails again, with the same Message-IDs; the insured is then told once', async () => {
    const answer = await submitSigned<Issued>(as, testBankId.server, '/InsuranceApplication', {
      productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: '197607151235' }, insured: { id: '197607151235', email: 'eva@mail.example' },
      premium: { single: '50000.00' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
      custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
    });
    assert.equal(answer.status, 'issued', JSON.stringify(answer));
    const insurance = answer.insuranceId;
    await gateway.deps.db.query(`UPDATE insurances SET payout_from = '2026-11-24' WHERE insurance_number = $1`, [insurance]);
    now = new Date('2026-11-24T05:00:00Z');
    await runDuePeriods(gateway.deps.db, payoutStartJob({ log: gateway.log }), now, gateway.log);
    now = new Date('2026-11-24T06:31:00Z');
    const before = sink.mails.length;
    await assert.rejects(gateway.deps.db.transaction(async (tx) => {
      await mailPayoutNotices(tx, { mailSender, address: CUSTOMER_SERVICE, log: gateway.log }, now, '2026-11-24 07:30');
      throw new Error('the process died before the commit');
    }), /died before the commit/);
    assert.equal((await listPayoutNotices(gateway.deps.db)).find((n) => n.insuranceNumber === insurance)?.insuredNotice, null, 'rolled back: not told');
    assert.deepEqual(await runDuePeriods(gateway.deps.db, job(), now, gateway.log), ['2026-11-24 07:30']);
    const toEva = sink.mails.slice(before).filter((mail) => mail.envelopeTo[0] === 'eva@mail.example');
    assert.deepEqual(toEva.map((mail) => mail.parsed.messageId), [`<payout-notice.${insurance}.insured@depot-gateway>`, `<payout-notice.${insurance}.insured@depot-gateway>`]);
    const copies = sink.mails.slice(before).filter((mail) => mail.envelopeTo[0] === CUSTOMER_SERVICE);
    assert.deepEqual(copies.map((mail) => mail.parsed.messageId), ['<payout-notices.2026-11-24.07.30@depot-gateway>', '<payout-notices.2026-11-24.07.30@depot-gateway>']);
    const notice = (await listPayoutNotices(gateway.deps.db)).find((n) => n.insuranceNumber === insurance);
    assert.deepEqual([notice?.insuredNotice, notice?.insuredToldAt], ['mail', now.toISOString()]);
    now = new Date('2026-11-24T12:01:00Z');
    await runDuePeriods(gateway.deps.db, job(), now, gateway.log);
    assert.equal(sink.mails.filter((mail) => mail.envelopeTo[0] === 'eva@mail.example').length, 2, 'not mailed a third time');
  });
});
