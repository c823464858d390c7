/**
 * Real processes for the tests that kill things: the gateway CLI as a child process,
 * and a private redis-server the test may stop and start again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { PROJECT_ROOT } from '../../src/config/load-config.ts';
import { freePort } from '../../src/pipeline/embedded-redis.ts';

export { freePort };

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  kill(): Promise<void>;
  start(): Promise<void>;
}

/** A redis-server of the test's own, on a free port, without persistence (a restart empties it). */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'dg-redis-'));
  let child: ChildProcess | undefined;
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
      await waitForRedis(server.url);
    },
    async kill() {
      const running = child;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGKILL');
      });
    },
  };
  await server.start();
  return server;
}

async function waitForRedis(url: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      client.disconnect();
    }
  }
}

/** Writes a configuration file for a child gateway process. */
export async function writeConfigFile(folder: string, settings: Record<string, unknown>): Promise<string> {
  const path = join(folder, 'gateway.json');
  await writeFile(path, JSON.stringify(settings, null, 2));
  return path;
}

export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly output: () => string;
  /** Resolves with the exit code (or signal name). */
  readonly exited: Promise<number | string>;
}

/** Runs `depot-gateway <args>` as a child process. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, input?: string): GatewayProcess {
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'depot-gateway.js'), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  if (input !== undefined) child.stdin?.end(input);
  else child.stdin?.end();
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return { child, output: () => output, exited };
}

/** Runs a CLI command to completion and returns its exit code, stdout and stderr. */
export function runCliToEnd(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'depot-gateway.js'), ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
