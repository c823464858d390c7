/**
 * What `depot-gateway start` prints: at a terminal (a pseudo-terminal from script(1))
 * readable lines ending in a summary of where to look and how to stop; on a pipe one
 * JSON object a line, the summary as one record, and one line per calendar job however
 * many periods its catch-up made up. Real PostgreSQL and Redis; the gateway runs as a
 * child process. The choice of format and the summary's text are checked on their own too.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { parseConfig } from '../src/config/load-config.ts';
import { chooseLogFormat } from '../src/observability/gateway-logger.ts';
import { buildStartSummary, formatStartSummary } from '../src/cli/start-summary.ts';
import { hashSecret } from '../src/config/secret-hash.ts';
import { createTestDatabase, deleteQueues, testSettings, waitFor, type TestDatabase } from './support/harness.ts';
import { freePort, runCli, writeConfigFile } from './support/processes.ts';

describe('the log format', () => {
  test('auto is pretty at a terminal and JSON otherwise; json and pretty are forced', () => {
    assert.equal(chooseLogFormat('auto', true), 'pretty');
    assert.equal(chooseLogFormat('auto', false), 'json');
    assert.equal(chooseLogFormat('json', true), 'json');
    assert.equal(chooseLogFormat('pretty', false), 'pretty');
  });

  test('LOG_FORMAT sets it; anything else is a configuration error naming the setting', () => {
    assert.equal(parseConfig({}).logFormat, 'auto');
    assert.equal(parseConfig({ logFormat: 'json' }).logFormat, 'json');
    assert.throws(() => parseConfig({ logFormat: 'colour' }), /logFormat: /);
  });

  test('the summary shows the demo password, and for any other configuration only where it is set', async () => {
    const folders = new Map([['demo-employer', '/srv/dg/counterparties/demo-employer']]);
    const users = { staff: { users: [{ username: 'staff', password: 'demo-password' }] } };
    const demo = formatStartSummary(buildStartSummary(parseConfig({ ...users, demo: true, port: 8080 }), folders, 8080, 42));
    assert.match(demo, /drop documents into {2}\/srv\/dg\/counterparties\/demo-employer\/inbox\n/);
    assert.match(demo, /answers appear in {4}\/srv\/dg\/counterparties\/demo-employer\/outbox\n/);
    assert.match(demo, /queue dashboard {2}http:\/\/127\.0\.0\.1:8080\/admin\/queues {2}\(login staff \/ demo-password\)/);
    assert.match(demo, /staff API {8}http:\/\/127\.0\.0\.1:8080\/api\/messages/);
    assert.match(demo, /to stop {10}Ctrl\+C, or kill -TERM 42/);
    const real = formatStartSummary(buildStartSummary(parseConfig({ ...users, port: 8080 }), folders, 8080, 42));
    assert.doesNotMatch(real, /demo-password/);
    assert.match(real, /\(login staff \/ \(password in staff\.users\)\)/);
    const hashed = formatStartSummary(buildStartSummary(parseConfig({ staff: { users: [{ username: 'ops', passwordHash: await hashSecret('a-long-staff-password') }] }, port: 8080 }), folders, 8080, 42));
    assert.match(hashed, /\(login ops \/ \(the password whose hash is in staff\.users\)\)/);
  });

  test('the summary names where Prometheus scrapes: the api port, or metricsPort in a process without the api role', () => {
    const folders = new Map([['demo-employer', '/srv/dg/counterparties/demo-employer']]);
    assert.match(formatStartSummary(buildStartSummary(parseConfig({ port: 8080 }), folders, 8080, 42)), /metrics {10}http:\/\/127\.0\.0\.1:8080\/metrics {2}\(Prometheus; a staff login, HTTP Basic\)/);
    const worker = formatStartSummary(buildStartSummary(parseConfig({ metricsPort: 9464 }), folders, undefined, 42, 9464));
    assert.match(worker, /metrics {10}http:\/\/127\.0\.0\.1:9464\/metrics/);
    assert.doesNotMatch(worker, /queue dashboard/);
    assert.doesNotMatch(formatStartSummary(buildStartSummary(parseConfig({}), folders, undefined, 42)), /metrics/);
  });
});

describe('depot-gateway start', () => {
  let database: TestDatabase;
  let folder: string;
  let config: string;
  let queuePrefix: string;
  let port: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    folder = await mkdtemp(join(tmpdir(), 'dg-start-'));
    port = await freePort();
    const settings = testSettings(join(folder, 'data'), { databaseUrl: database.url, port, logLevel: 'info' });
    queuePrefix = settings.queuePrefix as string;
    config = await writeConfigFile(folder, settings);
  });
  afterAll(async () => {
    await database.drop();
    await deleteQueues(queuePrefix);
    await rm(folder, { recursive: true, force: true });
  });

  test('on a pipe: JSON lines, one line per calendar job, and the summary as the "where to look" record', async () => {
    const gateway = runCli(['start', '--config', config], { LOG_LEVEL: 'info', LOG_FORMAT: '' });
    try {
      const lines = await waitFor(() => {
        const records = gateway.output().split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
        return records.some((r) => r.msg === 'where to look') && records;
      }, 'the start summary', 120_000);
      const summary = lines.find((r) => r.msg === 'where to look') as Record<string, unknown> & { folders: { counterparty: string; inbox: string; outbox: string }[] };
      assert.deepEqual(summary.folders.find((f) => f.counterparty === 'demo-employer'), {
        counterparty: 'demo-employer',
        inbox: join(folder, 'data', 'counterparties', 'demo-employer', 'inbox'),
        outbox: join(folder, 'data', 'counterparties', 'demo-employer', 'outbox'),
      });
      assert.equal(summary.dashboard, `http://127.0.0.1:${port}/admin/queues`);
      assert.equal(summary.api, `http://127.0.0.1:${port}/api/messages`);
      assert.equal(summary.login, 'staff / test-password', 'the test configuration is a demo one');
      assert.match(String(summary.stop), new RegExp(`kill -TERM ${gateway.child.pid}`));
      const validation = lines.find((r) => r.msg === 'schema validation ready');
      assert.match(String(validation?.libxml2), /^\d+\.\d+(\.\d+)?$/, 'the libxml2 release that validates is on record');
      assert.match(String(validation?.binding), /^libxml2-wasm \d+\.\d+\.\d+$/, 'and the build it runs in');
      // The calendar's catch-up on a fresh database runs many periods; each job says so once.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const calendar = gateway.output().split('\n').filter((line) => line.includes('"job":')).map((line) => JSON.parse(line) as { job: string; level: number; msg: string });
      const perJob = new Map<string, { msg: string }[]>();
      for (const r of calendar.filter((c) => c.level === 30 && c.msg.startsWith('calendar job'))) perJob.set(r.job, [...(perJob.get(r.job) ?? []), r]);
      assert.ok(perJob.size > 0, 'some calendar job ran');
      for (const [job, records] of perJob) assert.equal(records.length, 1, `${job}: ${records.map((r) => r.msg).join('; ')}`);
      assert.ok([...perJob.values()].flat().some((r) => /caught up on \d+ periods/.test(r.msg)), 'a catch-up is summarised');
      gateway.child.kill('SIGTERM');
      assert.equal(await gateway.exited, 0, gateway.output());
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    }
  });

  test('`depot-gateway worker` with METRICS_PORT: Prometheus scrapes that process on its own port, with a staff login', async () => {
    const metricsPort = await freePort();
    const worker = runCli(['worker', '--config', config], { LOG_LEVEL: 'info', LOG_FORMAT: '', METRICS_PORT: String(metricsPort) });
    try {
      const summary = await waitFor(() => worker.output().split('\n').filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string; metrics?: string; dashboard?: string })
        .find((record) => record.msg === 'where to look'), 'the worker\'s summary', 120_000);
      assert.equal(summary.metrics, `http://127.0.0.1:${metricsPort}/metrics`);
      assert.equal(summary.dashboard, undefined, 'no api role, no dashboard');
      assert.equal((await fetch(summary.metrics)).status, 401);
      const scrape = await fetch(summary.metrics, { headers: { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` } });
      assert.equal(scrape.status, 200);
      assert.match(await scrape.text(), /^depot_gateway_queue_jobs\{queue="validate",state="waiting"\} \d+$/m);
      worker.child.kill('SIGTERM');
      assert.equal(await worker.exited, 0, worker.output());
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    }
  });

  test('at a terminal: readable lines ending in where to look and how to stop, which works', async () => {
    const command = [process.execPath, join(PROJECT_ROOT, 'bin', 'depot-gateway.js'), 'start', '--config', config].map((part) => `'${part}'`).join(' ');
    const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd: PROJECT_ROOT, env: { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // eslint-disable-next-line no-control-regex
      const plain = () => output.replace(/\u001b\[[0-9;]*m/g, '').replace(/\r/g, '');
      const stopPid = await waitFor(() => /kill -TERM (\d+)/.exec(plain())?.[1], 'the start summary at the terminal', 120_000);
      const text = plain();
      assert.doesNotMatch(text, /^\{"level"/m, 'no JSON lines at a terminal');
      assert.match(text, /^\[\d\d:\d\d:\d\d\] INFO: depot-gateway is running/m);
      assert.match(text, /depot-gateway is ready\.\n {2}demo-employer\n {4}drop documents into {2}\S+\/counterparties\/demo-employer\/inbox\n/);
      assert.match(text, new RegExp(`queue dashboard {2}http://127\\.0\\.0\\.1:${port}/admin/queues {2}\\(login staff / test-password\\)`));
      process.kill(Number(stopPid), 'SIGTERM');
      assert.equal(await exited, 0, text);
      assert.match(plain(), /stopping: finishing active jobs/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
