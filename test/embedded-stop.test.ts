/**
 * The embedded default as a service manager runs it: the gateway started on its own
 * (PGlite in the data folder, a private redis-server) in a process group of its own,
 * and stopped by SIGTERM to the whole group — its redis-server gets the signal at the
 * same moment, or is dead already. Either way the gateway is gone within 10 s and
 * leaves no redis-server behind. Its idle memory is measured here too.
 */
import { test, afterAll, afterEach } from '@jest/globals';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { freePort } from '../src/pipeline/embedded-redis.ts';
import { runCliToEnd } from './support/processes.ts';

interface Started {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly redisPid: number;
  readonly output: () => string;
  readonly exited: Promise<void>;
}

const dataDir = await mkdtemp(join(tmpdir(), 'dg-embedded-stop-'));
const started: Started[] = [];
afterAll(async () => {
  for (const gateway of started) if (gateway.child.exitCode === null && gateway.child.signalCode === null) process.kill(-gateway.pid, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

/** Set by a test whose gateway must be gone before the next test starts one on the same data folder. */
let stopAfterTest: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stopAfterTest?.();
  stopAfterTest = undefined;
});

async function startGateway(): Promise<Started> {
  // The demo configuration and nothing from the test's environment: embedded database and Redis.
  const { DATABASE_URL, REDIS_URL, DEPOT_GATEWAY_CONFIG, ...inherited } = process.env;
  void [DATABASE_URL, REDIS_URL, DEPOT_GATEWAY_CONFIG];
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'depot-gateway.js'), '--demo', 'start'], {
    cwd: PROJECT_ROOT,
    env: { ...inherited, DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // a process group of its own, as under a service manager
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pid = child.pid!;
  const deadline = Date.now() + 240_000; // a first start creates the database (initdb)
  while (!output.includes('depot-gateway is running')) {
    assert.ok(child.exitCode === null && Date.now() < deadline, `the gateway did not start:\n${output.slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const redisPid = childrenOf(pid).find((candidate) => commandOf(candidate) === 'redis-server');
  assert.ok(redisPid, 'the gateway runs its own redis-server');
  const gateway = { child, pid, redisPid, output: () => output, exited };
  started.push(gateway);
  return gateway;
}

function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

function commandOf(pid: number): string {
  return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
}

/** Gone, or a zombie its parent has not reaped yet. */
function isRunning(pid: number): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

async function stopGroupWithin(gateway: Started, limitMs: number): Promise<number> {
  const sent = Date.now();
  process.kill(-gateway.pid, 'SIGTERM');
  const inTime = await Promise.race([gateway.exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), limitMs))]);
  assert.ok(inTime, `the gateway was still running ${limitMs} ms after SIGTERM:\n${gateway.output().slice(-2000)}`);
  return Date.now() - sent;
}

test('on the embedded defaults the gateway idles under 330 MB resident (720 MB run from the sources)', async () => {
  const gateway = await startGateway();
  // The tests after this one start a gateway on the same data folder: this one is stopped whatever it finds.
  stopAfterTest = () => {
    if (isRunning(gateway.pid)) process.kill(-gateway.pid, 'SIGKILL');
    return gateway.exited;
  };
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const rssMb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${gateway.pid}/status`, 'utf8'))![1]) / 1024;
  const code = /"code":"(\w+)"/.exec(gateway.output())?.[1];
  process.stdout.write(`# idle RSS ${rssMb.toFixed(0)} MB (${code})\n`);
  // Run from the sources, tsx adds about 70 MB of its own and about 160 MB more in the
  // validation thread, where it loads libxml2-wasm's 1 MB module (docs/performance.md).
  // Compiled it idled at 274 MB before the commission file, invoice specification,
  // transfer leaflet and custodian switch came, and at 294 and 303 MB in the two runs
  // after: this is a guard against growth, set above that; the target (under 200 MB) is
  // issue 33's, measured by the bench. From the sources (an edited checkout, no rebuild) it
  // was 668 MB on the same day.
  assert.ok(rssMb < (code === 'compiled' ? 330 : 720), `idle RSS ${rssMb.toFixed(0)} MB (${code})`);
  // A second process on the same embedded database is refused at once, naming the first.
  const second = await runCliToEnd(['--demo', 'migrate'], { DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', DEPOT_GATEWAY_CONFIG: '' });
  assert.equal(second.code, 2, second.stderr);
  assert.match(second.stderr, new RegExp(`DATA_FOLDER_IN_USE: .* in use by process ${gateway.pid} `));
  const ms = await stopGroupWithin(gateway, 10_000);
  process.stdout.write(`# stopped ${ms} ms after SIGTERM to its group\n`);
});

test('SIGTERM to the process group stops the gateway and its redis-server within 10 s', async () => {
  const gateway = await startGateway();
  const ms = await stopGroupWithin(gateway, 10_000);
  process.stdout.write(`# stopped ${ms} ms after SIGTERM to its group\n`);
  assert.equal(gateway.child.exitCode, 0, 'a stop that finished in time exits 0');
  assert.equal(isRunning(gateway.redisPid), false, 'no redis-server of the gateway is left running');
});

test('with its redis-server killed first, SIGTERM to the group still stops the gateway within 10 s', async () => {
  const gateway = await startGateway();
  process.kill(gateway.redisPid, 'SIGKILL');
  // Until the gateway has noticed and is reconnecting.
  const deadline = Date.now() + 10_000;
  while (!/connect ECONNREFUSED|connection problem/.test(gateway.output()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const ms = await stopGroupWithin(gateway, 10_000);
  process.stdout.write(`# stopped ${ms} ms after SIGTERM to its group\n`);
  assert.equal(isRunning(gateway.redisPid), false, 'no redis-server of the gateway is left running');
  assert.match(gateway.output(), /"msg":"(stopped|stopping took too long[^"]*)"/, 'the gateway says how it stopped');
});

test('a gateway killed with SIGKILL leaves its redis-server behind; the next start on the data folder stops it and takes over the database', async () => {
  const killed = await startGateway();
  process.kill(killed.pid, 'SIGKILL');
  await killed.exited;
  assert.equal(isRunning(killed.redisPid), true, 'a SIGKILL gives the gateway no chance to stop its redis-server');
  const next = await startGateway();
  assert.notEqual(next.redisPid, killed.redisPid);
  assert.equal(isRunning(killed.redisPid), false, 'the left-over redis-server was stopped by the next start');
  const ms = await stopGroupWithin(next, 10_000);
  process.stdout.write(`# restarted over a killed gateway; stopped ${ms} ms after SIGTERM\n`);
});
