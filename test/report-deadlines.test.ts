/**
 * Custodian report deadlines end to end: arrivals recorded as the ingestion will
 * record them, deadline checks driven with a given "now", notices mailed through a
 * real SMTP server, the calendar scheduler catching up at start on BullMQ, and the
 * staff API and CLI showing the outcome. Real PostgreSQL, Redis and SMTP.
 */
import { describe, test, beforeAll, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createSmtpSender } from '../src/channels/mail/smtp.sender.ts';
import type { Sql } from '../src/ledger/database.ts';
import { migrate } from '../src/ledger/migrate.ts';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { recordReportArrival } from '../src/ledger/custody/report-deadlines.repository.ts';
import { CALENDAR_TIME_ZONE, runDuePeriods } from '../src/calendar/calendar.scheduler.ts';
import { DEADLINE_CHECK_JOB, checkReportDeadlines, listCustodianReports, reportDeadlineJob, type DeadlineCheckDeps } from '../src/calendar/report-deadlines.job.ts';
import { bankingDaysBetween } from '../src/core/banking-calendar.ts';
import {
  FIXED_NOW, TEST_REDIS_URL, createTestDatabase, startTestGateway, testSettings, waitFor, type TestDatabase, type TestGateway,
} from './support/harness.ts';
import { runCliToEnd, writeConfigFile } from './support/processes.ts';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink.ts';

const OPS = 'operations@insurer.example';
const silent = pino({ level: 'silent' });

/** The demo custodian plus one more that must report, and one that has opted out. */
function reportSettings(sink: SmtpSink): Record<string, unknown> {
  const base = testSettings('unused');
  return {
    mail: { smtp: { host: sink.host, port: sink.port, from: 'gateway@insurer.example', timeoutMs: 5000 } },
    notifications: { operationsAddress: OPS },
    counterparties: [
      ...(base.counterparties as object[]),
      { id: 'north-custodian', name: 'North Custodian AB', organisationNumber: '5560000019', role: 'custodian', messageTypes: ['custodian-reporting'] },
      { id: 'quiet-custodian', name: 'Quiet Custodian AB', organisationNumber: '5560000027', role: 'custodian', messageTypes: ['custodian-reporting'], reports: false },
    ],
  };
}

const EXPECTED = ['demo-custodian', 'north-custodian'];

interface DeadlineRow { custodian_id: string; kind: string; due_day: string; status: string; message_id: string | null; notified_at: Date | null }

async function deadlineRows(sql: Sql, from: string, to: string): Promise<string[]> {
  const { rows } = await sql.query<DeadlineRow>(
    `SELECT custodian_id, kind, due_day::text AS due_day, status, message_id, notified_at FROM custodian_report_deadlines
     WHERE due_day BETWEEN $1::date AND $2::date ORDER BY due_day, custodian_id, kind`,
    [from, to],
  );
  return rows.map((r) => `${r.due_day} ${r.custodian_id} ${r.kind} ${r.status} ${r.message_id ?? '-'}${r.notified_at ? ' notified' : ''}`);
}

/** The report lines of a notice, "custodian kind" per missing or late report, in order. */
function listed(text: string, section: 'Missing' | 'Late'): string[] {
  const block = new RegExp(`${section} \\([^)]*\\):\\n((?: {2}.*\\n?)+)`).exec(text)?.[1] ?? '';
  return block.trim().split('\n').filter(Boolean).map((line) => line.trim().split(/\s+/).slice(0, 3).join(' '));
}

describe('custodian report deadlines', () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  afterAll(async () => {
    await sink.close();
  });

  describe('deadline checks driven directly', () => {
    let gateway: TestGateway;
    let deps: DeadlineCheckDeps;
    const arrive = (custodianId: string, kind: 'Holdings' | 'Transactions', asOfDate: string, at: string, messageId: string) =>
      gateway.deps.db.transaction((tx) => recordReportArrival(tx, { custodianId, kind, asOfDate, receivedAt: new Date(at), messageId }));
    const check = (days: [string, string], now: string) =>
      gateway.deps.db.transaction((tx) => checkReportDeadlines(tx, deps, bankingDaysBetween(...days), new Date(now)));

    beforeAll(async () => {
      gateway = await startTestGateway({ roles: [], inline: true, settings: reportSettings(sink) });
      deps = { custodians: EXPECTED, mailSender: createSmtpSender(gateway.config.mail.smtp!), operationsAddress: OPS, log: silent };
    });
    afterAll(async () => {
      await deps.mailSender?.close();
      await gateway.destroy();
    });

    test('on time, late and missing by the 08:31 check; one notice listing exactly the late and missing; never mailed twice', async () => {
      const mailsBefore = sink.mails.length;
      // Due Thursday 2026-11-19 at 08:30 CET = 07:30Z.
      await arrive('demo-custodian', 'Holdings', '2026-11-18', '2026-11-19T07:00:00Z', 'H-1118');
      await arrive('demo-custodian', 'Transactions', '2026-11-18', '2026-11-19T07:30:00Z', 'T-1118-AT-DEADLINE');
      await arrive('north-custodian', 'Transactions', '2026-11-18', '2026-11-19T07:30:30Z', 'NT-1118');
      await arrive('north-custodian', 'Transactions', '2026-11-18', '2026-11-19T07:30:30Z', 'NT-1118'); // the same message again

      const first = await check(['2026-11-19', '2026-11-19'], '2026-11-19T07:31:00Z');
      assert.equal(first.recordedMissing, 1, 'north-custodian Holdings');
      assert.deepEqual(await deadlineRows(gateway.deps.db, '2026-11-19', '2026-11-19'), [
        '2026-11-19 demo-custodian Holdings on_time H-1118',
        '2026-11-19 demo-custodian Transactions on_time T-1118-AT-DEADLINE',
        '2026-11-19 north-custodian Holdings missing - notified',
        '2026-11-19 north-custodian Transactions late NT-1118 notified',
      ]);
      await waitFor(() => sink.mails.length === mailsBefore + 1, 'the notice');
      const notice = sink.mails.at(-1)!;
      assert.deepEqual(notice.envelopeTo, [OPS]);
      assert.equal(notice.parsed.subject, 'depot-gateway: custodian reports 1 missing, 1 late');
      assert.deepEqual(listed(notice.parsed.text ?? '', 'Missing'), ['2026-11-19 north-custodian Holdings']);
      assert.deepEqual(listed(notice.parsed.text ?? '', 'Late'), ['2026-11-19 north-custodian Transactions']);
      assert.doesNotMatch(notice.parsed.text ?? '', /quiet-custodian|demo-custodian/);

      // The 10:00 check finds nothing new; the missing report then arrives late: recorded, not mailed again.
      const second = await check(['2026-11-19', '2026-11-19'], '2026-11-19T09:00:00Z');
      assert.deepEqual([second.recordedMissing, second.notified.length], [0, 0]);
      await arrive('north-custodian', 'Holdings', '2026-11-18', '2026-11-19T09:30:00Z', 'NH-1118');
      await arrive('north-custodian', 'Holdings', '2026-11-18', '2026-11-19T10:30:00Z', 'NH-1118-COPY');
      const third = await check(['2026-11-19', '2026-11-19'], '2026-11-19T11:00:00Z');
      assert.equal(third.notified.length, 0);
      assert.deepEqual((await deadlineRows(gateway.deps.db, '2026-11-19', '2026-11-19'))[2], '2026-11-19 north-custodian Holdings late NH-1118 notified');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(sink.mails.length, mailsBefore + 1, 'exactly one notice for the day');
    });

    test('the report of a Friday is due Monday; the earliest of several copies decides', async () => {
      // Friday 2026-11-20 → Monday 2026-11-23, 08:30 CET = 07:30Z. The later copy arrives first in the ledger.
      await arrive('demo-custodian', 'Holdings', '2026-11-20', '2026-11-23T08:00:00Z', 'H-1120-SECOND');
      await arrive('demo-custodian', 'Holdings', '2026-11-20', '2026-11-21T10:00:00Z', 'H-1120-SATURDAY');
      await arrive('demo-custodian', 'Transactions', '2026-11-20', '2026-11-23T07:29:00Z', 'T-1120');
      const result = await check(['2026-11-23', '2026-11-23'], '2026-11-23T07:31:00Z');
      assert.deepEqual(await deadlineRows(gateway.deps.db, '2026-11-21', '2026-11-23'), [
        '2026-11-23 demo-custodian Holdings on_time H-1120-SATURDAY',
        '2026-11-23 demo-custodian Transactions on_time T-1120',
        '2026-11-23 north-custodian Holdings missing - notified',
        '2026-11-23 north-custodian Transactions missing - notified',
      ]);
      assert.deepEqual(result.notified.map((r) => `${r.custodianId} ${r.kind} ${r.status}`), ['north-custodian Holdings missing', 'north-custodian Transactions missing']);
    });

    test('over Easter nothing is due on Good Friday or Easter Monday; Maundy Thursday’s report is due Tuesday', async () => {
      await arrive('demo-custodian', 'Holdings', '2026-04-02', '2026-04-06T10:00:00Z', 'H-EASTER-EARLY');
      // 2026-04-07 is in summer time: 08:30 CEST = 06:30Z.
      await arrive('demo-custodian', 'Transactions', '2026-04-02', '2026-04-07T06:45:00Z', 'T-EASTER-LATE');
      await arrive('north-custodian', 'Holdings', '2026-04-02', '2026-04-07T06:30:00Z', 'NH-EASTER');
      await arrive('north-custodian', 'Transactions', '2026-04-02', '2026-04-07T06:29:00Z', 'NT-EASTER');
      const result = await check(['2026-04-03', '2026-04-07'], '2026-04-07T06:31:00Z');
      assert.equal(result.recordedMissing, 0);
      assert.deepEqual(await deadlineRows(gateway.deps.db, '2026-04-01', '2026-04-08'), [
        '2026-04-07 demo-custodian Holdings on_time H-EASTER-EARLY',
        '2026-04-07 demo-custodian Transactions late T-EASTER-LATE notified',
        '2026-04-07 north-custodian Holdings on_time NH-EASTER',
        '2026-04-07 north-custodian Transactions on_time NT-EASTER',
      ]);
    });

    test('the CLI reads the ledger in-process when no gateway answers', async () => {
      const folder = await mkdtemp(join(tmpdir(), 'dg-reports-cli-'));
      try {
        const settings = { ...testSettings(join(folder, 'data'), { databaseUrl: gateway.database!.url, port: 1, logLevel: 'warn' }), ...reportSettings(sink) };
        const config = await writeConfigFile(folder, settings);
        const result = await runCliToEnd(['reports', '--from', '2026-04-07', '--to', '2026-04-07', '--json', '--config', config]);
        assert.equal(result.code, 0, result.stderr);
        const rows = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { custodianId: string; kind: string; status: string; messageId: string });
        assert.deepEqual(rows.map((r) => `${r.custodianId} ${r.kind} ${r.status} ${r.messageId}`), [
          'demo-custodian Holdings on_time H-EASTER-EARLY', 'demo-custodian Transactions late T-EASTER-LATE',
          'north-custodian Holdings on_time NH-EASTER', 'north-custodian Transactions on_time NT-EASTER',
        ]);
        const late = await runCliToEnd(['reports', '--from', '2026-04-07', '--to', '2026-04-07', '--late', '--config', config]);
        assert.equal(late.code, 0, late.stderr);
        assert.equal(late.stdout.trim().split('\n').length, 2, 'the header and the one late report');
        assert.match(late.stdout, /\n2026-04-07 +demo-custodian +Transactions +late +2026-04-07T06:30:00.000Z +2026-04-07T06:45:00.000Z +T-EASTER-LATE/);
        const bad = await runCliToEnd(['reports', '--from', 'yesterday', '--config', config]);
        assert.equal(bad.code, 2);
        assert.match(bad.stderr, /REQUEST_INVALID/);
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    });

    test('across the DST changes the deadline stays 08:30 Stockholm time', async () => {
      // Monday 2026-03-30 is the first banking day of summer time (08:30 = 06:30Z);
      // Monday 2026-10-26 the first of winter time (08:30 = 07:30Z).
      await arrive('demo-custodian', 'Holdings', '2026-03-27', '2026-03-30T06:45:00Z', 'H-SPRING');
      await arrive('demo-custodian', 'Holdings', '2026-10-23', '2026-10-26T07:15:00Z', 'H-AUTUMN');
      const views = await listCustodianReports(gateway.deps.db, ['demo-custodian'], { from: '2026-03-30', to: '2026-03-30' }, FIXED_NOW);
      const autumn = await listCustodianReports(gateway.deps.db, ['demo-custodian'], { from: '2026-10-26', to: '2026-10-26' }, FIXED_NOW);
      assert.deepEqual([...views, ...autumn].map((v) => `${v.dueDay} ${v.kind} ${v.status} ${v.deadline} ${v.arrivedAt ?? '-'}`), [
        '2026-03-30 Holdings late 2026-03-30T06:30:00.000Z 2026-03-30T06:45:00.000Z',
        '2026-03-30 Transactions missing 2026-03-30T06:30:00.000Z -',
        '2026-10-26 Holdings on_time 2026-10-26T07:30:00.000Z 2026-10-26T07:15:00.000Z',
        '2026-10-26 Transactions missing 2026-10-26T07:30:00.000Z -',
      ]);
    });

    test('the calendar job runs each check once, and its periods are the banking-day check times', async () => {
      const job = reportDeadlineJob({ ...deps, catchUpBankingDays: 2 });
      assert.deepEqual(job.duePeriods(new Date('2026-04-07T07:00:00Z')), ['2026-04-02 08:31', '2026-04-02 10:00', '2026-04-07 08:31']);
      const mails = sink.mails.length;
      const now = new Date('2026-04-07T07:00:00Z');
      assert.deepEqual(await runDuePeriods(gateway.deps.db, job, now, silent), ['2026-04-02 08:31', '2026-04-02 10:00', '2026-04-07 08:31']);
      assert.deepEqual(await runDuePeriods(gateway.deps.db, job, now, silent), [], 'a second run finds every period recorded');
      // 2026-04-02's reports (as of 04-01) were never sent: one notice for that day, nothing new for 04-07.
      // The same first run finds the demo custodian's CostAndCharges of 2024 missing: a notice of its own.
      await waitFor(() => sink.mails.length === mails + 2, 'the catch-up notices');
      const [daily, annual] = sink.mails.slice(mails);
      assert.deepEqual(listed(daily!.parsed.text ?? '', 'Missing'), [
        '2026-04-02 demo-custodian Holdings', '2026-04-02 demo-custodian Transactions', '2026-04-02 north-custodian Holdings', '2026-04-02 north-custodian Transactions',
      ]);
      assert.deepEqual(listed(annual!.parsed.text ?? '', 'Missing'), ['2024 demo-custodian CostAndCharges']);
    });
  });

  describe('the calendar scheduler in the worker role', () => {
    let database: TestDatabase;
    let gateway: TestGateway;
    let folder: string;

    beforeAll(async () => {
      database = await createTestDatabase();
      folder = await mkdtemp(join(tmpdir(), 'dg-reports-'));
      // The gateway last ran its checks on Wednesday 2026-11-18, then was down
      // Thursday and Friday; it starts again on Sunday 2026-11-22 (FIXED_NOW).
      const db = await openPostgresDatabase({ url: database.url });
      try {
        await migrate(db);
        const job = reportDeadlineJob({ custodians: [], mailSender: undefined, operationsAddress: undefined, log: silent });
        const before = job.duePeriods(FIXED_NOW).filter((period) => period < '2026-11-19');
        for (const period of before) await db.query('INSERT INTO calendar_runs (job, period, completed_at) VALUES ($1, $2, $3)', [job.name, period, FIXED_NOW]);
        // It has known its custodians since long before the outage.
        await db.query("INSERT INTO custodians_first_seen (custodian_id, first_seen_at) SELECT unnest($1::text[]), '2024-01-01T00:00:00Z'", [[...EXPECTED, 'quiet-custodian']]);
      } finally {
        await db.close();
      }
    });
    afterAll(async () => {
      await gateway.destroy();
      await database.drop();
      await rm(folder, { recursive: true, force: true });
    });

    test('catch-up at start records both missed banking days, mails one notice, and the API and CLI show them', async () => {
      const mails = sink.mails.length;
      gateway = await startTestGateway({ roles: ['worker', 'api'], database, settings: reportSettings(sink) });
      await waitFor(async () => (await gateway.deps.db.query("SELECT 1 FROM calendar_runs WHERE period = '2026-11-20 10:00'")).rows.length > 0, 'the catch-up');
      assert.deepEqual(await deadlineRows(gateway.deps.db, '2026-11-01', '2026-11-30'), [
        '2026-11-19 demo-custodian Holdings missing - notified',
        '2026-11-19 demo-custodian Transactions missing - notified',
        '2026-11-19 north-custodian Holdings missing - notified',
        '2026-11-19 north-custodian Transactions missing - notified',
        '2026-11-20 demo-custodian Holdings missing - notified',
        '2026-11-20 demo-custodian Transactions missing - notified',
        '2026-11-20 north-custodian Holdings missing - notified',
        '2026-11-20 north-custodian Transactions missing - notified',
      ]);
      // Only the deadline check's runs: the debit and payout jobs catch up at the same start.
      const { rows: runs } = await gateway.deps.db.query<{ period: string }>(
        "SELECT period FROM calendar_runs WHERE job = $1 AND period >= '2026-11-19' ORDER BY period", [DEADLINE_CHECK_JOB],
      );
      assert.deepEqual(runs.map((r) => r.period), ['2026-11-19 08:31', '2026-11-19 10:00', '2026-11-20 08:31', '2026-11-20 10:00']);
      await waitFor(() => sink.mails.length >= mails + 2, 'the notices');
      await new Promise((resolve) => setTimeout(resolve, 200));
      // One notice for the whole outage, and one of the demo custodian's CostAndCharges of 2025, missing since 30 April.
      assert.equal(sink.mails.length, mails + 2, 'one daily notice for the whole outage, one annual');
      const [daily, annual] = sink.mails.slice(mails);
      assert.equal(listed(daily!.parsed.text ?? '', 'Missing').length, 8);
      assert.deepEqual(listed(annual!.parsed.text ?? '', 'Missing'), ['2025 demo-custodian CostAndCharges']);

      // The cron schedulers are in Redis, in Stockholm time.
      const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
      const queue = new Queue('calendar', { connection, prefix: gateway.config.queuePrefix });
      try {
        const schedulers = await queue.getJobSchedulers(0, -1, true);
        assert.deepEqual(schedulers.map((s) => `${s.key} ${s.pattern} ${s.tz}`).filter((key) => key.startsWith('report-deadlines')).sort(), [
          `report-deadlines#0 31 8 * * 1-5 ${CALENDAR_TIME_ZONE}`, `report-deadlines#1 0 10 * * 1-5 ${CALENDAR_TIME_ZONE}`,
        ]);
      } finally {
        await queue.close();
        connection.disconnect();
      }

      // The staff API: a banking-day range, filtered by status.
      const address = gateway.http!.server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const auth = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
      const response = await fetch(`http://127.0.0.1:${port}/api/custodian-reports?from=2026-11-19&to=2026-11-22&status=missing,late`, { headers: auth });
      assert.equal(response.status, 200);
      const { reports } = (await response.json()) as { reports: { custodianId: string; kind: string; dueDay: string; status: string; deadline: string; notifiedAt: string | null }[] };
      assert.equal(reports.length, 8);
      expect(reports[0]).toStrictEqual({ custodianId: 'demo-custodian', kind: 'Holdings', dueDay: '2026-11-19', deadline: '2026-11-19T07:30:00.000Z', status: 'missing', arrivedAt: null, messageId: null, notifiedAt: FIXED_NOW.toISOString() });
      assert.ok(reports.every((r) => r.custodianId !== 'quiet-custodian'));
      const bad = await fetch(`http://127.0.0.1:${port}/api/custodian-reports?from=2026-11-31`, { headers: auth });
      assert.equal(bad.status, 400);
      assert.equal(((await bad.json()) as { code: string }).code, 'REQUEST_INVALID');
      assert.equal((await fetch(`http://127.0.0.1:${port}/api/custodian-reports`)).status, 401);

      // The CLI, through the running gateway's staff API.
      const config = await writeConfigFile(folder, { ...testSettings(join(folder, 'data'), { databaseUrl: database.url, port, logLevel: 'warn' }), ...reportSettings(sink) });
      const json = await runCliToEnd(['reports', '--from', '2026-11-19', '--to', '2026-11-20', '--late', '--json', '--config', config]);
      assert.equal(json.code, 0, json.stderr);
      const lines = json.stdout.trim().split('\n').map((line) => JSON.parse(line) as { custodianId: string; dueDay: string; status: string });
      assert.deepEqual(lines.map((l) => `${l.dueDay} ${l.custodianId} ${l.status}`), [
        '2026-11-19 demo-custodian missing', '2026-11-19 demo-custodian missing', '2026-11-19 north-custodian missing', '2026-11-19 north-custodian missing',
        '2026-11-20 demo-custodian missing', '2026-11-20 demo-custodian missing', '2026-11-20 north-custodian missing', '2026-11-20 north-custodian missing',
      ]);
      const human = await runCliToEnd(['reports', '--from', '2026-11-20', '--to', '2026-11-20', '--config', config]);
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /^DUE DAY +CUSTODIAN +KIND +STATUS +DEADLINE/);
      assert.match(human.stdout, /\n2026-11-20 +north-custodian +Transactions +missing +2026-11-20T07:30:00.000Z/);
    });
  });

  describe('the first start of a new installation', () => {
    let database: TestDatabase;
    let gateway: TestGateway | undefined;

    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(async () => {
      await gateway?.destroy();
      await database.drop();
    });

    /** A gateway started at `clock`, once its catch-up at start has run the check of `lastPeriod`. */
    const startedAt = async (clock: Date, lastPeriod: string) => {
      gateway = await startTestGateway({ roles: ['worker', 'api'], database, keepDatabase: true, clock: () => clock, settings: reportSettings(sink) });
      await waitFor(async () => (await gateway!.deps.db.query('SELECT 1 FROM calendar_runs WHERE job = $1 AND period = $2', [DEADLINE_CHECK_JOB, lastPeriod])).rows.length > 0, 'the catch-up at start');
      return gateway;
    };

    test('mails nothing missing for the days before its custodians were configured, and expects their reports from then on', async () => {
      const mails = sink.mails.length;
      // Sunday 2026-11-22: the catch-up at start covers ten banking days back and the account year 2025.
      const first = await startedAt(FIXED_NOW, '2026-11-20 10:00');
      const { rows: seen } = await first.deps.db.query<{ custodian_id: string; first_seen_at: Date }>('SELECT custodian_id, first_seen_at FROM custodians_first_seen ORDER BY custodian_id');
      assert.deepEqual(seen.map((r) => `${r.custodian_id} ${r.first_seen_at.toISOString()}`), [
        `demo-custodian ${FIXED_NOW.toISOString()}`, `north-custodian ${FIXED_NOW.toISOString()}`, `quiet-custodian ${FIXED_NOW.toISOString()}`,
      ]);
      assert.deepEqual(await deadlineRows(first.deps.db, '2026-01-01', '2026-12-31'), [], 'no daily report recorded missing');
      assert.deepEqual((await first.deps.db.query('SELECT custodian_id, year FROM custodian_annual_report_deadlines')).rows, [], 'no CostAndCharges of 2025 recorded missing');
      const auth = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
      const listing = await first.http!.inject({ url: '/api/custodian-reports?from=2026-11-09&to=2026-11-22', headers: auth });
      assert.deepEqual((listing.json() as { reports: unknown[] }).reports, [], 'nothing was due after the custodians were configured');
      const annual = await first.http!.inject({ url: '/api/custodian-reports/annual?year=2025', headers: auth });
      assert.deepEqual((annual.json() as { reports: unknown[] }).reports, []);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(sink.mails.length, mails, 'no notice mailed');

      // A later start keeps the day the custodians were first seen.
      await first.close();
      gateway = undefined;
      const second = await startedAt(new Date('2026-11-24T12:00:00Z'), '2026-11-24 10:00');
      const { rows: kept } = await second.deps.db.query<{ first_seen_at: Date }>('SELECT DISTINCT first_seen_at FROM custodians_first_seen');
      assert.deepEqual(kept.map((r) => r.first_seen_at.toISOString()), [FIXED_NOW.toISOString()]);

      // The reports due on Monday 2026-11-23, the first banking day after the first start, are expected.
      assert.deepEqual(await deadlineRows(second.deps.db, '2026-01-01', '2026-12-31'), [
        '2026-11-23 demo-custodian Holdings missing - notified', '2026-11-23 demo-custodian Transactions missing - notified',
        '2026-11-23 north-custodian Holdings missing - notified', '2026-11-23 north-custodian Transactions missing - notified',
        '2026-11-24 demo-custodian Holdings missing - notified', '2026-11-24 demo-custodian Transactions missing - notified',
        '2026-11-24 north-custodian Holdings missing - notified', '2026-11-24 north-custodian Transactions missing - notified',
      ]);
      await waitFor(() => sink.mails.length === mails + 1, 'the notice of 23 and 24 November');
      const notice = sink.mails.at(-1)!;
      assert.equal(notice.parsed.subject, 'depot-gateway: custodian reports 8 missing');
      assert.match(notice.parsed.text ?? '', /Check made at 2026-11-24 13:00:00. All times are Stockholm time./);
      assert.match(notice.parsed.text ?? '', /\n {2}2026-11-23 {2}demo-custodian +Holdings +due 2026-11-23 08:30:00\n/);
    });
  });
});
