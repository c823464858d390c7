/**
 * A Redis Sentinel set of the test's own on loopback: three redis-server processes (one
 * primary, two replicas) and one sentinel (`redis-server <file> --sentinel`, the same
 * Debian package) watching them as the set `depot`, on free ports, without persistence.
 * The sentinel declares a primary down after 1 s without an answer, so a killed primary
 * is replaced within a few seconds; `failover()` asks for a failover at once
 * (SENTINEL FAILOVER). The shared Redis on 6379 is never touched.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../src/pipeline/embedded-redis.ts';
import { waitFor } from './harness.ts';

export const SENTINEL_SET_NAME = 'depot';

export interface SentinelSetServer {
  readonly port: number;
  /** Whether the process still runs. */
  running(): boolean;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
}

export interface RedisSentinelSet {
  readonly name: string;
  readonly sentinel: { readonly host: string; readonly port: number };
  readonly servers: readonly SentinelSetServer[];
  /** The primary's port as the sentinel names it now. */
  primaryPort(): Promise<number>;
  /** Asks the sentinel for a failover and waits until it names another primary that takes writes; gives its port. */
  failover(): Promise<number>;
  /** Kills the primary and waits until the sentinel names another that takes writes; gives its port. */
  killPrimary(): Promise<number>;
  destroy(): Promise<void>;
}

export async function startRedisSentinelSet(): Promise<RedisSentinelSet> {
  const dir = await mkdtemp(join(tmpdir(), 'dg-sentinel-'));
  const children: ChildProcess[] = [];
  const servers: SentinelSetServer[] = [];
  const startServer = async (index: number, replicaOf?: number): Promise<SentinelSetServer> => {
    const port = await freePort();
    const child = spawn('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir,
      '--dbfilename', `dump-${index}.rdb`, ...(replicaOf === undefined ? [] : ['--replicaof', '127.0.0.1', String(replicaOf)]),
    ], { stdio: 'ignore' });
    children.push(child);
    await ping(port);
    return {
      port,
      running: () => child.exitCode === null && child.signalCode === null,
      kill: () => killChild(child),
    };
  };
  const primary = await startServer(0);
  servers.push(primary, await startServer(1, primary.port), await startServer(2, primary.port));
  await waitFor(async () => (await info(primary.port, 'replication')).includes('connected_slaves:2'), 'both replicas connected to the primary', 10_000);

  const sentinelPort = await freePort();
  const sentinelFile = join(dir, 'sentinel.conf');
  await writeFile(sentinelFile, [
    `port ${sentinelPort}`, 'bind 127.0.0.1', `dir ${dir}`,
    `sentinel monitor ${SENTINEL_SET_NAME} 127.0.0.1 ${primary.port} 1`,
    `sentinel down-after-milliseconds ${SENTINEL_SET_NAME} 1000`,
    `sentinel failover-timeout ${SENTINEL_SET_NAME} 2000`,
    `sentinel parallel-syncs ${SENTINEL_SET_NAME} 2`,
    '',
  ].join('\n'));
  children.push(spawn('redis-server', [sentinelFile, '--sentinel'], { stdio: 'ignore' }));
  await ping(sentinelPort);
  const askSentinel = async <T>(...args: string[]): Promise<T> => withClient(sentinelPort, (client) => client.call(...(args as [string, ...string[]])) as Promise<T>);
  // A failover needs replicas the sentinel knows and has heard from.
  await waitFor(async () => {
    const replicas = await askSentinel<string[][]>('SENTINEL', 'REPLICAS', SENTINEL_SET_NAME);
    return replicas.length === 2 && replicas.every((fields) => fieldOf(fields, 'flags') === 'slave' && fieldOf(fields, 'master-link-status') === 'ok');
  }, 'the sentinel to know both replicas', 20_000);

  const primaryPort = async () => Number((await askSentinel<[string, string]>('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_SET_NAME))[1]);
  /** Waits until the sentinel names a primary other than `former` that says it is one. */
  const replaced = async (former: number) => waitFor(async () => {
    const now = await primaryPort();
    if (now === former) return undefined;
    return (await info(now, 'replication').catch(() => '')).includes('role:master') ? now : undefined;
  }, `a primary other than ${former}`, 30_000);

  return {
    name: SENTINEL_SET_NAME,
    sentinel: { host: '127.0.0.1', port: sentinelPort },
    servers,
    primaryPort,
    async failover() {
      const former = await primaryPort();
      await askSentinel('SENTINEL', 'FAILOVER', SENTINEL_SET_NAME);
      return replaced(former);
    },
    async killPrimary() {
      const former = await primaryPort();
      const server = servers.find((candidate) => candidate.port === former);
      if (!server) throw new Error(`no server of this set on port ${former}`);
      await server.kill();
      return replaced(former);
    },
    async destroy() {
      await Promise.all(children.map(killChild));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** INFO <section> of the server on `port`. */
export function info(port: number, section: string): Promise<string> {
  return withClient(port, (client) => client.info(section));
}

function fieldOf(fields: readonly string[], name: string): string | undefined {
  const index = fields.indexOf(name);
  return index >= 0 && index % 2 === 0 ? fields[index + 1] : undefined;
}

async function withClient<T>(port: number, work: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await work(client);
  } finally {
    client.disconnect();
  }
}

async function ping(port: number): Promise<void> {
  await waitFor(() => withClient(port, (client) => client.ping()).then(() => true, () => false), `redis on ${port}`, 10_000);
}

function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
