/**
 * Yearly custodian reports end to end: CostAndCharges documents taken in through
 * intake and applied, the deadline checks of the report-deadlines calendar job driven
 * with a given "now", the notice mailed once through a real SMTP server, the staff API
 * and CLI listing an account year, and a Holdings as of 31 December loaded without
 * counting as the daily report due the same morning. Real PostgreSQL and SMTP.
 */
import { describe, test, beforeAll, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createSmtpSender } from '../src/channels/mail/smtp.sender.ts';
import type { Sql } from '../src/ledger/database.ts';
import { runDuePeriods } from '../src/calendar/calendar.scheduler.ts';
import { checkAnnualReportDeadlines, listAnnualCustodianReports, listCustodianReports, reportDeadlineJob, type DeadlineCheckDeps } from '../src/calendar/report-deadlines.job.ts';
import { createDemoLedgerTemplate, createTestDatabase, startTestGateway, testSettings, type TestDatabase, type TestGateway, waitFor } from './support/harness.ts';
import { holdingsReport, reportHead } from './support/custodian-reports.ts';
import { runCliToEnd, writeConfigFile } from './support/processes.ts';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink.ts';

const OPS = 'operations@insurer.example';
const NORTH = { id: 'north-custodian', name: 'North Custodian AB', organisationNumber: '5560000019', role: 'custodian', messageTypes: ['custodian-reporting'] };
const silent = pino({ level: 'silent' });

function settings(sink: SmtpSink): Record<string, unknown> {
  return {
    mail: { smtp: { host: sink.host, port: sink.port, from: 'gateway@insurer.example', timeoutMs: 5000 } },
    notifications: { operationsAddress: OPS },
    counterparties: [...(testSettings('unused').counterparties as object[]), NORTH],
  };
}

/** A CostAndCharges of `year` with one account whose categories sum. */
function costReport(messageId: string, year: number, accountNumber: string, organisationNumber: string): string {
  return [
    reportHead('CostAndCharges', messageId, ['Year', year], { custodianOrganisationNumber: organisationNumber }),
    `  <Account><AccountNumber>${accountNumber}</AccountNumber><InvestmentServices>10.00</InvestmentServices><ThirdPartyPayments>0</ThirdPartyPayments>`,
    '    <InvestmentProductCost>90.00</InvestmentProductCost><TotalCosts>100.00</TotalCosts></Account>',
    '</CostAndCharges>', '',
  ].join('\n');
}

async function annualRows(sql: Sql): Promise<string[]> {
  const { rows } = await sql.query<{ year: number; custodian_id: string; status: string; message_id: string | null; notified_at: Date | null }>(
    'SELECT year, custodian_id, status, message_id, notified_at FROM custodian_annual_report_deadlines ORDER BY year, custodian_id',
  );
  return rows.map((r) => `${r.year} ${r.custodian_id} ${r.status} ${r.message_id ?? '-'}${r.notified_at ? ' notified' : ''}`);
}

describe('annual custodian reports', () => {
  let sink: SmtpSink;
  let template: TestDatabase;
  let database: TestDatabase;
  let gateway: TestGateway;
  let deps: DeadlineCheckDeps;
  /** Gateway message ids by the sender's MessageId. */
  const sent = new Map<string, string>();

  const send = async (from: string, messageId: string, xml: string, at: string): Promise<string> => {
    const receipt = await gateway.intake.receive({
      channel: 'cli', counterpartyId: from, externalId: messageId, receivedAt: new Date(at),
      content: { bytes: Buffer.from(xml) }, metadata: { fileName: `${messageId}.xml` },
    });
    const { rows } = await gateway.deps.db.query<{ status: string }>('SELECT status FROM messages WHERE id = $1', [receipt.messageId]);
    sent.set(messageId, receipt.messageId);
    return rows[0]?.status ?? 'none';
  };
  const demoCosts = (messageId: string, year: number, account: string, at: string) => send('demo-custodian', messageId, costReport(messageId, year, account, '5560000001'), at);
  const northCosts = (messageId: string, at: string) => send('north-custodian', messageId, costReport(messageId, 2025, 'NORTH-1', NORTH.organisationNumber), at);
  const check = (now: string) => gateway.deps.db.transaction((tx) => checkAnnualReportDeadlines(tx, deps, 2025, new Date(now)));
  const id = (messageId: string) => sent.get(messageId) ?? messageId;

  beforeAll(async () => {
    sink = await startSmtpSink();
    template = await createDemoLedgerTemplate();
    database = await createTestDatabase(template.name);
    gateway = await startTestGateway({ roles: ['api'], inline: true, database, settings: settings(sink) });
    deps = { custodians: [], mailSender: createSmtpSender(gateway.config.mail.smtp!), operationsAddress: OPS, log: silent };
    // Expected for 2025: demo-custodian (the demo accounts) and north-custodian; not a
    // custodian whose only account closed in 2024, nor one whose first opened in 2026.
    await gateway.deps.db.query(
      `INSERT INTO custody_accounts (account_number, custodian_id, opened_on, closed_on) VALUES
         ('NORTH-1', 'north-custodian', '2025-12-31', NULL), ('GONE-1', 'gone-custodian', '2019-05-01', '2024-12-31'),
         ('NEW-1', 'new-custodian', '2026-01-01', NULL)`,
    );
  });
  afterAll(async () => {
    await deps?.mailSender?.close();
    await gateway?.destroy();
    await database?.drop();
    await template?.drop();
    await sink?.close();
  });

  test('on time in March, missing after 30 April and mailed once, then late; a correction changes nothing', async () => {
    const mails = sink.mails.length;
    assert.equal(await demoCosts('CC-DEMO-2025', 2025, 'DEPA-100001', '2026-03-16T08:00:00Z'), 'applied');
    // Only an unknown account: rejected whole, so no report of 2024 arrived.
    assert.equal(await demoCosts('CC-DEMO-2024-BAD', 2024, 'NOSUCH-1', '2026-03-16T08:05:00Z'), 'rejected');

    const before = await listAnnualCustodianReports(gateway.deps.db, {}, new Date('2026-04-20T10:00:00Z'));
    assert.deepEqual(before.map((r) => `${r.year} ${r.custodianId} ${r.kind} ${r.status} ${r.deadline}`), [
      '2025 demo-custodian CostAndCharges on_time 2026-04-30T22:00:00.000Z',
      '2025 north-custodian CostAndCharges pending 2026-04-30T22:00:00.000Z',
    ]);
    const open = await check('2026-04-30T21:59:59Z');
    assert.deepEqual([open.recordedMissing, open.notified.length], [0, 0], '23:59:59 on 30 April: still pending');

    const first = await check('2026-05-04T06:31:00Z');
    assert.equal(first.recordedMissing, 1);
    assert.deepEqual(await annualRows(gateway.deps.db), [
      `2025 demo-custodian on_time ${id('CC-DEMO-2025')}`,
      '2025 north-custodian missing - notified',
    ]);
    await waitFor(() => sink.mails.length === mails + 1, 'the notice');
    const notice = sink.mails.at(-1)!;
    assert.deepEqual(notice.envelopeTo, [OPS]);
    assert.equal(notice.parsed.subject, 'depot-gateway: annual custodian reports 1 missing');
    assert.match(notice.parsed.text ?? '', /Missing \(not received by the end of April\):\n {2}2025 {2}north-custodian +CostAndCharges +due by the end of 2026-04-30\n/);
    assert.doesNotMatch(notice.parsed.text ?? '', /demo-custodian|gone-custodian|new-custodian/);

    // The same day's second check finds nothing new; the report then arrives late, and a
    // correction of demo-custodian's comes after the close: neither is mailed again.
    assert.deepEqual((await check('2026-05-04T08:00:00Z')).notified, []);
    assert.equal(await northCosts('CC-NORTH-2025', '2026-05-06T09:00:00Z'), 'applied');
    assert.equal(await demoCosts('CC-DEMO-2025-FIX', 2025, 'DEPA-100001', '2026-05-10T09:00:00Z'), 'applied');
    const later = await check('2026-05-11T06:31:00Z');
    assert.deepEqual([later.recordedMissing, later.notified.length], [0, 0]);
    assert.deepEqual(await annualRows(gateway.deps.db), [
      `2025 demo-custodian on_time ${id('CC-DEMO-2025')}`,
      `2025 north-custodian late ${id('CC-NORTH-2025')} notified`,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(sink.mails.length, mails + 1, 'exactly one notice for the year');
  });

  test('the calendar job checks the latest closed account year in its runs; nothing is mailed twice', async () => {
    const job = reportDeadlineJob({ ...deps, catchUpBankingDays: 1 });
    const mails = sink.mails.length;
    // A late report of an earlier year that no check found missing is mailed once, by the next run.
    assert.equal(await demoCosts('CC-DEMO-2023', 2023, 'DEPA-100001', '2026-05-12T09:00:00Z'), 'applied');
    assert.deepEqual(await runDuePeriods(gateway.deps.db, job, new Date('2026-05-12T10:00:00Z'), silent), ['2026-05-12 08:31', '2026-05-12 10:00']);
    await waitFor(() => sink.mails.length === mails + 1, 'the notice of the late 2023 report');
    assert.equal(sink.mails.at(-1)!.parsed.subject, 'depot-gateway: annual custodian reports 1 late');
    assert.match(sink.mails.at(-1)!.parsed.text ?? '', /Late \(received after the end of April\):\n {2}2023 {2}demo-custodian +CostAndCharges/);
    assert.deepEqual((await annualRows(gateway.deps.db))[0], `2023 demo-custodian late ${id('CC-DEMO-2023')} notified`);
    assert.deepEqual(await runDuePeriods(gateway.deps.db, job, new Date('2026-05-13T10:00:00Z'), silent), ['2026-05-13 08:31', '2026-05-13 10:00']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(sink.mails.length, mails + 1);
  });

  test('a Holdings as of 31 December is loaded but is not the daily report due on 2 January', async () => {
    // 31 December 2025 is no banking day; the report of 30 December is due Friday 2 January at 08:30 CET (07:30Z).
    const accounts = [{ accountNumber: 'DEPA-100001', cash: '100.00', positions: [] }];
    assert.equal(await send('demo-custodian', 'H-YEAR-END', holdingsReport('H-YEAR-END', '2025-12-31', accounts), '2026-01-02T06:00:00Z'), 'applied');
    assert.equal(await send('demo-custodian', 'H-DAILY', holdingsReport('H-DAILY', '2025-12-30', accounts), '2026-01-02T07:45:00Z'), 'applied');
    const { rows } = await gateway.deps.db.query<{ as_of: string }>("SELECT as_of::text AS as_of FROM custody_valuations WHERE account_number = 'DEPA-100001' ORDER BY as_of");
    assert.deepEqual(rows.map((r) => r.as_of), ['2025-12-30', '2025-12-31']);
    const daily = await listCustodianReports(gateway.deps.db, ['demo-custodian'], { from: '2026-01-02', to: '2026-01-02' }, new Date('2026-01-03T00:00:00Z'));
    assert.deepEqual(daily.map((r) => `${r.dueDay} ${r.kind} ${r.status} ${r.messageId ?? '-'}`), [
      `2026-01-02 Holdings late ${id('H-DAILY')}`,
      '2026-01-02 Transactions missing -',
    ]);
  });

  test('the staff API and the CLI list an account year', async () => {
    const address = gateway.http!.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const auth = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
    const response = await fetch(`http://127.0.0.1:${port}/api/custodian-reports/annual?year=2025&status=late,missing`, { headers: auth });
    assert.equal(response.status, 200);
    const { reports } = (await response.json()) as { reports: unknown[] };
    expect(reports).toStrictEqual([{
      custodianId: 'north-custodian', kind: 'CostAndCharges', year: 2025, deadline: '2026-04-30T22:00:00.000Z', status: 'late',
      arrivedAt: '2026-05-06T09:00:00.000Z', messageId: id('CC-NORTH-2025'), notifiedAt: '2026-05-04T06:31:00.000Z',
    }]);
    const bad = await fetch(`http://127.0.0.1:${port}/api/custodian-reports/annual?year=25`, { headers: auth });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { code: string }).code, 'REQUEST_INVALID');

    const folder = await mkdtemp(join(tmpdir(), 'dg-annual-cli-'));
    try {
      // Through the running gateway's staff API, and in-process on the database when none answers.
      for (const cliPort of [port, 1]) {
        const config = await writeConfigFile(folder, { ...testSettings(join(folder, 'data'), { databaseUrl: database.url, port: cliPort, logLevel: 'warn' }), ...settings(sink) });
        const json = await runCliToEnd(['reports', '--year', '2025', '--json', '--config', config]);
        assert.equal(json.code, 0, json.stderr);
        const rows = json.stdout.trim().split('\n').map((line) => JSON.parse(line) as { custodianId: string; status: string; messageId: string });
        assert.deepEqual(rows.map((r) => `${r.custodianId} ${r.status} ${r.messageId}`), [`demo-custodian on_time ${id('CC-DEMO-2025')}`, `north-custodian late ${id('CC-NORTH-2025')}`]);
        const late = await runCliToEnd(['reports', '--annual', '--year', '2025', '--late', '--config', config]);
        assert.equal(late.code, 0, late.stderr);
        assert.match(late.stdout, /^YEAR +CUSTODIAN +KIND +STATUS +DEADLINE +ARRIVED +MESSAGE +NOTIFIED\n2025 +north-custodian +CostAndCharges +late +2026-04-30T22:00:00.000Z +2026-05-06T09:00:00.000Z/);
        assert.equal(late.stdout.trim().split('\n').length, 2, `the header and the one late report (port ${cliPort})`);
      }
      const config = await writeConfigFile(folder, { ...testSettings(join(folder, 'data'), { databaseUrl: database.url, port: 1, logLevel: 'warn' }), ...settings(sink) });
      const mixed = await runCliToEnd(['reports', '--annual', '--from', '2026-01-02', '--config', config]);
      assert.equal(mixed.code, 2, 'the daily range and --annual do not go together');
      assert.match(mixed.stderr, /--annual.*--from|--from.*--annual/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
