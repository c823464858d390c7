import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { GatewayError } from '../core/gateway-error.ts';

/**
 * The embedded default for Redis: with no REDIS_URL, `start` runs a private
 * redis-server on a free loopback port with its files in <dataDir>/redis. Queue state
 * is not kept across restarts on purpose — the reconciler rebuilds it from the message
 * store. Production sets REDIS_URL.
 */
export interface EmbeddedRedis {
  readonly url: string;
  stop(): Promise<void>;
}

/** How long redis-server may take to exit on SIGTERM before it is killed. */
const STOP_GRACE_MS = 1_000;

export async function startEmbeddedRedis(dataDir: string): Promise<EmbeddedRedis> {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (found.error || found.status !== 0) {
    throw new GatewayError(
      'CONFIG_INVALID',
      'REDIS_URL is not set and redis-server is not installed. Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL=redis://host:6379.',
    );
  }
  const dir = join(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const pidFile = join(dir, 'redis-server.pid');
  await stopLeftover(pidFile);
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', join(dir, 'redis.log'), '--pidfile', pidFile],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  await waitForPing(url, child);
  return {
    url,
    // Dead already when the service manager stopped the whole process group; killed if it will not go.
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A gateway killed with SIGKILL (or by the OOM killer) cannot stop its redis-server,
 * which then runs on with no one using it; each later start would add another. The
 * pid file names it: a redis-server whose parent is no longer a depot-gateway is such
 * a leftover and is stopped (SIGTERM, then SIGKILL after STOP_GRACE_MS).
 */
async function stopLeftover(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8').trim(), 10);
  if (!Number.isInteger(pid) || pid <= 0 || procText(pid, 'comm') !== 'redis-server') return;
  const parent = Number(/^PPid:\s+(\d+)$/m.exec(procText(pid, 'status') ?? '')?.[1]);
  if (parent > 1 && (procText(parent, 'cmdline') ?? '').includes('depot-gateway')) return; // another gateway's, in use
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + STOP_GRACE_MS;
  while (procText(pid, 'comm') === 'redis-server' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (procText(pid, 'comm') === 'redis-server') process.kill(pid, 'SIGKILL');
}

/** /proc/<pid>/<name> as text (NULs as spaces), or undefined when there is no such process (or no /proc). */
function procText(pid: number, name: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return undefined;
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForPing(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new GatewayError('QUEUE_UNAVAILABLE', `redis-server exited with code ${child.exitCode}`);
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined); // refused while the server starts: expected, retried below
    try {
      await client.connect();
      await client.ping();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      client.disconnect();
    }
  }
  child.kill('SIGKILL');
  throw new GatewayError('QUEUE_UNAVAILABLE', 'the embedded redis-server did not answer within 10 s');
}
