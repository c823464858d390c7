/**
 * The operator's commands run as an operator runs them (a child process, a config
 * file, real PostgreSQL): `migrate` on an empty database and again, `debit-run` that
 * delivers a custodian's DebitAccounts and makes nothing new when repeated, `debit-run`
 * whose outbox cannot be written (the run stored, the recorded file delivered by the
 * repeat), `payout-run` on a month with nothing in payout, `replay` of an id that
 * does not exist, and `withdrawals register` refused by its rules (exit 1 with the code,
 * as every refusal; 2 is for usage and system errors).
 */
import { describe, test, beforeAll, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createTestDatabase, deleteQueues, testSettings, type TestDatabase } from './support/harness.ts';
import { runCliToEnd, writeConfigFile } from './support/processes.ts';

describe('operator commands', () => {
  let database: TestDatabase;
  let folder: string;
  let config: string;
  let queuePrefix: string;
  const cli = (...args: string[]) => runCliToEnd([...args, '--config', config]);
  const sql = async <Row extends object>(text: string): Promise<Row[]> => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query<Row>(text)).rows;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    folder = await mkdtemp(join(tmpdir(), 'dg-cli-runs-'));
    const settings = testSettings(join(folder, 'data'), { databaseUrl: database.url, port: 1, logLevel: 'warn' });
    queuePrefix = settings.queuePrefix as string;
    config = await writeConfigFile(folder, settings);
  });
  afterAll(async () => {
    await database.drop();
    await deleteQueues(queuePrefix);
    await rm(folder, { recursive: true, force: true });
  });

  test('migrate brings an empty database up to date, and a second run finds nothing to do', async () => {
    const first = await cli('migrate');
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^applied migrations 1, 2, 3, /);
    const rows = await sql<{ count: string }>('SELECT count(*) FROM schema_migrations');
    assert.ok(Number(rows[0]!.count) >= 12);
    const second = await cli('migrate');
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, 'database is up to date\n');
  });

  test("debit-run delivers the custodian's DebitAccounts once; the repeat makes nothing new", async () => {
    // The custodian reported the accounts' values at the quarter's end (as its Holdings would).
    await sql(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
               SELECT account_number, '2026-09-30', 5000, 95000, 100000, 1, 'cli-runs-test' FROM custody_accounts WHERE custodian_id = 'demo-custodian'`);
    const first = await cli('debit-run', '--year', '2026', '--quarter', '3', '--json');
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout.trim().split('\n').length, 1, `one JSON line on stdout, logs elsewhere:\n${first.stdout.slice(0, 2000)}`);
    const outcome = JSON.parse(first.stdout) as { runKey: string; created: { custodianId: string; fileName: string; accounts: number }[]; delivered: { target: string }[] };
    assert.equal(outcome.runKey, '2026-Q3');
    assert.deepEqual(outcome.created.map((c) => [c.custodianId, c.accounts]), [['demo-custodian', 6]]);
    assert.equal(outcome.delivered.length, 1);
    const outbox = join(folder, 'data', 'counterparties', 'demo-custodian', 'outbox');
    const files = await readdir(outbox);
    expect(files).toEqual([outcome.created[0]!.fileName]);
    assert.match(await readFile(join(outbox, files[0]!), 'utf8'), /<DebitAccounts[\s>]/);

    const again = await cli('debit-run', '--year', '2026', '--quarter', '3');
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, '2026-Q3: already run for every custodian; nothing new.\n');
    expect(await readdir(outbox)).toEqual(files); // no second file

    const bad = await cli('debit-run', '--year', '2026', '--quarter', '5');
    assert.equal(bad.code, 2, 'a quarter that does not exist is a usage error');
    assert.notEqual(bad.stderr, '');
  });

  test('debit-run whose outbox cannot be written stores the run and exits 2; the repeat delivers the file it stored', async () => {
    await sql(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
               SELECT account_number, '2026-03-31', 5000, 95000, 100000, 1, 'cli-runs-test' FROM custody_accounts WHERE custodian_id = 'demo-custodian'`);
    const outbox = join(folder, 'data', 'counterparties', 'demo-custodian', 'outbox');
    // A folder where the file should go: the file cannot be written.
    const blocker = join(outbox, 'debit-run-2026-Q2.DebitAccounts.xml');
    await mkdir(blocker);
    const failed = await cli('debit-run', '--year', '2026', '--quarter', '2', '--json').finally(() => rm(blocker, { recursive: true }));
    assert.equal(failed.code, 2, failed.stderr);
    assert.match(failed.stderr, /DELIVERY_FAILED: .*DA-2026-Q2-demo-custodian not delivered .*The run is stored/);
    const outcome = JSON.parse(failed.stdout) as { created: { documentId: string; fileName: string }[]; delivered: unknown[]; undelivered: string[] };
    assert.deepEqual([outcome.created.map((c) => c.documentId), outcome.delivered, outcome.undelivered], [['DA-2026-Q2-demo-custodian'], [], ['DA-2026-Q2-demo-custodian']]);
    const [stored] = await sql<{ file_name: string; body: string; lines: number }>(
      `SELECT file_name, body, (SELECT count(*)::int FROM debit_lines WHERE run_key = '2026-Q2') AS lines FROM outgoing_documents WHERE document_id = 'DA-2026-Q2-demo-custodian'`,
    );
    assert.equal(stored?.file_name, 'debit-run-2026-Q2.DebitAccounts.xml');
    assert.ok(stored!.lines > 0, 'the debits are stored');

    const again = await cli('debit-run', '--year', '2026', '--quarter', '2');
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, `2026-Q2: already run for every custodian; nothing new.\ndelivered DA-2026-Q2-demo-custodian, stored by an earlier run: ${join(outbox, stored!.file_name)}\n`);
    assert.equal(await readFile(join(outbox, stored!.file_name), 'utf8'), stored!.body, 'the file stored by the first run, not a new one');
  });

  test('payout-run on a month with no insurance in payout makes no document', async () => {
    const run = await cli('payout-run', '--month', '2026-12', '--json');
    assert.equal(run.code, 0, run.stderr);
    const outcome = JSON.parse(run.stdout) as { runKey: string; created: unknown[] };
    assert.equal(outcome.runKey, '2026-12');
    assert.deepEqual(outcome.created, []);
    assert.equal((await cli('payout-run', '--month', 'December')).code, 2);
  });

  test('withdrawals register refused by its rules exits 1 with the first problem\'s code and saves nothing', async () => {
    const register = (insurance: string, amount: string) =>
      cli('withdrawals', 'register', '--insurance', insurance, '--amount', amount, '--account', '50001234560', '--channel', 'paper-form', '--reference', 'form 17');
    // The demo's K insurance is held by the employer, whose company signatories are not registered, and the account is not validated.
    const refused = await register('INS-100006', '5000.00');
    assert.equal(refused.code, 1, refused.stderr);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /^depot-gateway: WITHDRAWAL_NOT_ALLOWED: /);
    const unknown = await register('INS-999999', '5000.00');
    assert.deepEqual([unknown.code, /^depot-gateway: ([A-Z_]+):/.exec(unknown.stderr)?.[1]], [1, 'RESOURCE_NOT_FOUND']);
    const badAmount = await register('INS-100006', 'lots');
    assert.deepEqual([badAmount.code, /^depot-gateway: ([A-Z_]+):/.exec(badAmount.stderr)?.[1]], [1, 'REQUEST_INVALID']);
    assert.deepEqual(await sql('SELECT request_id FROM withdrawal_requests'), [], 'nothing saved');
  });

  test('replay of an id no message has exits 1 with MESSAGE_NOT_FOUND', async () => {
    const replay = await cli('replay', '01JZZZZZZZZZZZZZZZZZZZZZZZ');
    assert.equal(replay.code, 1, replay.stderr);
    assert.match(replay.stderr, /MESSAGE_NOT_FOUND/);
  });
});
