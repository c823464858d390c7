/**
 * A PostgreSQL cluster of the test's own, for tests that stop the database under a
 * running gateway: initdb into a temporary folder, the server on a free loopback port
 * with trust authentication and without fsync, run as the `postgres` OS user (the
 * server refuses to run as root). The shared server on 5432 is never touched.
 */
import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.ts';

const run = promisify(execFile);
const BIN = process.env.TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PostgresCluster {
  /** The cluster's `postgres` database. */
  readonly url: string;
  readonly port: number;
  /** Stops the server (`pg_ctl stop -m fast`: open connections are cut) and waits until it is down. */
  stop(): Promise<void>;
  /** Starts the server and waits until it takes connections. */
  start(): Promise<void>;
  /** Stops the server at once and removes its files. */
  destroy(): Promise<void>;
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const port = await freePort();
  const root = await mkdtemp(join(tmpdir(), 'dg-pg-'));
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: group } = await run('id', ['-g', 'postgres']);
  await chown(root, Number(stdout.trim()), Number(group.trim()));
  const data = join(root, 'data');
  const asPostgres = (command: string, args: readonly string[]) =>
    run('runuser', ['-u', 'postgres', '--', join(BIN, command), ...args], { timeout: 30_000 });
  const pgCtl = (...args: string[]) => asPostgres('pg_ctl', ['-D', data, '-w', '-t', '20', ...args]);
  await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${root} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const cluster: PostgresCluster = {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: async () => void (await pgCtl('-l', join(root, 'server.log'), '-o', options, 'start')),
    stop: async () => void (await pgCtl('-m', 'fast', 'stop')),
    async destroy() {
      await pgCtl('-m', 'immediate', 'stop').catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}
