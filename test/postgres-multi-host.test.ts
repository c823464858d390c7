/**
 * A libpq multi-host database URL: `postgresql://<nothing>,<standby>,<primary>/postgres
 * ?target_session_attrs=read-write` against a primary and a streaming standby of the
 * test's own (synchronous replication) and a port nothing listens on. The gateway must
 * write to the primary, skipping the dead host and the read-only standby; then, with
 * documents flowing, the primary is stopped and the standby promoted, as a failover
 * manager would: the gateway must find the promoted standby by itself, and every document
 * be applied and answered exactly once, none dead — as through a restart
 * (test/postgres-restart.test.ts). PostgreSQL only: the embedded database has no hosts.
 */
import { test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { connectToTarget, parsePostgresTargets } from '../src/ledger/postgres-hosts.ts';
import { dropFile, startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { freePort } from './support/processes.ts';
import { startPostgresPair, type PostgresPair } from './support/postgres-standby.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const people = [PERSONS.anna, PERSONS.bertil, PERSONS.cecilia];
const DROP_EVERY_MS = 30;

let pair: PostgresPair;
let url: string;
let nothingPort: number;
let gateway: TestGateway | undefined;

beforeAll(async () => {
  pair = await startPostgresPair();
  nothingPort = await freePort();
  url = `postgresql://postgres@127.0.0.1:${nothingPort},127.0.0.1:${pair.standby.port},127.0.0.1:${pair.primary.port}/postgres?target_session_attrs=read-write`;
}, 120_000);

afterAll(async () => {
  await gateway?.destroy();
  await pair?.destroy();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a multi-host URL skips a host that is down and a read-only standby, and writes to the primary', async () => {
  const targets = parsePostgresTargets(url);
  assert.deepEqual(targets.hosts.map((host) => host.port), [nothingPort, pair.standby.port, pair.primary.port]);
  assert.equal(targets.urlOf(targets.hosts[1]!), `postgresql://postgres@127.0.0.1:${pair.standby.port}/postgres`);

  const db = openPostgresDatabase({ url, max: 2 });
  try {
    const { rows } = await db.query<{ port: number; recovery: boolean }>('SELECT inet_server_port() AS port, pg_is_in_recovery() AS recovery');
    assert.deepEqual(rows, [{ port: pair.primary.port, recovery: false }]);
    await db.exec('CREATE TABLE multi_host_probe (n int)');
    await db.transaction(async (tx) => void (await tx.query('INSERT INTO multi_host_probe VALUES ($1)', [1])));
  } finally {
    await db.close();
  }
  // The channel leases' own session (src/ledger/postgres-leases.ts) finds the same.
  const lease = await connectToTarget(url, { application_name: 'multi-host test' });
  try {
    assert.equal((await lease.query<{ port: number }>('SELECT inet_server_port() AS port')).rows[0]!.port, pair.primary.port);
  } finally {
    await lease.end();
  }
  // With any session (the default) the first host that answers is taken: the standby.
  const anyDb = openPostgresDatabase({ url: url.replace('target_session_attrs=read-write', 'target_session_attrs=any'), max: 1 });
  try {
    assert.equal((await anyDb.query<{ port: number }>('SELECT inet_server_port() AS port')).rows[0]!.port, pair.standby.port);
  } finally {
    await anyDb.close();
  }
}, 60_000);

test('documents flowing while the primary stops and the standby is promoted are each answered exactly once', async () => {
  const opened = await startTestGateway({
    roles: ['worker', 'watch'],
    clock: () => new Date(),
    database: { url, name: 'postgres', drop: async () => undefined },
    settings: { workers: { backoffMs: 100, attempts: 10, reconcileEveryMs: 500, reconcileAfterMs: 2000 } },
  });
  gateway = opened;
  const inbox = opened.inbox('demo-employer');
  const outbox = opened.outbox('demo-employer');
  const answers = async () => (await readdir(outbox)).filter((name) => name.startsWith('mh-'));
  const { db } = opened.deps;
  assert.equal((await db.query<{ port: number }>('SELECT inet_server_port() AS port')).rows[0]!.port, pair.primary.port);

  let dropped = 0;
  let dropping = true;
  const drops = (async () => {
    while (dropping) {
      const index = dropped;
      const bytes = salaryAdjustment({ messageId: `MH-${index}` }, [{ pin: people[index % people.length]!, date: '2026-12-01', salary: `${300_000 + index}.00` }]);
      await dropFile(inbox, `mh-${index}.xml`, bytes);
      dropped += 1;
      await pause(DROP_EVERY_MS);
    }
  })();
  try {
    await pause(2000);
    const at = Date.now();
    process.stdout.write(`# primary stopping at ${dropped} dropped, ${(await answers()).length} answered\n`);
    await pair.primary.stop();
    await pair.standby.promote();
    process.stdout.write(`# standby promoted ${Date.now() - at} ms after the primary began to stop\n`);
    await pause(3000);
  } finally {
    dropping = false;
    await drops;
  }

  const waiting = Date.now();
  await waitFor(async () => (await answers()).length >= dropped, `${dropped} answers`, 60_000);
  process.stdout.write(`# ${dropped} documents dropped; all answered ${Date.now() - waiting} ms after the last drop\n`);
  await pause(1000); // a second answer to any of them would have come by now
  const files = await answers();
  assert.equal(files.length, dropped, 'one answer per document');
  assert.equal(new Set(files.map((name) => name.split('.')[0])).size, dropped, 'each document answered exactly once');

  assert.equal((await db.query<{ port: number }>('SELECT inet_server_port() AS port')).rows[0]!.port, pair.standby.port, 'the gateway writes to the promoted standby');
  const statuses = (await db.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM messages WHERE external_id LIKE 'mh-%' GROUP BY status ORDER BY status`,
  )).rows;
  assert.deepEqual(statuses, [{ status: 'applied', n: dropped }], 'every document recorded once and applied, none dead or duplicate');
  const salaries = (await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM salaries s JOIN messages m ON m.id = s.message_id WHERE m.external_id LIKE 'mh-%'`,
  )).rows[0]!;
  assert.equal(salaries.n, dropped, 'one salary row per document');
}, 120_000);
