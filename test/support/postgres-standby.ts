/**
 * A PostgreSQL primary and a streaming standby of the test's own on loopback, for the
 * failover tests: initdb, the primary on a free port with synchronous replication to the
 * standby (`synchronous_standby_names = '*'`: a commit is acknowledged once the standby
 * has it, so a failover loses no acknowledged transaction), the standby made with
 * `pg_basebackup -R` on another free port. Run as the `postgres` OS user, trust
 * authentication, no fsync. The shared server on 5432 is never touched.
 */
import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.ts';

const run = promisify(execFile);
const BIN = process.env.TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PostgresNode {
  readonly port: number;
  /** `pg_ctl stop -m fast`: open connections are cut. */
  stop(): Promise<void>;
}

export interface PostgresPair {
  readonly primary: PostgresNode;
  readonly standby: PostgresNode & {
    /** `pg_ctl promote`, waiting until it takes writes. */
    promote(): Promise<void>;
  };
  destroy(): Promise<void>;
}

export async function startPostgresPair(): Promise<PostgresPair> {
  const root = await mkdtemp(join(tmpdir(), 'dg-pg-pair-'));
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  await chown(root, Number(uid.trim()), Number(gid.trim()));
  const asPostgres = (command: string, args: readonly string[]) =>
    run('runuser', ['-u', 'postgres', '--', join(BIN, command), ...args], { timeout: 60_000 });
  const common = (port: number) => `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${root} -c fsync=off -c full_page_writes=off`;
  const node = (name: string, port: number, extra = '') => {
    const data = join(root, name);
    const pgCtl = (...args: string[]) => asPostgres('pg_ctl', ['-D', data, '-w', '-t', '30', ...args]);
    return {
      data,
      port,
      pgCtl,
      start: () => pgCtl('-l', join(root, `${name}.log`), '-o', `${common(port)} ${extra}`, 'start'),
      stop: async () => void (await pgCtl('-m', 'fast', 'stop')),
    };
  };
  const primary = node('primary', await freePort(), `-c synchronous_standby_names='*'`);
  const standby = node('standby', await freePort());
  await asPostgres('initdb', ['-D', primary.data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  await primary.start();
  await asPostgres('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', standby.data, '-R', '-X', 'stream', '--no-sync']);
  await standby.start();
  return {
    primary: { port: primary.port, stop: primary.stop },
    standby: {
      port: standby.port,
      stop: standby.stop,
      promote: async () => void (await standby.pgCtl('promote')),
    },
    async destroy() {
      await Promise.all([primary, standby].map((each) => each.pgCtl('-m', 'immediate', 'stop').catch(() => undefined)));
      await rm(root, { recursive: true, force: true });
    },
  };
}
