/**
 * Debit and payout runs on the demo ledger in the real PostgreSQL, with the custody
 * values and deposits a custodian would have reported inserted by the test: a full
 * year of debit runs (February 2024 — Q4 2023 and the yield tax on the 2024 opening
 * value — then April, July and October) for a P, a T and a K insurance, every amount
 * of every file against figures worked out by hand; repeats that change nothing; a
 * failed delivery that leaves the run stored and its recorded file delivered by the run
 * made again; monthly payouts until paid out; insurances that end (paid out, or ended by
 * staff through the API and the CLI) charged to their last day and no further, without
 * tax on an opening value or payouts after it; and the runs missed while the gateway was
 * down, made at start.
 */
import { test, beforeAll, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createSmtpSender } from '../src/channels/mail/smtp.sender.ts';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import type { Sql } from '../src/ledger/database.ts';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { makeRun, runDebitRun, runDepsFrom, type RunDeps } from '../src/calendar/debit-run.ts';
import { runPayoutRun, schedulePayout } from '../src/calendar/payout-run.ts';

/** The insured's registered payout account, as staff register a payout. */
const PAYOUT_REGISTRATION = { withdrawalAccount: '50001234560', registeredBy: 'staff:test' };
import { listPayoutNotices, mailPayoutNotices, payoutNoticeJob } from '../src/calendar/payout-notices.job.ts';
import { runDuePeriods } from '../src/calendar/calendar.scheduler.ts';
import { createDemoLedgerTemplate, createTestDatabase, deleteQueues, startTestGateway, testSettings, waitFor, type TestDatabase, type TestGateway } from './support/harness.ts';
import { freePort, runCliToEnd, writeConfigFile } from './support/processes.ts';
import { startSmtpSink } from './support/smtp-sink.ts';

const CUSTOMER_SERVICE = 'customer.service@insurer.example';

const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));
let template: TestDatabase;

beforeAll(async () => {
  template = await createDemoLedgerTemplate();
});
afterAll(() => template?.drop());

async function gatewayOnDemoLedger(options: Parameters<typeof startTestGateway>[0] = {}): Promise<TestGateway> {
  const database = await createTestDatabase(template.name);
  const gateway = await startTestGateway({ roles: [], inline: true, database, ...options });
  const destroy = gateway.destroy;
  return { ...gateway, destroy: async () => { await destroy(); await database.drop(); } };
}

function runDeps(gateway: TestGateway): RunDeps {
  return runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log);
}

/**
 * The facts of 2023-Q4 … 2024-Q3. A private pension (P) is added: INS-100007 for Bertil
 * on DEPA-100007, 360 a year and 0.4 %. The demo's T (INS-100001, DEPA-100001) and K
 * (INS-100006, DEPA-100006) carry 360 and 0.35 %. Each account gets a value on the first
 * day of each quarter (carried over every day of it) and the 31 December value.
 */
async function insertYear(sql: Sql): Promise<void> {
  await sql.exec(`
    INSERT INTO insurances (insurance_number, insured_pin, product_code, start_date, policyholder, custody_account)
      VALUES ('INS-100007', '198002021239', 'PPF-DEPA', '2020-01-01', '198002021239', 'DEPA-100007');
    INSERT INTO insurance_fees (insurance_number, fee_type, value, effective_date)
      VALUES ('INS-100007', 'FixedCharge', 360, '2020-01-01'), ('INS-100007', 'CapitalCharge', 0.4, '2020-01-01');
    INSERT INTO custody_accounts (account_number, custodian_id, opened_on) VALUES ('DEPA-100007', 'demo-custodian', '2020-01-01');
    INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
    SELECT account_number, as_of::date, cash, total_value - cash, total_value, 1, 'test' FROM (VALUES
      ('DEPA-100007', '2023-10-01', 5000.00, 1000000.00), ('DEPA-100007', '2023-12-31', 5000.00, 1100000.00),
      ('DEPA-100007', '2024-01-01', 2000.00, 1120000.00), ('DEPA-100007', '2024-04-01', 2000.00, 1150000.00),
      ('DEPA-100007', '2024-07-01', 20000.00, 1180000.00),
      ('DEPA-100001', '2023-10-01', 50000.00, 500000.00), ('DEPA-100001', '2023-12-31', 50000.00, 520000.00),
      ('DEPA-100001', '2024-01-01', 50000.00, 530000.00), ('DEPA-100001', '2024-04-01', 50000.00, 540000.00),
      ('DEPA-100001', '2024-07-01', 50000.00, 550000.00),
      ('DEPA-100006', '2023-10-01', 100.00, 300000.00), ('DEPA-100006', '2023-12-31', 100.00, 310000.00),
      ('DEPA-100006', '2024-01-01', 100.00, 320000.00), ('DEPA-100006', '2024-04-01', 10000.00, 330000.00),
      ('DEPA-100006', '2024-07-01', 10000.00, 340000.00)
    ) AS v(account_number, as_of, cash, total_value);
    INSERT INTO custody_transactions (account_number, transaction_id, transaction_type, trade_date, settlement_date, amount, currency, message_id)
    SELECT 'DEPA-100006', id, 'Deposit', d::date, d::date, amount, 'SEK', 'test' FROM (VALUES
      ('T1', '2023-11-15', 10000.00), ('T2', '2024-02-10', 20000.00), ('T3', '2024-06-30', 5000.00), ('T4', '2024-07-01', 8000.00)
    ) AS t(id, d, amount);
  `);
}

type Lines = Record<string, Record<string, string>>;

/** Account → { "Charge[/Basis]": amount, "SellOrder": amount, "Payout": amount … } from a DebitAccounts file. */
function linesOf(xml: string): Lines {
  const result: Lines = {};
  for (const [, account] of xml.matchAll(/<Account>([\s\S]*?)<\/Account>/g)) {
    const number = /<AccountNumber>([^<]+)/.exec(account!)![1]!;
    const lines: Record<string, string> = {};
    for (const [, debit] of account!.matchAll(/<Debit>([\s\S]*?)<\/Debit>/g)) {
      const charge = /<Charge>([^<]+)/.exec(debit!)![1]!;
      const basis = /<Basis>([^<]+)/.exec(debit!)?.[1];
      lines[basis ? `${charge}/${basis}` : charge] = /<Amount>([^<]+)/.exec(debit!)![1]!;
    }
    for (const [, order] of account!.matchAll(/<SellOrder>([\s\S]*?)<\/SellOrder>/g)) {
      lines.SellOrder = /<Amount>([^<]+)/.exec(order!)![1]!;
      lines.SellBy = /<SellBy>([^<]+)/.exec(order!)![1]!;
    }
    const payout = /<Payout>([\s\S]*?)<\/Payout>/.exec(account!)?.[1];
    if (payout) {
      lines.Payout = /<Amount>([^<]+)/.exec(payout)![1]!;
      lines.PayBy = /<PayBy>([^<]+)/.exec(payout)![1]!;
      lines.Installment = /<Installment>([^<]+)/.exec(payout)![1]!;
      lines.Final = /<Final>([^<]+)/.exec(payout)![1]!;
    }
    result[number] = lines;
  }
  return result;
}

async function outboxFile(gateway: TestGateway, name: string): Promise<string> {
  const xml = await readFile(join(gateway.outbox('demo-custodian'), name), 'utf8');
  assert.deepEqual(schemas.validate(xml, 'DebitAccounts'), [], `${name} is valid against DebitAccounts.xsd`);
  return xml;
}

const xmlFiles = async (gateway: TestGateway) => (await readdir(gateway.outbox('demo-custodian'))).filter((name) => name.endsWith('.xml')).sort();

test('a year of debit runs for a P, a T and a K insurance, to the öre; a repeat changes nothing', async () => {
  const gateway = await gatewayOnDemoLedger();
  try {
    const { db } = gateway.deps;
    await insertYear(db);
    const deps = runDeps(gateway);
    const at = new Date('2024-11-01T08:00:00Z');
    for (const [year, quarter] of [[2023, 4], [2024, 1], [2024, 2], [2024, 3]] as const) {
      const summary = await makeRun(db, deps, (tx) => runDebitRun(tx, deps, { year, quarter }, at));
      assert.equal(summary.created.length, 1);
      // DEPA-100002, -100003 and -100005 have no custody values: held, not guessed; DEPA-100004 is not in force until 2026.
      assert.deepEqual(summary.created[0]?.held.map((h) => h.accountNumber), ['DEPA-100002', 'DEPA-100003', 'DEPA-100005']);
    }

    // February 2024: Q4 2023 (92 days in a 365-day year) and the yield tax on the 31 December 2023 values.
    const february = await outboxFile(gateway, 'debit-run-2023-Q4.DebitAccounts.xml');
    assert.match(february, /<DebitRun>\s*<Year>2023<\/Year>\s*<Quarter>4<\/Quarter>\s*<RunDate>2024-02-29<\/RunDate>/);
    assert.match(february, /<MessageId>DA-2023-Q4-demo-custodian<\/MessageId>/);
    assert.match(february, /<InsurerOrganisationNumber>5560360793<\/InsurerOrganisationNumber>\s*<CustodianOrganisationNumber>5560000001<\/CustodianOrganisationNumber>/);
    assert.deepEqual(linesOf(february), {
      // T: value-days 91 × 500 000 + 520 000 = 46 020 000; × 0.35 % / 365 = 161 070 / 365 = 441.287… → 441.29.
      // Yield tax 2024 P/T 0.372 % of 520 000.00 = 1 934.40. Total 2 465.69 ≤ cash 50 000: no sell order.
      'DEPA-100001': { FixedCharge: '90.00', CapitalCharge: '441.29', 'YieldTax/OpeningValue': '1934.40' },
      // K: value-days 91 × 300 000 + 310 000 = 27 610 000; capital × 0.35 % / 365 = 96 635 / 365 = 264.753… → 264.75.
      // Repayment protection, 53 on 2023-10-01 (band 50–59, 0.25 a month per 1 000): 27 610 000 × 0.25 × 3 / (1 000 × 92) = 225.0815… → 225.08.
      // Deposit 2023-11-15 10 000 at 2023's 0.882 %, second half: / 2 = 44.10. Opening 310 000 × 1.086 % = 3 366.60.
      // Total 90 + 264.75 + 225.08 + 44.10 + 3 366.60 = 3 990.53; cash on the run date (2024-01-01's) 100.00: sell 3 890.53.
      'DEPA-100006': {
        FixedCharge: '90.00', CapitalCharge: '264.75', RiskPremium: '225.08', 'YieldTax/Deposits': '44.10', 'YieldTax/OpeningValue': '3366.60',
        SellOrder: '3890.53', SellBy: '2024-02-29',
      },
      // P: value-days 91 × 1 000 000 + 1 100 000 = 92 100 000; × 0.4 % / 365 = 368 400 / 365 = 1 009.315… → 1 009.32.
      // Yield tax 1 100 000 × 0.372 % = 4 092.00. Total 5 191.32; cash 2 000.00: sell 3 191.32.
      'DEPA-100007': { FixedCharge: '90.00', CapitalCharge: '1009.32', 'YieldTax/OpeningValue': '4092.00', SellOrder: '3191.32', SellBy: '2024-02-29' },
    });

    // April 2024: Q1, 91 days of a 366-day year.
    assert.deepEqual(linesOf(await outboxFile(gateway, 'debit-run-2024-Q1.DebitAccounts.xml')), {
      'DEPA-100001': { FixedCharge: '90.00', CapitalCharge: '461.22' }, // 530 000 × 91 × 0.35 % / 366 = 168 805 / 366 = 461.215… → 461.22
      // K: 320 000 × 91 × 0.35 % / 366 = 101 920 / 366 = 278.469… → 278.47; risk 320 000 / 1 000 × 0.25 × 3 = 240.00;
      // deposit 2024-02-10 20 000 × 1.086 % = 217.20. Total 825.67; cash on the run date 04-30 (2024-04-01's) 10 000.00 covers it.
      'DEPA-100006': { FixedCharge: '90.00', CapitalCharge: '278.47', RiskPremium: '240.00', 'YieldTax/Deposits': '217.20' },
      'DEPA-100007': { FixedCharge: '90.00', CapitalCharge: '1113.88' }, // 1 120 000 × 91 × 0.4 % / 366 = 407 680 / 366 = 1 113.879… → 1 113.88; cash 2 000 covers 1 203.88
    });

    // July 2024: Q2, 91 days.
    assert.deepEqual(linesOf(await outboxFile(gateway, 'debit-run-2024-Q2.DebitAccounts.xml')), {
      'DEPA-100001': { FixedCharge: '90.00', CapitalCharge: '469.92' }, // 540 000 × 91 × 0.35 % / 366 = 171 990 / 366 = 469.918… → 469.92
      // K: 330 000 × 91 × 0.35 % / 366 = 105 105 / 366 = 287.172… → 287.17; risk 330 × 0.75 = 247.50;
      // deposit 2024-06-30 (first half, in full) 5 000 × 1.086 % = 54.30.
      'DEPA-100006': { FixedCharge: '90.00', CapitalCharge: '287.17', RiskPremium: '247.50', 'YieldTax/Deposits': '54.30' },
      'DEPA-100007': { FixedCharge: '90.00', CapitalCharge: '1143.72' }, // 1 150 000 × 91 × 0.4 % / 366 = 418 600 / 366 = 1 143.715… → 1 143.72
    });

    // October 2024: Q3, 92 days.
    assert.deepEqual(linesOf(await outboxFile(gateway, 'debit-run-2024-Q3.DebitAccounts.xml')), {
      'DEPA-100001': { FixedCharge: '90.00', CapitalCharge: '483.88' }, // 550 000 × 92 × 0.35 % / 366 = 177 100 / 366 = 483.879… → 483.88
      // K: 340 000 × 92 × 0.35 % / 366 = 109 480 / 366 = 299.125… → 299.13; risk 340 × 0.75 = 255.00 (54 on 2024-07-01);
      // deposit 2024-07-01 (second half) 8 000 × 1.086 % / 2 = 43.44.
      'DEPA-100006': { FixedCharge: '90.00', CapitalCharge: '299.13', RiskPremium: '255.00', 'YieldTax/Deposits': '43.44' },
      'DEPA-100007': { FixedCharge: '90.00', CapitalCharge: '1186.45' }, // 1 180 000 × 92 × 0.4 % / 366 = 434 240 / 366 = 1 186.448… → 1 186.45
    });

    // The ledger holds the same lines: the year's debits per insurance add up.
    const { rows: totals } = await db.query<{ insurance_number: string; total: string }>(
      `SELECT insurance_number, sum(amount)::text AS total FROM debit_lines WHERE charge <> 'SellOrder' GROUP BY insurance_number ORDER BY insurance_number`,
    );
    assert.deepEqual(totals, [
      { insurance_number: 'INS-100001', total: '4150.71' }, // 2 465.69 + 551.22 + 559.92 + 573.88
      { insurance_number: 'INS-100006', total: '6182.74' }, // 3 990.53 + 825.67 + 678.97 + 687.57
      { insurance_number: 'INS-100007', total: '8905.37' }, // 5 191.32 + 1 203.88 + 1 233.72 + 1 276.45
    ]);

    // A repeat of any run finds its row: no new document, no new file, the files untouched.
    const before = await Promise.all((await xmlFiles(gateway)).map((name) => outboxFile(gateway, name)));
    const again = await makeRun(db, deps, (tx) => runDebitRun(tx, deps, { year: 2024, quarter: 1 }, new Date('2024-12-01T08:00:00Z')));
    assert.deepEqual([again.created, again.delivered], [[], []]);
    expect(await xmlFiles(gateway)).toEqual(['debit-run-2023-Q4.DebitAccounts.xml', 'debit-run-2024-Q1.DebitAccounts.xml', 'debit-run-2024-Q2.DebitAccounts.xml', 'debit-run-2024-Q3.DebitAccounts.xml']);
    assert.deepEqual(await Promise.all((await xmlFiles(gateway)).map((name) => outboxFile(gateway, name))), before);
    const { rows: counts } = await db.query<{ runs: number; documents: number; delivered: number }>(
      `SELECT (SELECT count(*)::int FROM debit_runs) AS runs, (SELECT count(*)::int FROM outgoing_documents) AS documents,
              (SELECT count(*)::int FROM outgoing_documents WHERE delivered_at IS NOT NULL) AS delivered`,
    );
    assert.deepEqual(counts[0], { runs: 4, documents: 4, delivered: 4 });
  } finally {
    await gateway.destroy();
  }
});

test('a failed delivery leaves the run stored; the run made again delivers the recorded file, not a new one', async () => {
  const gateway = await gatewayOnDemoLedger();
  try {
    const { db } = gateway.deps;
    await insertYear(db);
    const deps = runDeps(gateway);
    const outbox = gateway.outbox('demo-custodian');
    await rm(outbox, { recursive: true, force: true });
    await writeFile(outbox, 'not a folder'); // the outbox cannot be written
    const first = await makeRun(db, deps, (tx) => runDebitRun(tx, deps, { year: 2024, quarter: 3 }, new Date('2024-11-01T08:00:00Z')));
    assert.deepEqual([first.created.map((c) => c.documentId), first.delivered, first.undelivered], [['DA-2024-Q3-demo-custodian'], [], ['DA-2024-Q3-demo-custodian']]);
    // The debits are stored with the document, whatever became of its delivery.
    const { rows: stored } = await db.query<{ runs: number; lines: number; file_name: string; body: string; delivered_at: Date | null }>(
      `SELECT (SELECT count(*)::int FROM debit_runs) AS runs, (SELECT count(*)::int FROM debit_lines) AS lines, file_name, body, delivered_at
         FROM outgoing_documents`,
    );
    assert.equal(stored.length, 1);
    const recorded = stored[0]!;
    assert.deepEqual([recorded.runs, recorded.lines > 0, recorded.file_name, recorded.delivered_at], [1, true, 'debit-run-2024-Q3.DebitAccounts.xml', null]);
    const { rows: attempts } = await db.query<{ outcome: string; error: string }>('SELECT outcome, error FROM outgoing_deliveries ORDER BY id');
    assert.deepEqual(attempts.map((a) => a.outcome), ['failed']);
    assert.match(attempts[0]!.error, /debit-run-2024-Q3\.DebitAccounts\.xml/);

    // An hour later the outbox is back; the run made again finds its row, makes nothing
    // new, and delivers the file recorded at 08:00 — same bytes, same name.
    await rm(outbox, { force: true });
    await mkdir(outbox);
    const retried = await makeRun(db, deps, (tx) => runDebitRun(tx, deps, { year: 2024, quarter: 3 }, new Date('2024-11-01T09:00:00Z')));
    assert.deepEqual([retried.created, retried.undelivered], [[], []]);
    assert.deepEqual(retried.delivered, [{ documentId: 'DA-2024-Q3-demo-custodian', target: join(outbox, 'debit-run-2024-Q3.DebitAccounts.xml') }]);
    expect(await xmlFiles(gateway)).toEqual(['debit-run-2024-Q3.DebitAccounts.xml']);
    assert.equal(await outboxFile(gateway, 'debit-run-2024-Q3.DebitAccounts.xml'), recorded.body);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM outgoing_documents');
    assert.equal(rows[0]?.n, 1);
  } finally {
    await gateway.destroy();
  }
});

test('February 2025: the P/T tax on the opening value is held for want of a 2025 rate while the charges are debited, and taken once the configuration sets one', async () => {
  const held = await gatewayOnDemoLedger();
  const configured = await gatewayOnDemoLedger({ settings: { charges: { yieldTaxRates: { 2025: { pt: '0.300' } } } } });
  try {
    for (const gateway of [held, configured]) await insertYear(gateway.deps.db);
    const at = new Date('2025-02-03T08:00:00Z');
    const without = await held.deps.db.transaction((tx) => runDebitRun(tx, runDeps(held), { year: 2024, quarter: 4 }, at, { dryRun: true }));
    assert.ok(!without.created[0]?.held.some((h) => h.accountNumber === 'DEPA-100001' || h.accountNumber === 'DEPA-100007'), 'the accounts are not held');
    const heldBack = without.created[0]?.heldTax ?? [];
    assert.deepEqual(heldBack.map((h) => [h.accountNumber, h.basis, h.taxYear, h.base]), [['DEPA-100001', 'OpeningValue', 2025, '550000.00'], ['DEPA-100007', 'OpeningValue', 2025, '1180000.00']]);
    assert.match(heldBack[0]?.reason ?? '', /No yield tax rate for P\/T in tax year 2025 .*charges\.yieldTaxRates/);
    const debited = linesOf(without.documents?.[0]?.body ?? '');
    assert.deepEqual(Object.keys(debited['DEPA-100001'] ?? {}), ['FixedCharge', 'CapitalCharge']);
    assert.equal(debited['DEPA-100006']?.['YieldTax/OpeningValue'], '3019.20', 'K has its 2025 rate');

    const withRate = await configured.deps.db.transaction((tx) => runDebitRun(tx, runDeps(configured), { year: 2024, quarter: 4 }, at, { dryRun: true }));
    assert.deepEqual(withRate.created[0]?.heldTax, []);
    const lines = linesOf(withRate.documents?.[0]?.body ?? '');
    // The latest values on or before 31 December 2024 are those of 1 July: 550 000.00 (T) and 1 180 000.00 (P), × 0.300 %.
    assert.equal(lines['DEPA-100001']?.['YieldTax/OpeningValue'], '1650.00');
    assert.equal(lines['DEPA-100007']?.['YieldTax/OpeningValue'], '3540.00');
    // K keeps its built-in 2025 rate, 0.888 % of 340 000.00.
    assert.equal(lines['DEPA-100006']?.['YieldTax/OpeningValue'], '3019.20');
  } finally {
    await held.destroy();
    await configured.destroy();
  }
});

test('an insurance in payout: a sell order by the 10th and a payout by the 22nd each month until paid out', async () => {
  const gateway = await gatewayOnDemoLedger();
  try {
    const { db } = gateway.deps;
    const deps = runDeps(gateway);
    await db.exec(`
      INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id) VALUES
        ('DEPA-100002', '2026-04-30', 0, 40000.00, 40000.00, 1, 'test'), ('DEPA-100002', '2026-05-29', 0, 30300.00, 30300.00, 1, 'test'),
        ('DEPA-100002', '2026-06-30', 0, 20000.00, 20000.00, 1, 'test'), ('DEPA-100002', '2026-07-31', 0, 10050.55, 10050.55, 1, 'test')`);
    await db.transaction((tx) => schedulePayout(tx, { insuranceNumber: 'INS-100002', startMonth: '2026-05', terms: { months: 4 }, registration: PAYOUT_REGISTRATION }, new Date('2026-04-15T08:00:00Z')));

    const months = ['2026-05', '2026-06', '2026-07', '2026-08', '2026-09'];
    for (const month of months) {
      await makeRun(db, deps, (tx) => runPayoutRun(tx, deps, month, new Date(`${month}-01T05:00:00Z`)));
      await makeRun(db, deps, (tx) => runPayoutRun(tx, deps, month, new Date(`${month}-02T05:00:00Z`))); // a repeat: nothing new
    }
    // September: paid out, no file.
    expect(await xmlFiles(gateway)).toEqual(months.slice(0, 4).map((m) => `payout-${m}.DebitAccounts.xml`));
    const installments = await Promise.all(months.slice(0, 4).map(async (m) => linesOf(await outboxFile(gateway, `payout-${m}.DebitAccounts.xml`))['DEPA-100002']));
    assert.deepEqual(installments, [
      // 40 000.00 / 4. 10 May 2026 is a Sunday: sell by Friday the 8th; the 22nd is a Friday.
      { SellOrder: '10000.00', SellBy: '2026-05-08', Payout: '10000.00', PayBy: '2026-05-22', Installment: '1', Final: 'false' },
      // 30 300.00 / 3 = 10 100.00; 10 June is a Wednesday, 22 June a Monday.
      { SellOrder: '10100.00', SellBy: '2026-06-10', Payout: '10100.00', PayBy: '2026-06-22', Installment: '2', Final: 'false' },
      // 20 000.00 / 2; 10 July a Friday, 22 July a Wednesday.
      { SellOrder: '10000.00', SellBy: '2026-07-10', Payout: '10000.00', PayBy: '2026-07-22', Installment: '3', Final: 'false' },
      // The rest, 10 050.55; 10 August a Monday; 22 August a Saturday: paid by Friday the 21st.
      { SellOrder: '10050.55', SellBy: '2026-08-10', Payout: '10050.55', PayBy: '2026-08-21', Installment: '4', Final: 'true' },
    ]);
    assert.match(await outboxFile(gateway, 'payout-2026-05.DebitAccounts.xml'), /<PayoutMonth>2026-05<\/PayoutMonth>/);
    const { rows: payout } = await db.query<{ status: string; completed_month: string; orders: number; notices: string }>(
      `SELECT p.status, p.completed_month, (SELECT count(*)::int FROM payout_orders o WHERE o.insurance_number = p.insurance_number) AS orders,
              (SELECT string_agg(first_month, ',') FROM payout_notices n WHERE n.insurance_number = p.insurance_number) AS notices
         FROM payouts p WHERE p.insurance_number = 'INS-100002'`,
    );
    // The insured is told once, with the first payout.
    assert.deepEqual(payout[0], { status: 'completed', completed_month: '2026-08', orders: 4, notices: '2026-05' });
  } finally {
    await gateway.destroy();
  }
});

test('insurances that end: paid out in June is charged to its last payout day and nothing from Q3; ended by staff on 15 October owes no opening-value tax', async () => {
  const gateway = await gatewayOnDemoLedger({ roles: ['api'] });
  const staff = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
  const end = (number: string, payload: object, headers: Record<string, string> = staff) =>
    gateway.http!.inject({ method: 'POST', url: `/api/insurances/${number}/end`, headers, payload });
  try {
    const { db } = gateway.deps;
    await insertYear(db);
    await db.exec(`
      INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
        VALUES ('DEPA-100006', '2024-12-31', 100.00, 349900.00, 350000.00, 1, 'test');
      INSERT INTO custody_transactions (account_number, transaction_id, transaction_type, trade_date, settlement_date, amount, currency, message_id)
        VALUES ('DEPA-100006', 'T5', 'Deposit', '2024-10-10', '2024-10-10', 2000.00, 'SEK', 'test'),
               ('DEPA-100006', 'T6', 'Deposit', '2024-11-01', '2024-11-01', 5000.00, 'SEK', 'test')`);
    const deps = runDeps(gateway);

    // The P insurance is paid out in one installment in June 2024: the payout run ends it on the pay-by day.
    await db.transaction((tx) => schedulePayout(tx, { insuranceNumber: 'INS-100007', startMonth: '2024-06', terms: { months: 1 }, registration: PAYOUT_REGISTRATION }, new Date('2024-05-15T08:00:00Z')));
    await makeRun(db, deps, (tx) => runPayoutRun(tx, deps, '2024-06', new Date('2024-06-01T05:00:00Z')));
    // 22 June 2024 is a Saturday and Friday the 21st Midsummer Eve: paid by Thursday the 20th.
    assert.equal(linesOf(await outboxFile(gateway, 'payout-2024-06.DebitAccounts.xml'))['DEPA-100007']?.PayBy, '2024-06-20');
    const ends = async () => (await db.query<{ insurance_number: string; end_date: string; end_cause: string; ended_by: string }>(
      `SELECT insurance_number, end_date::text, end_cause, ended_by FROM insurances WHERE end_date IS NOT NULL ORDER BY insurance_number`)).rows;
    assert.deepEqual(await ends(), [{ insurance_number: 'INS-100007', end_date: '2024-06-20', end_cause: 'paid-out', ended_by: 'payout-run' }]);

    // Staff record the K insured's death: last day in force 15 October 2024.
    assert.equal((await end('INS-100006', { cause: 'death', date: '2024-10-15' }, {})).statusCode, 401, 'staff only');
    const refused = await end('INS-100006', { cause: 'retired', date: '2024-10-32' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().message, /cause: one of paid-out, transferred-out, surrendered, death; date: the last day in force/);
    // Not after today (the test clock's 22 November 2026), nor before the insurance began (1 January 2022).
    const future = await end('INS-100006', { cause: 'death', date: '2026-11-23' });
    assert.equal(future.statusCode, 400);
    assert.match(future.json().message, /date: not after today \(2026-11-22\)/);
    const early = await end('INS-100006', { cause: 'death', date: '2021-12-31' });
    assert.equal(early.statusCode, 400);
    assert.match(early.json().message, /date: on or after the insurance's start, 2022-01-01/);
    const unknown = await end('INS-999999', { cause: 'death', date: '2024-10-15' });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().code, 'RESOURCE_NOT_FOUND');
    assert.equal((await ends()).length, 1, 'nothing recorded by a refused end');
    const ended = await end('INS-100006', { cause: 'death', date: '2024-10-15' });
    assert.equal(ended.statusCode, 201);
    // A K insurance with repayment protection, not in payout: the death records its death benefit on the
    // latest value reported (350 000.00 of 31 December 2024), the insurer's 1 % 3 500.00 (test/death-benefit.test.ts).
    const { deathBenefit, ...recorded } = ended.json() as { deathBenefit?: Record<string, unknown> };
    assert.deepEqual({ ...recorded, recordedAt: undefined }, { insuranceNumber: 'INS-100006', endDate: '2024-10-15', cause: 'death', endedBy: 'staff:staff', recordedAt: undefined });
    assert.deepEqual([deathBenefit?.custodyValue, deathBenefit?.valueAsOf, deathBenefit?.insurerAmount], ['350000.00', '2024-12-31', '3500.00']);
    const again = await end('INS-100006', { cause: 'surrendered', date: '2024-11-01' });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().code, 'INSURANCE_ALREADY_ENDED');
    assert.match(again.json().message, /ended 2024-10-15 \(death\), recorded by staff:staff/);

    const at = new Date('2025-05-01T08:00:00Z');
    for (const [year, quarter] of [[2024, 2], [2024, 3], [2024, 4], [2025, 1]] as const) await makeRun(db, deps, (tx) => runDebitRun(tx, deps, { year, quarter }, at));
    // Q2: the P insurance 1 April – 20 June, 81 of 91 days. Fixed 360 × 81 / 364 = 80.1098… → 80.11;
    // capital 1 150 000.00 × 81 × 0.4 % / 366 = 372 600 / 366 = 1 018.0327… → 1 018.03. Cash 20 000 covers it.
    assert.deepEqual(linesOf(await outboxFile(gateway, 'debit-run-2024-Q2.DebitAccounts.xml'))['DEPA-100007'], { FixedCharge: '80.11', CapitalCharge: '1018.03' });
    // Q3: nothing for it, though the ledger still holds values for its account.
    const q3 = linesOf(await outboxFile(gateway, 'debit-run-2024-Q3.DebitAccounts.xml'));
    assert.equal(q3['DEPA-100007'], undefined);
    assert.ok(q3['DEPA-100006'], 'the K insurance, still in force, is debited for Q3');
    // February 2025 (Q4 2024): the K insurance 1–15 October, 15 of 92 days, at 340 000.00.
    const february = linesOf(await outboxFile(gateway, 'debit-run-2024-Q4.DebitAccounts.xml'))['DEPA-100006'];
    assert.equal(february?.FixedCharge, '14.67'); // 360 × 15 / 368 = 14.6739… → 14.67
    assert.equal(february?.CapitalCharge, '48.77'); // 340 000.00 × 15 × 0.35 % / 366 = 17 850 / 366 = 48.7704… → 48.77
    // Only the deposit of 10 October, while in force: 2 000.00 × 1.086 % / 2 = 10.86. The 1 November one is not taxed.
    assert.equal(february?.['YieldTax/Deposits'], '10.86');
    // Not in force on 1 January 2025: no tax on the 350 000.00 of 31 December.
    assert.equal(february?.['YieldTax/OpeningValue'], undefined);
    // April 2025 (Q1 2025): no line for it; the T insurance still in force is debited.
    const april = linesOf(await outboxFile(gateway, 'debit-run-2025-Q1.DebitAccounts.xml'));
    assert.deepEqual(Object.keys(april), ['DEPA-100001']);
    const { rows: lines } = await db.query<{ run_key: string; charge: string; period_to: string }>(
      `SELECT run_key, charge, max(period_to)::text AS period_to FROM debit_lines
        WHERE insurance_number IN ('INS-100006', 'INS-100007') AND run_key LIKE '%-Q%' AND charge <> 'SellOrder' GROUP BY run_key, insurance_number, charge
        HAVING max(period_to) > (SELECT end_date FROM insurances i WHERE i.insurance_number = debit_lines.insurance_number)`,
    );
    assert.deepEqual(lines, [], 'no charge line runs past an end date (a sell order to pay them is dated on the run date)');
  } finally {
    await gateway.destroy();
  }
});

test('an insurance ended during its payout gets no more orders; staff end insurances from the CLI, through the gateway or in-process', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'dg-insurance-end-'));
  const gateway = await gatewayOnDemoLedger({ roles: ['api'] });
  const inProcessUser = `cli:${userInfo().username}`;
  const alone = testSettings(join(folder, 'alone', 'data'), { databaseUrl: gateway.database!.url, port: await freePort(), logLevel: 'warn' });
  try {
    const { db } = gateway.deps;
    const deps = runDeps(gateway);
    await db.exec(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
      VALUES ('DEPA-100002', '2026-04-30', 0, 40000.00, 40000.00, 1, 'test')`);
    await db.transaction((tx) => schedulePayout(tx, { insuranceNumber: 'INS-100002', startMonth: '2026-05', terms: { months: 4 }, registration: PAYOUT_REGISTRATION }, new Date('2026-04-15T08:00:00Z')));
    await makeRun(db, deps, (tx) => runPayoutRun(tx, deps, '2026-05', new Date('2026-05-01T05:00:00Z')));

    // The insured dies after the first installment: staff record it through the running gateway.
    const address = gateway.http!.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    await mkdir(join(folder, 'api'));
    const throughApi = await writeConfigFile(join(folder, 'api'), testSettings(join(folder, 'api', 'data'), { databaseUrl: gateway.database!.url, port, logLevel: 'warn' }));
    const death = await runCliToEnd(['insurance-end', 'INS-100002', '--cause', 'death', '--date', '2026-05-25', '--json', '--config', throughApi]);
    assert.equal(death.code, 0, death.stderr);
    const recorded = JSON.parse(death.stdout) as Record<string, unknown>;
    assert.deepEqual({ ...recorded, recordedAt: undefined }, { insuranceNumber: 'INS-100002', endDate: '2026-05-25', cause: 'death', endedBy: 'staff:staff', recordedAt: undefined });

    // June: no order for it, and it stays where the payout stopped.
    await makeRun(db, deps, (tx) => runPayoutRun(tx, deps, '2026-06', new Date('2026-06-01T05:00:00Z')));
    expect(await xmlFiles(gateway)).toEqual(['payout-2026-05.DebitAccounts.xml']);
    const { rows: payout } = await db.query<{ status: string; orders: number }>(
      `SELECT p.status, (SELECT count(*)::int FROM payout_orders o WHERE o.insurance_number = p.insurance_number) AS orders FROM payouts p WHERE p.insurance_number = 'INS-100002'`);
    assert.deepEqual(payout, [{ status: 'paying', orders: 1 }]);

    // No gateway answers on this configuration's port: the command works in-process, recorded under the account that ran it.
    await mkdir(join(folder, 'alone'));
    const inProcess = await writeConfigFile(join(folder, 'alone'), alone);
    const again = await runCliToEnd(['insurance-end', 'INS-100002', '--cause', 'surrendered', '--date', '2026-06-01', '--config', inProcess]);
    assert.equal(again.code, 1, 'an insurance already ended is a refusal');
    assert.match(again.stderr, /INSURANCE_ALREADY_ENDED: The insurance has already ended\. Insurance INS-100002 ended 2026-05-25 \(death\), recorded by staff:staff\./);
    const surrender = await runCliToEnd(['insurance-end', 'INS-100003', '--cause', 'surrendered', '--date', '2026-10-01', '--config', inProcess]);
    assert.equal(surrender.code, 0, surrender.stderr);
    assert.match(surrender.stdout, new RegExp(`^INSURANCE +LAST DAY +CAUSE +RECORDED BY +RECORDED AT\nINS-100003 +2026-10-01 +surrendered +${inProcessUser} +\\d{4}-\\d{2}-\\d{2}T`));
    const unknown = await runCliToEnd(['insurance-end', 'INS-999999', '--cause', 'death', '--date', '2026-10-01', '--config', inProcess]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /RESOURCE_NOT_FOUND: .*No insurance INS-999999\./);
    const badCause = await runCliToEnd(['insurance-end', 'INS-100004', '--cause', 'retired', '--date', '2026-10-01', '--config', inProcess]);
    assert.equal(badCause.code, 2);
    assert.match(badCause.stderr, /Allowed choices are paid-out, transferred-out, surrendered, death/);

    const { rows: ends } = await db.query<{ insurance_number: string; end_date: string; end_cause: string; ended_by: string }>(
      `SELECT insurance_number, end_date::text, end_cause, ended_by FROM insurances WHERE end_date IS NOT NULL ORDER BY insurance_number`);
    assert.deepEqual(ends, [
      { insurance_number: 'INS-100002', end_date: '2026-05-25', end_cause: 'death', ended_by: 'staff:staff' },
      { insurance_number: 'INS-100003', end_date: '2026-10-01', end_cause: 'surrendered', ended_by: inProcessUser },
    ]);
    // An insurance that has ended cannot be put in payout.
    await assert.rejects(
      db.transaction((tx) => schedulePayout(tx, { insuranceNumber: 'INS-100003', startMonth: '2026-11', terms: { months: 2 }, registration: PAYOUT_REGISTRATION }, new Date('2026-10-15T08:00:00Z'))),
      /INS-100003 is not an insurance in force, or is already in payout/,
    );
  } finally {
    await gateway.destroy();
    await deleteQueues(alone.queuePrefix as string);
    await rm(folder, { recursive: true, force: true });
  }
});

test('runs missed while the gateway was down are made at start', async () => {
  // Down since before the end of July 2024; started on Monday 4 November 2024. The two
  // latest debit runs (2024-Q2 on 31 July, 2024-Q3 on 31 October) and the payout runs
  // of October and November are due and have not run.
  const database = await createTestDatabase(template.name);
  const setup = await startTestGateway({ roles: [], inline: true, database, keepDatabase: true });
  await insertYear(setup.deps.db);
  await setup.deps.db.exec(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
    VALUES ('DEPA-100002', '2024-10-31', 0, 12000.00, 12000.00, 1, 'test')`);
  await schedulePayout(setup.deps.db, { insuranceNumber: 'INS-100002', startMonth: '2024-11', terms: { months: 12 }, registration: PAYOUT_REGISTRATION }, new Date('2024-10-01T08:00:00Z'));
  await setup.destroy();

  const gateway = await startTestGateway({ roles: ['worker'], database, keepDatabase: true, clock: () => new Date('2024-11-04T08:00:00Z') });
  try {
    const { db } = gateway.deps;
    const ran = await waitFor(async () => {
      const { rows } = await db.query<{ job: string; period: string }>(
        `SELECT job, period FROM calendar_runs WHERE job IN ('debit-runs', 'payout-runs', 'payout-notices') ORDER BY job, period`,
      );
      return rows.length === 5 && rows;
    }, 'the missed runs to be made');
    assert.deepEqual(ran, [
      { job: 'debit-runs', period: '2024-Q2' }, { job: 'debit-runs', period: '2024-Q3' },
      // 09:00 Stockholm: the day's 07:30 notice check is due, 13:00 not yet.
      { job: 'payout-notices', period: '2024-11-04 07:30' },
      { job: 'payout-runs', period: '2024-10' }, { job: 'payout-runs', period: '2024-11' },
    ]);
    // Delivered by the deliver stage once each run has committed.
    const expected = ['debit-run-2024-Q2.DebitAccounts.xml', 'debit-run-2024-Q3.DebitAccounts.xml', 'payout-2024-11.DebitAccounts.xml'];
    await waitFor(async () => (await xmlFiles(gateway)).length >= expected.length, 'the three files');
    expect(await xmlFiles(gateway)).toEqual(expected);
    // 12 000.00 over 12 months: 1 000.00; 10 November 2024 is a Sunday: sell by Friday the 8th; the 22nd is a Friday.
    assert.deepEqual(linesOf(await outboxFile(gateway, 'payout-2024-11.DebitAccounts.xml'))['DEPA-100002'], {
      SellOrder: '1000.00', SellBy: '2024-11-08', Payout: '1000.00', PayBy: '2024-11-22', Installment: '1', Final: 'false',
    });
    assert.equal(linesOf(await outboxFile(gateway, 'debit-run-2024-Q3.DebitAccounts.xml'))['DEPA-100007']?.CapitalCharge, '1186.45');
    assert.ok(existsSync(join(gateway.outbox('demo-custodian'), 'debit-run-2024-Q2.DebitAccounts.xml')));
  } finally {
    await gateway.destroy();
    await database.drop();
  }
});

test('payout can begin: customer service is mailed once per notice; without mail settings the copies wait; staff API and CLI list them', async () => {
  const sink = await startSmtpSink();
  const folder = await mkdtemp(join(tmpdir(), 'dg-payout-notices-'));
  const gateway = await gatewayOnDemoLedger({
    roles: ['api'],
    settings: {
      mail: { smtp: { host: sink.host, port: sink.port, from: 'gateway@insurer.example', timeoutMs: 5000 } },
      notifications: { operationsAddress: 'operations@insurer.example', customerServiceAddress: CUSTOMER_SERVICE },
    },
  });
  const mailSender = createSmtpSender(gateway.config.mail.smtp!);
  try {
    const { db } = gateway.deps;
    await db.exec(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
      VALUES ('DEPA-100002', '2026-04-30', 0, 40000.00, 40000.00, 1, 'test')`);
    await db.transaction((tx) => schedulePayout(tx, { insuranceNumber: 'INS-100002', startMonth: '2026-05', terms: { months: 4 }, registration: PAYOUT_REGISTRATION }, new Date('2026-04-15T08:00:00Z')));
    await makeRun(db, runDeps(gateway), (tx) => runPayoutRun(tx, runDeps(gateway), '2026-05', new Date('2026-05-01T05:00:00Z')));

    // No mail settings: recorded, not mailed, and still waiting (Bertil's payout has begun: he is not told it can).
    const unmailed = await db.transaction((tx) => mailPayoutNotices(tx, { mailSender: undefined, address: undefined, log: gateway.log }, new Date('2026-05-01T05:30:00Z')));
    assert.deepEqual(unmailed, []);
    assert.deepEqual((await listPayoutNotices(db, { unsent: true })).map((n) => n.insuranceNumber), ['INS-100002']);

    // The calendar job on Friday 1 May 2026 at 08:00 Stockholm (06:00Z): the 07:30 check is due, 13:00 not yet.
    const job = payoutNoticeJob({ mailSender, address: CUSTOMER_SERVICE, log: gateway.log });
    assert.deepEqual(await runDuePeriods(db, job, new Date('2026-05-01T06:00:00Z'), gateway.log), ['2026-05-01 07:30']);
    await waitFor(() => sink.mails.length === 1, 'the notice');
    const mail = sink.mails[0]!;
    assert.deepEqual(mail.envelopeTo, [CUSTOMER_SERVICE]);
    assert.equal(mail.parsed.subject, 'Payout can begin: 1 insurance');
    assert.match(mail.parsed.text ?? '', /- INS-100002 \(Bertil Berg, 19800202-\*\*\*\*\), custody account DEPA-100002: from 2026-05, first payout 10000\.00 SEK, paid by 2026-05-22; the insured was not told: the payout was started/);
    assert.doesNotMatch(mail.parsed.text ?? '', /198002021239/, 'no personal identity number in the mail');
    assert.equal(mail.parsed.messageId, '<payout-notices.2026-05-01.07.30@depot-gateway>');

    // The 13:00 check finds nothing new, and June's installment makes no second notice.
    await makeRun(db, runDeps(gateway), (tx) => runPayoutRun(tx, runDeps(gateway), '2026-06', new Date('2026-06-01T05:00:00Z')));
    assert.deepEqual(await runDuePeriods(db, job, new Date('2026-06-01T12:00:00Z'), gateway.log), ['2026-06-01 07:30', '2026-06-01 13:00']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(sink.mails.length, 1);

    // The staff API and the CLI (through it).
    const address = gateway.http!.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const auth = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
    const listed = await fetch(`http://127.0.0.1:${port}/api/payout-notices`, { headers: auth });
    assert.equal(listed.status, 200);
    expect((await listed.json()) as unknown).toEqual({
      notices: [{
        insuranceNumber: 'INS-100002', insuredPin: '198002021239', insuredName: 'Bertil Berg', accountNumber: 'DEPA-100002', canBegin: null, firstMonth: '2026-05', firstAmount: '10000.00',
        payBy: '2026-05-22', recordedAt: '2026-05-01T05:00:00.000Z', insuredNotice: 'not-needed', insuredAddress: null, insuredToldAt: '2026-05-01T05:30:00.000Z',
        sentTo: CUSTOMER_SERVICE, sentAt: '2026-05-01T06:00:00.000Z',
      }],
    });
    const unsent = await fetch(`http://127.0.0.1:${port}/api/payout-notices?unsent=true`, { headers: auth });
    expect((await unsent.json()) as unknown).toEqual({ notices: [] });
    assert.equal((await fetch(`http://127.0.0.1:${port}/api/payout-notices`)).status, 401);

    const config = await writeConfigFile(folder, testSettings(join(folder, 'data'), { databaseUrl: gateway.database!.url, port, logLevel: 'warn' }));
    const json = await runCliToEnd(['payout-notices', '--json', '--config', config]);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(json.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { insuranceNumber: string; sentTo: string }).sentTo), [CUSTOMER_SERVICE]);
    const human = await runCliToEnd(['payout-notices', '--config', config]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^INSURANCE +INSURED +CUSTODY ACCOUNT +CAN BEGIN +FIRST MONTH +FIRST PAYOUT +INSURED TOLD +COPY MAILED\n/);
    assert.match(human.stdout, /\nINS-100002 +Bertil Berg +DEPA-100002 +- +2026-05 +10000\.00 by 2026-05-22 +not needed \(started or ended first\) +2026-05-01T06:00:00\.000Z to customer\.service@insurer\.example\n/);
  } finally {
    await mailSender.close();
    await gateway.destroy();
    await sink.close();
    await rm(folder, { recursive: true, force: true });
  }
});
