/**
 * `payout-run` and `debit-run` while a gateway runs, as with the demo: a gateway process
 * (`start`) on the embedded database in its data folder, which no second process may
 * open — the commands used to stop there with DATA_FOLDER_IN_USE. They now go through the
 * gateway's staff API (POST /api/payout-runs, /api/debit-runs): a dry run prints the
 * documents and stores nothing; a debit run is made by the gateway, whose worker puts the
 * custodian's DebitAccounts in its outbox before the command answers; the repeat makes
 * nothing new. The custodian's values come in as its Holdings would, submitted through
 * the same gateway.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { deleteQueues, testSettings } from './support/harness.ts';
import { freePort, runCli, runCliToEnd, writeConfigFile, type GatewayProcess } from './support/processes.ts';

describe('runs while a gateway holds the embedded database', () => {
  let folder: string;
  let config: string;
  let queuePrefix: string;
  let port: number;
  let gateway: GatewayProcess;
  const cli = (...args: string[]) => runCliToEnd([...args, '--config', config]);
  const outbox = () => join(folder, 'data', 'counterparties', 'demo-custodian', 'outbox');
  /** The DebitAccounts files in the custodian's outbox (its report's answer lies there too); an array of fs's realm, so compared with toEqual. */
  const runFiles = async () => (await readdir(outbox()).catch(() => [])).filter((name) => name.endsWith('.DebitAccounts.xml'));

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'dg-runs-gateway-'));
    port = await freePort();
    // No databaseUrl: the embedded database in the data folder, as the demo runs.
    const settings = testSettings(join(folder, 'data'), { port, logLevel: 'warn' });
    queuePrefix = settings.queuePrefix as string;
    config = await writeConfigFile(folder, settings);
    gateway = runCli(['start', '--config', config]);
    const deadline = Date.now() + 240_000; // a first start creates the database
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.ok, () => false);
      if (up) break;
      assert.ok(gateway.child.exitCode === null && Date.now() < deadline, `the gateway did not start:\n${gateway.output().slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 300_000);
  afterAll(async () => {
    if (gateway && gateway.child.exitCode === null) {
      gateway.child.kill('SIGTERM');
      await gateway.exited;
    }
    await deleteQueues(queuePrefix);
    await rm(folder, { recursive: true, force: true });
  });

  test('payout-run --dry-run works and stores nothing', async () => {
    const run = await cli('payout-run', '--month', '2026-12', '--dry-run', '--json');
    assert.equal(run.code, 0, run.stderr);
    const outcome = JSON.parse(run.stdout) as { runKey: string; created: unknown[]; documents: unknown[] };
    assert.deepEqual([outcome.runKey, outcome.created, outcome.documents], ['2026-12', [], []]);
    const again = await cli('payout-run', '--month', '2026-12', '--dry-run');
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, '2026-12: already run for every custodian; nothing new.\n');
    const bad = await cli('payout-run', '--month', '2026-13', '--dry-run');
    assert.equal(bad.code, 2, 'a month that does not exist is a usage error');
  }, 120_000);

  test("debit-run is made by the running gateway: the custodian's file is in its outbox when the command answers; the repeat makes nothing new", async () => {
    // The custodian's values at the end of Q3, as its Holdings of 30 September would bring them.
    const holdings = (await readFile(join(PROJECT_ROOT, 'fixtures/Holdings/valid/all-accounts.xml'), 'utf8'))
      .replace('<MessageId>HOLD-2026-11-19<', '<MessageId>HOLD-2026-09-30<').replaceAll('2026-11-19', '2026-09-30');
    const report = join(folder, 'holdings-2026-09-30.xml');
    await writeFile(report, holdings);
    const submitted = await cli('submit', report, '--from', 'demo-custodian');
    assert.equal(submitted.code, 0, submitted.stderr);

    const dry = await cli('debit-run', '--year', '2026', '--quarter', '3', '--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^demo-custodian +3 +[\d.]+ +3 +debit-run-2026-Q3\.DebitAccounts\.xml +\(dry run\)$/m, 'three accounts debited, three held back for want of values');
    expect(await runFiles()).toEqual([]); // a dry run sends nothing

    const run = await cli('debit-run', '--year', '2026', '--quarter', '3', '--json');
    assert.equal(run.code, 0, run.stderr);
    const outcome = JSON.parse(run.stdout) as { created: { custodianId: string; fileName: string }[]; delivered: { target: string }[]; undelivered: string[] };
    assert.deepEqual(outcome.created.map((created) => [created.custodianId, created.fileName]), [['demo-custodian', 'debit-run-2026-Q3.DebitAccounts.xml']]);
    assert.deepEqual(outcome.undelivered, []);
    assert.equal(outcome.delivered[0]?.target, join(outbox(), 'debit-run-2026-Q3.DebitAccounts.xml'));
    assert.match(await readFile(outcome.delivered[0]!.target, 'utf8'), /<DebitAccounts[\s>]/);

    const again = await cli('debit-run', '--year', '2026', '--quarter', '3');
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, '2026-Q3: already run for every custodian; nothing new.\n');
    expect(await runFiles()).toEqual(['debit-run-2026-Q3.DebitAccounts.xml']); // no second file
  }, 180_000);
});
