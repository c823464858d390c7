/**
 * The death benefit of repayment protection, on the demo ledger in the real PostgreSQL:
 * staff record deaths in May 2026 (staff API and CLI); only the capital insurance with
 * repayment protection and no payout records a benefit (its insurer's 1 % shown to
 * staff), and June's payout run orders it as one sell order of the whole account and one
 * final payout in the custodian's DebitAccounts — once: the run made again, and July's,
 * order nothing more. A death recorded before the custodian reported a value is valued
 * by the run that orders it.
 */
import { expect, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { makeRun, runDepsFrom } from '../src/pipeline/debit-run.ts';
import { runPayoutRun, schedulePayout } from '../src/pipeline/payout-run.ts';

/** The insured's registered payout account, as staff register a payout. */
const PAYOUT_REGISTRATION = { withdrawalAccount: '50001234560', registeredBy: 'staff:test' };
import { createDemoLedgerTemplate, createTestDatabase, startTestGateway, testSettings } from './support/harness.ts';
import { runCliToEnd, writeConfigFile } from './support/processes.ts';

const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));

test('a death before payout of a K insurance with repayment protection → one sell-all order and one final payout, once; other deaths order nothing', async () => {
  const template = await createDemoLedgerTemplate();
  const database = await createTestDatabase(template.name);
  const folder = await mkdtemp(join(tmpdir(), 'dg-death-benefit-'));
  let now = new Date('2026-05-20T09:00:00Z');
  const gateway = await startTestGateway({ roles: ['api'], inline: true, database, clock: () => now });
  try {
    const { db } = gateway.deps;
    const deps = runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log);
    // INS-100006 is the demo's K insurance with repayment protection. Three more K insurances at
    // the demo custodian: without repayment protection, with it but in payout, and with it but
    // no custody value reported yet when the death is recorded.
    await db.exec(`
      INSERT INTO insurances (insurance_number, agreement_number, insured_pin, product_code, start_date, policyholder, custody_account) VALUES
        ('INS-200001', 'AGR-1001', '198002021239', 'KF-DEPA', '2022-01-01', '5561234567', 'DEPA-200001'),
        ('INS-200002', 'AGR-1001', '199003031235', 'KF-DEPA', '2022-01-01', '5561234567', 'DEPA-200002'),
        ('INS-200003', 'AGR-1001', '197607151235', 'KF-DEPA', '2022-01-01', '5561234567', 'DEPA-200003');
      INSERT INTO custody_accounts (account_number, custodian_id, opened_on) VALUES
        ('DEPA-200001', 'demo-custodian', '2022-01-01'), ('DEPA-200002', 'demo-custodian', '2022-01-01'), ('DEPA-200003', 'demo-custodian', '2022-01-01');
      INSERT INTO insurance_coverages (insurance_number, coverage_type, from_date, message_id) VALUES
        ('INS-200002', 'repaymentProtection', '2022-01-01', 'test'), ('INS-200003', 'repaymentProtection', '2022-01-01', 'test');
      INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id) VALUES
        ('DEPA-100006', '2026-05-15', 0, 123456.78, 123456.78, 1, 'test'), ('DEPA-100006', '2026-05-29', 0, 125000.00, 125000.00, 1, 'test'),
        ('DEPA-200001', '2026-05-15', 0, 50000.00, 50000.00, 1, 'test'), ('DEPA-200002', '2026-05-15', 0, 80000.00, 80000.00, 1, 'test')`);
    await db.transaction((tx) => schedulePayout(tx, { insuranceNumber: 'INS-200002', startMonth: '2026-07', terms: { months: 60 }, registration: PAYOUT_REGISTRATION }, now));

    const address = gateway.http!.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const end = async (number: string, date: string) => {
      const response = await fetch(`http://127.0.0.1:${port}/api/insurances/${number}/end`, {
        method: 'POST', body: JSON.stringify({ cause: 'death', date }),
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` },
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    // Repayment protection, no payout: the benefit is recorded with the end, on the latest value
    // known that day (15 May). By hand: 1 % of 123 456.78 is 1 234.5678 → 1 234.57, so 101 % is
    // 123 456.78 from the account + 1 234.57 from the insurer = 124 691.35.
    const died = await end('INS-100006', '2026-05-18');
    assert.equal(died.status, 201);
    // fetch's Response.json() parses in Node's own realm: compared with toStrictEqual.
    expect(died.body.deathBenefit).toStrictEqual({
      insuranceNumber: 'INS-100006', deathDate: '2026-05-18', custodyValue: '123456.78', valueAsOf: '2026-05-15', insurerAmount: '1234.57',
      recordedBy: 'staff:staff', recordedAt: '2026-05-20T09:00:00.000Z', order: null,
    });
    // A P/T insurance, and a K insurance in payout: the end only.
    for (const number of ['INS-100003', 'INS-200002']) {
      const ended = await end(number, '2026-05-18');
      assert.deepEqual([ended.status, ended.body.cause, 'deathBenefit' in ended.body], [201, 'death', false], number);
    }
    // No value reported yet: recorded without one.
    expect((await end('INS-200003', '2026-05-19')).body.deathBenefit).toStrictEqual({
      insuranceNumber: 'INS-200003', deathDate: '2026-05-19', custodyValue: null, valueAsOf: null, insurerAmount: null,
      recordedBy: 'staff:staff', recordedAt: '2026-05-20T09:00:00.000Z', order: null,
    });
    // The CLI through the gateway: a K insurance without repayment protection, told that nothing more is ordered.
    const config = await writeConfigFile(folder, testSettings(join(folder, 'data'), { databaseUrl: database.url, port, logLevel: 'warn' }));
    const cli = await runCliToEnd(['insurance-end', 'INS-200001', '--cause', 'death', '--date', '2026-05-18', '--config', config]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /^INSURANCE +LAST DAY +CAUSE +RECORDED BY +RECORDED AT\nINS-200001 +2026-05-18 +death +staff:staff /);
    assert.match(cli.stdout, /\nNo death benefit \(only a capital insurance with repayment protection and no payout registered pays one\): nothing more is ordered\.\n$/);
    const { rows: benefits } = await db.query('SELECT insurance_number FROM death_benefits ORDER BY 1');
    assert.deepEqual(benefits, [{ insurance_number: 'INS-100006' }, { insurance_number: 'INS-200003' }]);

    // June's run: one account for each benefit, sold whole and paid out in one final payout.
    await db.exec(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
      VALUES ('DEPA-200003', '2026-05-29', 0, 9999.95, 9999.95, 1, 'test')`);
    now = new Date('2026-06-01T05:00:00Z');
    await makeRun(db, deps, (tx) => runPayoutRun(tx, deps, '2026-06', now));
    const outbox = gateway.outbox('demo-custodian');
    const xml = await readFile(join(outbox, 'payout-2026-06.DebitAccounts.xml'), 'utf8');
    assert.deepEqual(schemas.validate(xml, 'DebitAccounts'), []);
    const accounts = [...xml.matchAll(/<Account>([\s\S]*?)<\/Account>/g)].map(([, account]) => [
      /<AccountNumber>([^<]+)/.exec(account!)![1],
      [...account!.matchAll(/<SellOrder>[\s\S]*?<Amount>([^<]+)<\/Amount>\s*<SellBy>([^<]+)/g)].map((m) => `sell ${m[1]} by ${m[2]}`),
      [...account!.matchAll(/<Payout>\s*<Amount>([^<]+)<\/Amount>\s*<PayBy>([^<]+)<\/PayBy>\s*<Installment>(\d+)<\/Installment>\s*<Final>(\w+)/g)]
        .map((m) => `pay ${m[1]} by ${m[2]}, installment ${m[3]}, final ${m[4]}`),
    ]);
    assert.deepEqual(accounts, [
      ['DEPA-100006', ['sell 123456.78 by 2026-06-10'], ['pay 123456.78 by 2026-06-22, installment 1, final true']],
      ['DEPA-200003', ['sell 9999.95 by 2026-06-10'], ['pay 9999.95 by 2026-06-22, installment 1, final true']],
    ]);
    const { rows: ordered } = await db.query(
      `SELECT insurance_number, custody_value::text, value_as_of::text, insurer_amount::text, run_key, sell_by::text, pay_by::text FROM death_benefits ORDER BY 1`);
    assert.deepEqual(ordered, [
      { insurance_number: 'INS-100006', custody_value: '123456.78', value_as_of: '2026-05-15', insurer_amount: '1234.57', run_key: '2026-06', sell_by: '2026-06-10', pay_by: '2026-06-22' },
      // Valued by the run: 1 % of 9 999.95 is 99.9995 → 100.00.
      { insurance_number: 'INS-200003', custody_value: '9999.95', value_as_of: '2026-05-29', insurer_amount: '100.00', run_key: '2026-06', sell_by: '2026-06-10', pay_by: '2026-06-22' },
    ]);
    const { rows: lines } = await db.query(`SELECT insurance_number, charge, basis, amount::text FROM debit_lines WHERE run_key = '2026-06' ORDER BY 1`);
    assert.deepEqual(lines, [
      { insurance_number: 'INS-100006', charge: 'SellOrder', basis: 'DeathBenefit', amount: '123456.78' },
      { insurance_number: 'INS-200003', charge: 'SellOrder', basis: 'DeathBenefit', amount: '9999.95' },
    ]);

    // Once: June made again and July's run order nothing more (INS-200002's payout ended with its insured).
    const again = await makeRun(db, deps, (tx) => runPayoutRun(tx, deps, '2026-06', new Date('2026-06-02T05:00:00Z')));
    const july = await makeRun(db, deps, (tx) => runPayoutRun(tx, deps, '2026-07', new Date('2026-07-01T05:00:00Z')));
    assert.deepEqual([again.created, july.created], [[], []]);
    expect((await readdir(outbox)).filter((name) => name.endsWith('.xml'))).toStrictEqual(['payout-2026-06.DebitAccounts.xml']);
    const { rows: counts } = await db.query(`SELECT (SELECT count(*)::int FROM debit_lines) AS lines, (SELECT count(*)::int FROM payout_orders) AS orders`);
    assert.deepEqual(counts, [{ lines: 2, orders: 0 }]);
  } finally {
    await gateway.destroy();
    await database.drop();
    await template.drop();
    await rm(folder, { recursive: true, force: true });
  }
});
