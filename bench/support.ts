/**
 * Plumbing for the benchmark: a throw-away PostgreSQL database, Redis key clean-up,
 * the gateway as a child process (started, waited for, stopped) and its memory read
 * from /proc. Nothing here measures anything by itself.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { createTestDatabase, deleteQueues } from '../test/support/harness.ts';
import { freePort } from '../src/pipeline/embedded-redis.ts';
export { freePort };
export { writeConfigFile as writeConfig } from '../test/support/processes.ts';

/** A fresh database on the real PostgreSQL server for one benchmark run. */
export const createDatabase = (): Promise<BenchDatabase> => createTestDatabase(undefined, 'dg_bench');
/** Deletes every Redis key under the BullMQ prefix; returns how many. */
export const deleteQueueKeys = (prefix: string): Promise<number> => deleteQueues(prefix, REDIS_URL);

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CLI = join(PROJECT_ROOT, 'bin', 'depot-gateway.js');

export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${JSON.stringify(raw)}`);
  return value;
}

export interface BenchDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * Asks the PostgreSQL server for a checkpoint before a scenario (needs a superuser, as
 * the tests' admin URL is). Without one, a scenario that happens to cross the server's
 * next checkpoint writes the pages it touches again in full to the WAL and costs
 * PostgreSQL more than one that does not; with one, runs start alike. Gives whether it could.
 */
export async function checkpoint(databaseUrl: string): Promise<boolean> {
  return withClient(databaseUrl, (client) => client.query('CHECKPOINT')).then(() => true, () => false);
}

/** Runs one query on the bench database with a short-lived connection. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** `depot-gateway migrate`: with demo: true, opening the store migrates and seeds the demo ledger. */
export function runMigrate(configFile: string): void {
  const result = spawnSync(process.execPath, [CLI, 'migrate', '--config', configFile], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`migrate failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
}

/** One process of the gateway and what it runs: `start` (every role), `api`, `watch`, or `worker 1` … `worker N`. */
export interface GatewayRole {
  readonly role: string;
  readonly pid: number;
}

export interface GatewayProcess {
  /** The `start` process, or with the roles apart the `api` one (it answers /readyz). */
  readonly child: ChildProcess;
  readonly pid: number;
  /** Every process of the gateway (one, or with the roles apart `api`, `watch` and the workers). */
  readonly pids: readonly number[];
  /** The same processes with their roles, in the same order. */
  readonly processes: readonly GatewayRole[];
  output(): string;
  /** Stops every process; gives the exit of the one process, or 0 when all exited 0 and otherwise each one's. */
  stop(): Promise<number | string>;
}

/** A gateway process started by the benchmark: its output kept (the last 100,000 characters or so) and its exit awaited. */
class StartedProcess {
  readonly role: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | string>;
  exitedWith: number | string | undefined;
  #output = '';

  constructor(role: string, command: string, configFile: string, env: NodeJS.ProcessEnv) {
    this.role = role;
    const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
    this.child = spawn(process.execPath, [...nodeArgs, CLI, command, '--config', configFile], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // BENCH_GATEWAY_OUTPUT=<file>: everything the gateway prints (every process's, as it comes), kept whole (e.g. with --trace-gc).
    const outputFile = process.env.BENCH_GATEWAY_OUTPUT;
    const keep = (chunk: Buffer) => {
      if (outputFile) appendFileSync(outputFile, chunk);
      this.#output += chunk.toString();
      if (this.#output.length > 200_000) this.#output = this.#output.slice(-100_000);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
    void this.exited.then((code) => (this.exitedWith = code));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  output(): string {
    return this.#output;
  }

  /** SIGTERM, and SIGKILL after 30 s: a gateway stops within 10 s on its own. */
  async stop(): Promise<number | string> {
    if (this.exitedWith !== undefined) return this.exitedWith;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Starts `depot-gateway start` and resolves once /readyz answers 200 and, with `workers` of 1 or
 * more, the gateway's roles apart on this host instead: one `api` process, one `watch` and
 * `workers` processes of the `worker` role, all on the same configuration (database, queue
 * prefix, data folder), resolving once every one of them has started. The `watch` and
 * `worker` processes have no HTTP port but a metrics port (METRICS_PORT), opened last of
 * all they start: its first answer, whatever it is, says the process has started.
 * Default of `workers`: 1 with BENCH_GATEWAY_SPLIT=1, otherwise 0 (`start`).
 * BENCH_GATEWAY_NODE_ARGS adds node options to the gateway only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
export async function startGateway(
  configFile: string, port: number, timeoutMs = 60_000, workers = process.env.BENCH_GATEWAY_SPLIT === '1' ? 1 : 0,
): Promise<GatewayProcess> {
  const mainRole = workers > 0 ? 'api' : 'start';
  const main = new StartedProcess(mainRole, mainRole, configFile, {});
  const companions: { process: StartedProcess; metricsPort: number }[] = [];
  const companionRoles = workers > 0 ? ['watch', ...Array.from({ length: workers }, (_, index) => `worker ${index + 1}`)] : [];
  for (const role of companionRoles) {
    const metricsPort = await freePort();
    const command = role.startsWith('worker') ? 'worker' : role;
    companions.push({ process: new StartedProcess(role, command, configFile, { METRICS_PORT: String(metricsPort) }), metricsPort });
  }
  const all = [main, ...companions.map((companion) => companion.process)];
  const output = () => (all.length === 1
    ? main.output()
    : all.filter((each) => each.output()).map((each) => `--- ${each.role} (pid ${each.pid}) ---\n${each.output()}`).join('\n'));
  const gateway: GatewayProcess = {
    child: main.child,
    pid: main.pid,
    pids: all.map((each) => each.pid).filter((pid) => pid !== -1),
    processes: all.map((each) => ({ role: each.role, pid: each.pid })),
    output,
    async stop() {
      const companionExits = await Promise.all(companions.map((companion) => companion.process.stop()));
      const mainExit = await main.stop();
      if (companions.length === 0) return mainExit;
      const exits = [mainExit, ...companionExits];
      return exits.every((exit) => exit === 0) ? 0 : all.map((each, index) => `${each.role} ${exits[index]}`).join(', ');
    },
  };
  const answers = async (url: string, ok: (status: number) => boolean) => {
    try {
      return ok((await fetch(url, { signal: AbortSignal.timeout(1000) })).status);
    } catch {
      return false; // not listening yet
    }
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const exited = all.find((each) => each.exitedWith !== undefined);
    if (exited) {
      await gateway.stop();
      throw new Error(`the gateway's ${exited.role} process exited (${exited.exitedWith}) before it was ready:\n${output()}`);
    }
    const ready = await Promise.all([
      answers(`http://127.0.0.1:${port}/readyz`, (status) => status === 200),
      ...companions.map((companion) => answers(`http://127.0.0.1:${companion.metricsPort}/metrics`, () => true)),
    ]);
    const waitingFor = all.filter((_, index) => !ready[index]).map((each) => each.role);
    if (waitingFor.length === 0) return gateway;
    if (Date.now() > deadline) {
      await gateway.stop();
      throw new Error(`the gateway was not ready after ${timeoutMs} ms (waiting for ${waitingFor.join(', ')}):\n${output()}`);
    }
    await sleep(100);
  }
}

/** VmRSS and VmHWM (peak RSS) of a process, in bytes; undefined once it is gone. */
export function processMemory(pid: number): { rss: number; hwm: number } | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Samples a process's RSS every `everyMs`; `peak()` is the largest sample since the last `resetPeak()`. */
export class RssSampler {
  readonly #pid: number;
  readonly #timer: NodeJS.Timeout;
  #peak = 0;
  #overallPeak = 0;
  #last: { rss: number; hwm: number } | undefined;

  constructor(pid: number, everyMs = 250) {
    this.#pid = pid;
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), everyMs);
    this.#timer.unref();
  }

  #sample(): void {
    const memory = processMemory(this.#pid);
    if (!memory) return;
    this.#last = memory;
    this.#peak = Math.max(this.#peak, memory.rss);
    this.#overallPeak = Math.max(this.#overallPeak, memory.rss);
  }

  resetPeak(): void {
    this.#sample();
    this.#peak = this.#last?.rss ?? 0;
  }

  peak(): number {
    this.#sample();
    return this.#peak;
  }

  /** The kernel's own high-water mark (VmHWM) and the largest sampled VmRSS. */
  finish(): { vmHwm: number; sampledPeakRss: number; lastRss: number } {
    this.#sample();
    clearInterval(this.#timer);
    return { vmHwm: this.#last?.hwm ?? NaN, sampledPeakRss: this.#overallPeak, lastRss: this.#last?.rss ?? NaN };
  }
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export const mb = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10;
export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** What a one-gateway benchmark has started, for `runBenchmark` to clean up. */
export interface BenchResources {
  database?: BenchDatabase;
  gateway?: GatewayProcess;
  temp?: string;
  prefix?: string;
}

/**
 * Runs a benchmark's main function and, whatever happens, stops its gateway, drops its
 * database, deletes its queue keys and its temporary folder; exits 0 when main
 * reported correct results, 1 otherwise (with the gateway's last output on a failure).
 */
export async function runBenchmark(name: string, main: (resources: BenchResources) => Promise<boolean>): Promise<never> {
  const resources: BenchResources = {};
  let ok = false;
  try {
    ok = await main(resources);
  } catch (error) {
    process.stdout.write(`[bench ${name}] failed: ${(error as Error).stack ?? String(error)}\n`);
    const output = resources.gateway?.output();
    if (output) process.stdout.write(`[bench ${name}] gateway output:\n${output.slice(-4000)}\n`);
  } finally {
    await resources.gateway?.stop();
    await resources.database?.drop();
    if (resources.prefix) await deleteQueueKeys(resources.prefix);
    if (resources.temp) await rm(resources.temp, { recursive: true, force: true });
  }
  process.exit(ok ? 0 : 1);
}
