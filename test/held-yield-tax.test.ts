/**
 * Yield tax held back for want of its rate, and repayment protection that ends when
 * payout begins — debit runs on the demo ledger, on PostgreSQL and on the embedded
 * database, with the custody values a custodian would have reported inserted by the test:
 *
 * - the default configuration has no 2027 rates (P/T nor K): the February 2027 run
 *   (Q4 2026) debits each account's charges, risk premium and the tax on deposits at the
 *   2026 rate, and holds back only the tax on the 2027 opening value, with which rate is
 *   missing — in the run's summary, the ledger, the console's run page and the command's
 *   output;
 * - once the rates are configured, the next run (Q1 2027) debits each held tax once, as a
 *   line of its own with its tax year's period; a run that crashed before its commit took
 *   nothing, a repeat of the run and the run after it take nothing more, and two runs made
 *   at once take it once between them;
 * - an insurance whose payout begins in February 2027 pays repayment protection for
 *   January only, and none from Q2.
 * Every figure is worked out by hand beside it.
 */
import { describe, test, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Quarter } from '../src/core/banking-calendar.ts';
import type { Sql } from '../src/ledger/database.ts';
import { makeRun, runDebitRun, runDepsFrom, type RunDeps } from '../src/calendar/debit-run.ts';
import { schedulePayout } from '../src/calendar/payout-run.ts';
import { signInToConsole } from './support/console-session.ts';
import { startTestGateway, testSettings, waitFor, type TestGateway } from './support/harness.ts';
import { runCliToEnd, writeConfigFile } from './support/processes.ts';

/** The insurer's 2027 rates as it would configure them (the form of config/example.yaml, not the real rates). */
const RATES_2027 = { 2027: { pt: '0.400', k: '1.100' } };

/**
 * The demo's T insurance INS-100001 (DEPA-100001) and K insurance INS-100006 (DEPA-100006,
 * repayment protection; Anna, born 1970-01-01: band 50–59, 0.25 a month per 1 000), both at
 * 360 a year and 0.35 %. Values from 30 September 2026 (carried over Q4) and at 31 December
 * 2026 (carried over 2027); a K deposit on 15 November 2026.
 */
async function insertValues(sql: Sql): Promise<void> {
  await sql.exec(`
    INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
    SELECT account_number, as_of::date, cash, total_value - cash, total_value, 1, 'test' FROM (VALUES
      ('DEPA-100001', '2026-09-30', 50000.00, 500000.00), ('DEPA-100001', '2026-12-31', 50000.00, 520000.00),
      ('DEPA-100006', '2026-09-30', 100.00, 300000.00), ('DEPA-100006', '2026-12-31', 100.00, 310000.00)
    ) AS v(account_number, as_of, cash, total_value);
    INSERT INTO custody_transactions (account_number, transaction_id, transaction_type, trade_date, settlement_date, amount, currency, message_id)
      VALUES ('DEPA-100006', 'T1', 'Deposit', '2026-11-15', '2026-11-15', 10000.00, 'SEK', 'test')`);
}

type Lines = Record<string, Record<string, string>>;

/** Account → { "Charge[/Basis]": amount, "SellOrder": amount, "SellBy": day } from a DebitAccounts file. */
function linesOf(xml: string): Lines {
  const result: Lines = {};
  for (const [, account] of xml.matchAll(/<Account>([\s\S]*?)<\/Account>/g)) {
    const lines: Record<string, string> = {};
    for (const [, debit] of account!.matchAll(/<Debit>([\s\S]*?)<\/Debit>/g)) {
      const basis = /<Basis>([^<]+)/.exec(debit!)?.[1];
      lines[`${/<Charge>([^<]+)/.exec(debit!)![1]!}${basis ? `/${basis}` : ''}`] = /<Amount>([^<]+)/.exec(debit!)![1]!;
    }
    const order = /<SellOrder>([\s\S]*?)<\/SellOrder>/.exec(account!)?.[1];
    if (order) Object.assign(lines, { SellOrder: /<Amount>([^<]+)/.exec(order)![1]!, SellBy: /<SellBy>([^<]+)/.exec(order)![1]! });
    result[/<AccountNumber>([^<]+)/.exec(account!)![1]!] = lines;
  }
  return result;
}

const ENGINES = [['PostgreSQL', false], ['the embedded database', true]] as const;

describe.each(ENGINES)('on %s', (_engine, embedded) => {
  const start = () => startTestGateway({ roles: ['api'], inline: true, embedded });
  const depsOf = (gateway: TestGateway, rates: Record<string, { pt?: string; k?: string }> = {}): RunDeps =>
    runDepsFrom({ ...gateway.config, charges: { yieldTaxRates: rates } }, gateway.deps.scheduler, gateway.log);
  const run = (gateway: TestGateway, deps: RunDeps, year: number, quarter: Quarter, at: string) =>
    makeRun(gateway.deps.db, deps, (tx) => runDebitRun(tx, deps, { year, quarter }, new Date(at)));
  const file = async (gateway: TestGateway, runKey: string) => linesOf(await readFile(join(gateway.outbox('demo-custodian'), `debit-run-${runKey}.DebitAccounts.xml`), 'utf8'));
  const heldRows = async (gateway: TestGateway) => (await gateway.deps.db.query<{ run_key: string; insurance_number: string; basis: string; base: string; debited_run_key: string | null; debited_amount: string | null }>(
    `SELECT run_key, insurance_number, basis, base::text, debited_run_key, debited_amount::text FROM held_yield_taxes ORDER BY run_key, insurance_number, basis`)).rows;
  const openingValueLines = async (gateway: TestGateway) => (await gateway.deps.db.query<{ run_key: string; insurance_number: string; amount: string; period_from: string; period_to: string }>(
    `SELECT run_key, insurance_number, amount::text, period_from::text, period_to::text FROM debit_lines
      WHERE charge = 'YieldTax' AND basis = 'OpeningValue' ORDER BY run_key, insurance_number`)).rows;

  test('no yield tax rate: charges and risk premium are debited and the tax alone held; the next run after the rate is set debits it once', async () => {
    const gateway = await start();
    try {
      const { db } = gateway.deps;
      await insertValues(db);

      // February 2027 (Q4 2026), no 2027 rate configured. T: value-days 91 × 500 000 + 520 000 = 46 020 000;
      // × 0.35 % / 365 = 161 070 / 365 = 441.287… → 441.29. K: 91 × 300 000 + 310 000 = 27 610 000; capital
      // 96 635 / 365 = 264.753… → 264.75; repayment protection 27 610 000 × 0.25 × 3 / (1 000 × 92) = 225.081… → 225.08;
      // deposit 10 000.00 at 2026's K rate 1.065 %, second half: / 2 = 53.25. Total 633.08, cash 100.00: sell 533.08.
      const february = await run(gateway, depsOf(gateway), 2026, 4, '2027-03-01T08:00:00Z');
      assert.deepEqual(await file(gateway, '2026-Q4'), {
        'DEPA-100001': { FixedCharge: '90.00', CapitalCharge: '441.29' },
        'DEPA-100006': { FixedCharge: '90.00', CapitalCharge: '264.75', RiskPremium: '225.08', 'YieldTax/Deposits': '53.25', SellOrder: '533.08', SellBy: '2027-02-26' },
      });
      const [custodian] = february.created;
      // Accounts are held back only for want of values, no longer for want of a rate.
      assert.deepEqual(custodian?.held.map((h) => h.accountNumber), ['DEPA-100002', 'DEPA-100003', 'DEPA-100004', 'DEPA-100005']);
      assert.equal(custodian?.total, '1164.37'); // 531.29 + 633.08: the held tax is not in it
      assert.deepEqual(custodian?.heldTax?.map(({ reason: _reason, ...tax }) => tax), [
        { insuranceNumber: 'INS-100001', accountNumber: 'DEPA-100001', kind: 'T', basis: 'OpeningValue', taxYear: 2027, base: '520000.00', halfBase: false, periodFrom: '2027-01-01', periodTo: '2027-12-31' },
        { insuranceNumber: 'INS-100006', accountNumber: 'DEPA-100006', kind: 'K', basis: 'OpeningValue', taxYear: 2027, base: '310000.00', halfBase: false, periodFrom: '2027-01-01', periodTo: '2027-12-31' },
      ]);
      assert.match(custodian!.heldTax![0]!.reason, /^No yield tax rate for P\/T in tax year 2027 \(rates are known for 2020, 2021, 2022, 2023, 2024\): add the year under charges\.yieldTaxRates/);
      assert.match(custodian!.heldTax![1]!.reason, /^No yield tax rate for K in tax year 2027 \(rates are known for 2020, .*, 2026\)/);
      assert.deepEqual(await heldRows(gateway), [
        { run_key: '2026-Q4', insurance_number: 'INS-100001', basis: 'OpeningValue', base: '520000.00', debited_run_key: null, debited_amount: null },
        { run_key: '2026-Q4', insurance_number: 'INS-100006', basis: 'OpeningValue', base: '310000.00', debited_run_key: null, debited_amount: null },
      ]);

      // Staff see both waiting, with the reason.
      const staff = await signInToConsole(gateway.http!, 'staff', 'test-password');
      const waiting = (await gateway.http!.inject({ url: '/console/runs', headers: { cookie: staff.cookie } })).body;
      assert.match(waiting, /<h2>Yield tax held back<\/h2>/);
      assert.match(waiting, /<td>2026-Q4<\/td><td>demo-custodian<\/td><td>DEPA-100001<\/td><td><a href="\/console\/insurances\/INS-100001">INS-100001<\/a><\/td><td>YieldTax\/OpeningValue \(P\/T 2027\)<\/td><td>2027-01-01 – 2027-12-31<\/td><td>520000\.00<\/td><td>No yield tax rate for P\/T in tax year 2027 [^<]*<\/td><td><span class="status-dead">waiting for the rate<\/span><\/td>/);

      // The rates are configured. A run that fails before its commit (a crash) takes nothing.
      const withRates = depsOf(gateway, RATES_2027);
      await assert.rejects(db.transaction(async (tx) => {
        await runDebitRun(tx, withRates, { year: 2027, quarter: 1 }, new Date('2027-04-30T08:00:00Z'));
        throw new Error('the process dies before the commit');
      }), /the process dies before the commit/);
      assert.deepEqual((await heldRows(gateway)).map((row) => row.debited_run_key), [null, null]);

      // April 2027 (Q1, 90 days), made again: each held tax is a line of its own, with the period of its tax year.
      // T: 520 000 × 90 × 0.35 % / 365 = 163 800 / 365 = 448.767… → 448.77; held tax 520 000.00 × 0.400 % = 2 080.00.
      // K: 310 000 × 90 × 0.35 % / 365 = 97 650 / 365 = 267.534… → 267.53; risk 310 × 0.25 × 3 = 232.50 (57 on 1 January);
      // held tax 310 000.00 × 1.100 % = 3 410.00. Total 4 000.03, cash 100.00: sell 3 900.03.
      const april = await run(gateway, withRates, 2027, 1, '2027-05-03T08:00:00Z');
      assert.deepEqual(await file(gateway, '2027-Q1'), {
        'DEPA-100001': { FixedCharge: '90.00', CapitalCharge: '448.77', 'YieldTax/OpeningValue': '2080.00' },
        'DEPA-100006': { FixedCharge: '90.00', CapitalCharge: '267.53', RiskPremium: '232.50', 'YieldTax/OpeningValue': '3410.00', SellOrder: '3900.03', SellBy: '2027-04-30' },
      });
      assert.deepEqual(april.created[0]?.caughtUpTax, [
        { insuranceNumber: 'INS-100001', accountNumber: 'DEPA-100001', heldBy: '2026-Q4', basis: 'OpeningValue', periodFrom: '2027-01-01', periodTo: '2027-12-31', amount: '2080.00' },
        { insuranceNumber: 'INS-100006', accountNumber: 'DEPA-100006', heldBy: '2026-Q4', basis: 'OpeningValue', periodFrom: '2027-01-01', periodTo: '2027-12-31', amount: '3410.00' },
      ]);
      assert.deepEqual(april.created[0]?.heldTax, []);
      assert.deepEqual((await heldRows(gateway)).map((row) => [row.insurance_number, row.debited_run_key, row.debited_amount]), [
        ['INS-100001', '2027-Q1', '2080.00'], ['INS-100006', '2027-Q1', '3410.00'],
      ]);

      // A repeat of the run makes nothing new; the run after it (Q2) takes no tax on the opening value again.
      const again = await run(gateway, withRates, 2027, 1, '2027-05-04T08:00:00Z');
      assert.deepEqual(again.created, []);
      await run(gateway, withRates, 2027, 2, '2027-08-02T08:00:00Z');
      assert.deepEqual(await file(gateway, '2027-Q2'), {
        'DEPA-100001': { FixedCharge: '90.00', CapitalCharge: '453.75' }, // 520 000 × 91 × 0.35 % / 365 = 165 620 / 365 = 453.753… → 453.75
        // 310 000 × 91 × 0.35 % / 365 = 98 735 / 365 = 270.506… → 270.51; risk 232.50. Total 593.01, cash 100.00: sell 493.01.
        'DEPA-100006': { FixedCharge: '90.00', CapitalCharge: '270.51', RiskPremium: '232.50', SellOrder: '493.01', SellBy: '2027-07-30' },
      });
      assert.deepEqual(await openingValueLines(gateway), [
        { run_key: '2027-Q1', insurance_number: 'INS-100001', amount: '2080.00', period_from: '2027-01-01', period_to: '2027-12-31' },
        { run_key: '2027-Q1', insurance_number: 'INS-100006', amount: '3410.00', period_from: '2027-01-01', period_to: '2027-12-31' },
      ]);

      const settled = (await gateway.http!.inject({ url: '/console/runs?kind=debit', headers: { cookie: staff.cookie } })).body;
      assert.match(settled, />INS-100006<\/a><\/td><td>YieldTax\/OpeningValue \(K 2027\)<\/td><td>2027-01-01 – 2027-12-31<\/td><td>310000\.00<\/td><td>No yield tax rate for K in tax year 2027 [^<]*<\/td><td>3410\.00 SEK by 2027-Q1<\/td>/);
      assert.doesNotMatch(settled, /waiting for the rate/);
    } finally {
      await gateway.destroy();
    }
  });

  test('two debit runs made at once take a held tax once between them', async () => {
    const gateway = await start();
    try {
      await insertValues(gateway.deps.db);
      await run(gateway, depsOf(gateway), 2026, 4, '2027-03-01T08:00:00Z');
      const withRates = depsOf(gateway, RATES_2027);
      const { db } = gateway.deps;
      if (embedded) {
        // One connection: the second transaction starts when the first has ended.
        await Promise.all([run(gateway, withRates, 2027, 1, '2027-08-02T08:00:00Z'), run(gateway, withRates, 2027, 2, '2027-08-02T08:00:00Z')]);
      } else {
        // Q1's run has taken the held taxes and not committed yet when Q2's comes to them:
        // Q2 waits for it, then finds them debited, and both runs commit.
        let release = () => {};
        const released = new Promise<void>((resolve) => { release = resolve; });
        let taken = false;
        const first = db.transaction(async (tx) => {
          const summary = await runDebitRun(tx, withRates, { year: 2027, quarter: 1 }, new Date('2027-08-02T08:00:00Z'));
          taken = true;
          await released;
          return summary;
        });
        await waitFor(() => taken, "Q1's run to take the held taxes");
        const second = run(gateway, withRates, 2027, 2, '2027-08-02T08:00:00Z');
        await waitFor(async () => (await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).rows[0]!.n > 0, "Q2's run to wait for Q1's");
        release();
        await Promise.all([first, second]);
      }
      const lines = await openingValueLines(gateway);
      assert.deepEqual(lines.map((line) => [line.insurance_number, line.amount]), [['INS-100001', '2080.00'], ['INS-100006', '3410.00']]);
      const rows = await heldRows(gateway);
      assert.deepEqual(rows.map((row) => [row.insurance_number, row.debited_run_key, row.debited_amount]), lines.map((line) => [line.insurance_number, line.run_key, line.amount]));
    } finally {
      await gateway.destroy();
    }
  });

  test('repayment protection is charged only for the days before the payout’s first month', async () => {
    const gateway = await start();
    try {
      const { db } = gateway.deps;
      await insertValues(db);
      await db.transaction((tx) => schedulePayout(tx, {
        insuranceNumber: 'INS-100006', startMonth: '2027-02', terms: { months: 60 }, registration: { withdrawalAccount: '50001234560', registeredBy: 'staff:test' },
      }, new Date('2026-12-15T09:00:00Z')));
      const deps = depsOf(gateway, RATES_2027);
      // Q4 2026: before payout, the whole quarter (225.08, as above).
      await run(gateway, deps, 2026, 4, '2027-03-01T08:00:00Z');
      expect((await file(gateway, '2026-Q4'))['DEPA-100006']?.RiskPremium).toBe('225.08');
      // Q1 2027: payout begins 1 February, so 1–31 January, 31 of 90 days at 310 000.00:
      // 310 000 × 31 × 0.25 × 3 / (1 000 × 90) = 7 207 500 / 90 000 = 80.083… → 80.08 (the whole quarter would be 232.50).
      await run(gateway, deps, 2027, 1, '2027-05-03T08:00:00Z');
      expect((await file(gateway, '2027-Q1'))['DEPA-100006']?.RiskPremium).toBe('80.08');
      // Q2 2027, in payout: no risk premium, the charges as before.
      await run(gateway, deps, 2027, 2, '2027-08-02T08:00:00Z');
      const q2 = (await file(gateway, '2027-Q2'))['DEPA-100006'];
      assert.equal(q2?.RiskPremium, undefined);
      assert.deepEqual(Object.keys(q2 ?? {}), ['FixedCharge', 'CapitalCharge', 'SellOrder', 'SellBy']);
    } finally {
      await gateway.destroy();
    }
  });
});

test('depot-gateway debit-run says which yield tax it held back and why, and which held tax it debited later', async () => {
  const gateway = await startTestGateway({ roles: [], inline: true });
  const folder = await mkdtemp(join(tmpdir(), 'dg-held-tax-cli-'));
  try {
    await insertValues(gateway.deps.db);
    // No gateway answers on port 1: the command runs in-process on the test's database.
    const settings = (rates: object) => testSettings(join(folder, 'data'), { databaseUrl: gateway.database!.url, port: 1, logLevel: 'warn', charges: { yieldTaxRates: rates } });
    const withoutRates = await writeConfigFile(folder, settings({}));
    const held = await runCliToEnd(['debit-run', '--year', '2026', '--quarter', '4', '--config', withoutRates]);
    assert.equal(held.code, 0, held.stderr);
    assert.match(held.stdout, /\ntax held: DEPA-100001 \(INS-100001\): YieldTax\/OpeningValue 2027-01-01–2027-12-31 on 520000\.00: No yield tax rate for P\/T in tax year 2027 /);
    assert.match(held.stdout, /\ntax held: DEPA-100006 \(INS-100006\): YieldTax\/OpeningValue 2027-01-01–2027-12-31 on 310000\.00: No yield tax rate for K in tax year 2027 /);
    const withRates = await writeConfigFile(folder, settings(RATES_2027));
    const debited = await runCliToEnd(['debit-run', '--year', '2027', '--quarter', '1', '--json', '--config', withRates]);
    assert.equal(debited.code, 0, debited.stderr);
    const outcome = JSON.parse(debited.stdout) as { created: { total: string; caughtUpTax: { accountNumber: string; heldBy: string; amount: string }[] }[] };
    assert.deepEqual(outcome.created[0]?.caughtUpTax.map((tax) => [tax.accountNumber, tax.heldBy, tax.amount]), [['DEPA-100001', '2026-Q4', '2080.00'], ['DEPA-100006', '2026-Q4', '3410.00']]);
    assert.equal(outcome.created[0]?.total, '6618.80'); // 2 618.77 + 4 000.03
  } finally {
    await gateway.destroy();
    await rm(folder, { recursive: true, force: true });
  }
});
