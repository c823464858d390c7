/**
 * The depot-gateway command as a script sees it: exit codes, the response document on
 * stdout, JSON lines from `messages --json`, and `submit` against a running gateway
 * as well as in-process when none answers. Real PostgreSQL and Redis; the CLI runs as
 * a child process.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { stockholmDate } from '../src/core/calendar-date.ts';
import { createTestDatabase, deleteQueues, testSettings, waitFor, type TestDatabase } from './support/harness.ts';
import { freePort, runCli, runCliToEnd, writeConfigFile } from './support/processes.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

// The CLI runs on the real clock, so documents are dated today.
const today = stockholmDate(new Date());

describe('depot-gateway CLI', () => {
  let database: TestDatabase;
  let folder: string;
  let config: string;
  let queuePrefix: string;
  let port: number;
  const prefixes: string[] = [];
  const file = async (name: string, content: string) => {
    const path = join(folder, name);
    await writeFile(path, content);
    return path;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    folder = await mkdtemp(join(tmpdir(), 'dg-cli-'));
    port = await freePort();
    const settings = testSettings(join(folder, 'data'), { databaseUrl: database.url, port, logLevel: 'warn' });
    queuePrefix = settings.queuePrefix as string;
    config = await writeConfigFile(folder, settings);
  });
  afterAll(async () => {
    await database.drop();
    await deleteQueues(queuePrefix);
    for (const prefix of prefixes) await deleteQueues(prefix);
    await rm(folder, { recursive: true, force: true });
  });

  test('submit with no gateway running processes in-process: exit 0 and the response on stdout', async () => {
    const path = await file('cli-ok.xml', salaryAdjustment({ messageId: 'CLI-OK' }, [{ pin: PERSONS.anna, date: today, salary: '610000.00' }]));
    const result = await runCliToEnd(['submit', path, '--from', 'demo-employer', '--wait', '--config', config]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^<\?xml[\s\S]*<SalaryAdjustmentResponse[\s\S]*<InResponseTo>CLI-OK<\/InResponseTo>[\s\S]*<Status>Accepted<\/Status>/);
    // What it wrote holds personal data: nothing is readable by other users, whatever this test's umask.
    const written = (await readdir(join(folder, 'data'), { recursive: true })).map((name) => join(folder, 'data', String(name)));
    const files = (await Promise.all(written.map(async (path) => ({ path, stats: await stat(path) })))).filter(({ stats }) => stats.isFile());
    assert.ok(files.some(({ path }) => path.includes(join('demo-employer', 'outbox'))), `the response is in the outbox: ${written.join(', ')}`);
    for (const { path, stats } of files) assert.equal(stats.mode & 0o027, 0, `${path} is ${(stats.mode & 0o777).toString(8)}`);
  });

  test('a rejected document exits 1 and still prints its response', async () => {
    const path = await file('cli-rejected.xml', salaryAdjustment({ messageId: 'CLI-NO', agreementNumber: 'AGR-9999' }, [{ pin: PERSONS.anna, date: today, salary: '1.00' }]));
    const result = await runCliToEnd(['submit', path, '--from', 'demo-employer', '--config', config]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /<Code>AGREEMENT_UNKNOWN<\/Code>/);
  });

  test("person shows the ledger's history and state as of a date; an unknown person exits 1", async () => {
    // After the first test, anna's salary is 610000.00 from today.
    const shown = await runCliToEnd(['person', PERSONS.anna, '--agreement', 'AGR-1001', '--as-of', today, '--config', config]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^${PERSONS.anna} under agreement AGR-1001, as of ${today}:\\n  employed yes, salary 610000.00 a year, category TJM`));
    assert.match(shown.stdout, /INS-100001 TJP-DEPA: premium 1800.00 a month/);
    const json = await runCliToEnd(['person', PERSONS.anna, '--agreement', 'AGR-1001', '--as-of', '2021-01-01', '--json', '--config', config]);
    const view = JSON.parse(json.stdout) as { state: { annualSalary: string; insurances: unknown[] } };
    assert.equal(view.state.annualSalary, '480000.00');
    assert.equal(view.state.insurances.length, 1, 'the KF insurance began in 2022');
    const unknown = await runCliToEnd(['person', '199506151233', '--agreement', 'AGR-1001', '--config', config]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /PERSON_NOT_FOUND/);
  });

  test('usage and system errors exit 2 with a message on stderr', async () => {
    const missingFrom = await runCliToEnd(['submit', 'x.xml', '--config', config]);
    assert.equal(missingFrom.code, 2);
    assert.match(missingFrom.stderr, /required option '--from <counterparty>'/);
    const path = await file('cli-unknown.xml', '<a/>');
    const unknown = await runCliToEnd(['submit', path, '--from', 'nobody', '--config', config]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^depot-gateway: UNKNOWN_COUNTERPARTY: /);
    const badConfig = await file('bad.json', JSON.stringify({ port: 'eighty', counterparties: [{ id: 'Bad Id' }] }));
    const invalid = await runCliToEnd(['messages', '--config', badConfig]);
    assert.equal(invalid.code, 2);
    assert.match(invalid.stderr, /CONFIG_INVALID/);
    assert.match(invalid.stderr, /port: /);
    assert.match(invalid.stderr, /counterparties\.0\.id: /);
    assert.match(invalid.stderr, /counterparties\.0\.organisationNumber: /);
    for (const limit of ['abc', '0', '-3', '2.5']) {
      const refused = await runCliToEnd(['messages', '--limit', limit, '--config', config]);
      assert.equal(refused.code, 2, `--limit ${limit}`);
      assert.match(refused.stderr, new RegExp(`option '--limit <n>' argument '${limit.replace('.', '\\.')}' is invalid\\. a whole number of at least 1, not "`));
    }
  });

  test('--version prints the release from package.json and exits 0', async () => {
    const { version } = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await runCliToEnd(['--version']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${version}\n`);
  });

  test('messages --json lists one JSON object per line with id, counterparty, type and status', async () => {
    const result = await runCliToEnd(['messages', '--json', '--config', config]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, string>);
    // A submission's external id is its own (submit:<ulid>), never the file's base name.
    assert.deepEqual(lines.map((m) => [/^submit:[0-9A-Z]{26}$/.test(m.externalId ?? ''), m.counterparty, m.type, m.status]), [
      [true, 'demo-employer', 'SalaryAdjustment', 'rejected'],
      [true, 'demo-employer', 'SalaryAdjustment', 'applied'],
    ]);
    const show = await runCliToEnd(['messages', 'show', lines[1]!.id!, '--config', config]);
    assert.equal(show.code, 0);
    assert.match(show.stdout, /status applied, accepted/);
    assert.match(show.stdout, /delivered\s+folder/);
  });

  test('a SIGTERM while the gateway is still opening: it finishes opening, closes and exits 0', async () => {
    // Its workers take jobs while the rest of it opens; a signal then must not kill it mid-job.
    const settings = testSettings(join(folder, 'opening'), { databaseUrl: database.url, port: await freePort(), logFormat: 'json' });
    prefixes.push(settings.queuePrefix as string);
    const opening = runCli(['worker', '--config', await writeConfigFile(await mkdtemp(join(folder, 'opening-')), settings)], { LOG_LEVEL: 'info' });
    try {
      await waitFor(() => /schema validation ready/.test(opening.output()) || opening.child.exitCode !== null, 'the gateway to begin opening', 60_000);
      opening.child.kill('SIGTERM');
      assert.equal(await opening.exited, 0, opening.output());
      assert.match(opening.output(), /"signal":"SIGTERM"[^\n]*"msg":"stopped"/);
    } finally {
      if (opening.child.exitCode === null) opening.child.kill('SIGKILL');
    }
  });

  test('submit hands the document to a running gateway, which stops cleanly on SIGTERM', async () => {
    const gateway = runCli(['start', '--config', config]);
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok, 'the gateway to answer', 30_000);
      const path = await file('cli-remote.xml', salaryAdjustment({ messageId: 'CLI-REMOTE' }, [{ pin: PERSONS.bertil, date: today, salary: '620000.00' }]));
      const result = await runCliToEnd(['submit', path, '--from', 'demo-employer', '--config', config]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /<InResponseTo>CLI-REMOTE<\/InResponseTo>[\s\S]*<Status>Accepted<\/Status>/);
      // The demo configuration drops a sample document at the first start; it is applied too.
      const applied = await waitFor(async () => {
        const listed = await runCliToEnd(['messages', '--json', '--status', 'applied', '--config', config]);
        const names = listed.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { externalId: string }).externalId);
        return names.includes(`demo-salary-${today}.xml`) && names;
      }, 'the demo sample applied', 20_000);
      assert.match(applied[0]!, /^submit:/, 'newest first: the submission, then the sample dropped at start');
      assert.ok(applied.indexOf(`demo-salary-${today}.xml`) > 0);
      gateway.child.kill('SIGTERM');
      assert.equal(await gateway.exited, 0, gateway.output());
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    }
  });
});
