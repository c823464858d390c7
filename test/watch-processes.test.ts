/**
 * Several `watch` processes on one inbox (several hosts sharing the counterparty's
 * folder over a shared file system), one PostgreSQL, one Redis, one worker process:
 * every document is recorded once and answered once. The inbox is read by the process
 * holding its lease (a PostgreSQL session advisory lock); the others stand by, and one
 * takes over when the holder is killed. Real gateway processes (`depot-gateway watch`,
 * `depot-gateway worker`), real PostgreSQL and Redis.
 */
import { test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import type { Database } from '../src/ledger/database.ts';
import { createTestDatabase, deleteQueues, dropFile, startTestGateway, testSettings, waitFor, type TestDatabase } from './support/harness.ts';
import { runCli, writeConfigFile, type GatewayProcess } from './support/processes.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const DOCUMENTS = 1000;
const people = [PERSONS.anna, PERSONS.bertil, PERSONS.cecilia];

let database: TestDatabase;
let db: Database;
let root: string;
/** The counterparty's folder every process shares: inbox/, outbox/, archive/. */
let shared: string;
let queuePrefix: string;
let worker: GatewayProcess;
let watchers: GatewayProcess[];
const processes: GatewayProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const seeded = await startTestGateway({ roles: [], inline: true, database });
  await seeded.destroy();
  db = openPostgresDatabase({ url: database.url, max: 2 });
  root = await mkdtemp(join(tmpdir(), 'dg-watchers-'));
  shared = join(root, 'demo-employer');
  queuePrefix = `dgwatch${Date.now().toString(36)}`;
  // Started together: a process starting from the sources (tsx) took up to four minutes on a loaded 2-core machine.
  [worker, ...watchers] = await Promise.all([startProcess('worker', 'worker'), ...['watch-a', 'watch-b', 'watch-c'].map((name) => startProcess('watch', name))]);
  await waitFor(() => watchers.every((watcher) => holdsLease(watcher) || standsBy(watcher)) || processes.some((child) => child.child.exitCode !== null), 'every watcher holding the inbox or standing by', 420_000);
  for (const child of processes) assert.equal(child.child.exitCode, null, child.output());
}, 480_000);

afterAll(async () => {
  for (const child of processes) if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL');
  await Promise.all(processes.map((child) => child.exited));
  await db?.close();
  await database?.drop();
  await deleteQueues(queuePrefix).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

/** A gateway process with a data folder of its own (as on a host of its own) and the shared counterparty folder. */
async function startProcess(role: 'watch' | 'worker', name: string): Promise<GatewayProcess> {
  const dataDir = join(root, name);
  await mkdir(dataDir, { recursive: true });
  const base = testSettings(dataDir, {
    databaseUrl: database.url, queuePrefix, logLevel: 'info', demo: false,
    folders: { stableMs: 100, pollIntervalMs: 25 },
    workers: { backoffMs: 100, attempts: 20, reconcileEveryMs: 500, reconcileAfterMs: 2000 },
  });
  const counterparties = (base.counterparties as { id: string }[]).map((c) => (c.id === 'demo-employer' ? { ...c, folder: shared } : c));
  const configFile = await writeConfigFile(dataDir, { ...base, counterparties });
  const child = runCli([role, '--config', configFile], { LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
  processes.push(child);
  return child;
}

const holdsLease = (watcher: GatewayProcess) => watcher.output().includes('took channel leases');
const standsBy = (watcher: GatewayProcess) => watcher.output().includes('standing by');
const count = async (sql: string, params: unknown[] = []) => Number((await db.query<{ n: string }>(sql, params)).rows[0]!.n);
const recorded = (prefix: string) => count(`SELECT count(*)::text AS n FROM messages WHERE external_id LIKE $1`, [`${prefix}-%`]);

/** Writes the documents into the shared inbox, `perBatch` at a time `everyMs` apart (temporary name, then rename). */
async function dropDocuments(prefix: string, perBatch: number, everyMs: number): Promise<void> {
  const inbox = join(shared, 'inbox');
  for (let start = 0; start < DOCUMENTS; start += perBatch) {
    const batch = [];
    for (let index = start; index < Math.min(DOCUMENTS, start + perBatch); index += 1) {
      const xml = salaryAdjustment({ messageId: `${prefix.toUpperCase()}-${index}` }, [{ pin: people[index % people.length]!, date: '2026-12-01', salary: `${500_000 + index}.00` }]);
      batch.push(dropFile(inbox, `${prefix}-${index}.xml`, xml));
    }
    await Promise.all(batch);
    if (everyMs > 0) await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** One message and one delivered answer per document, no duplicate, and one answer file each in the shared outbox. */
async function assertOneAnswerEach(prefix: string): Promise<void> {
  await waitFor(
    async () => (await count(`SELECT count(*)::text AS n FROM responses r JOIN messages m ON m.id = r.message_id WHERE m.external_id LIKE $1 AND r.delivered_at IS NOT NULL`, [`${prefix}-%`])) >= DOCUMENTS,
    'an answer delivered for every document', 240_000,
  ).catch(async (error: unknown) => {
    const statuses = await db.query<{ status: string; n: string }>(`SELECT status, count(*)::text AS n FROM messages WHERE external_id LIKE $1 GROUP BY status`, [`${prefix}-%`]);
    throw new Error(`${String(error)}; messages by status: ${JSON.stringify(statuses.rows)}; worker:\n${worker.output().slice(-3000)}`);
  });
  const statuses = await db.query<{ status: string; n: string }>(
    `SELECT status, count(*)::text AS n FROM messages WHERE external_id LIKE $1 GROUP BY status ORDER BY status`, [`${prefix}-%`],
  );
  assert.deepEqual(Object.fromEntries(statuses.rows.map((row) => [row.status, Number(row.n)])), { applied: DOCUMENTS }, 'each document recorded once and applied, none a duplicate');
  assert.equal(await count(`SELECT count(DISTINCT external_id)::text AS n FROM messages WHERE external_id LIKE $1`, [`${prefix}-%`]), DOCUMENTS);
  const answers = (await readdir(join(shared, 'outbox'))).filter((name) => name.startsWith(`${prefix}-`) && name.endsWith('.xml'));
  assert.equal(answers.length, DOCUMENTS, 'exactly one answer file per document');
  assert.equal(new Set(answers.map((name) => name.split('.')[0])).size, DOCUMENTS, 'one answer for each document');
  const left = (await readdir(join(shared, 'inbox'))).filter((name) => name.startsWith(`${prefix}-`));
  assert.equal(left.length, 0, `the inbox emptied: ${left.join(', ')}`);
}

async function stop(processesToStop: readonly GatewayProcess[]): Promise<void> {
  for (const child of processesToStop) if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGTERM');
  await Promise.all(processesToStop.map((child) => child.exited));
}

test('three watch processes started at once on one inbox: 1,000 documents, one answer each', async () => {
  assert.equal(watchers.filter(holdsLease).length, 1, 'one holder');
  await dropDocuments('three', 100, 0);
  await assertOneAnswerEach('three');
  assert.equal(watchers.filter(holdsLease).length, 1, 'one holder all along');
});

test('two watch processes on one inbox: the holder killed (-9) mid-run, the other takes over within 10 s; 1,000 documents, one answer each', async () => {
  const holder = watchers.find(holdsLease)!;
  const standbys = watchers.filter((watcher) => watcher !== holder);
  // Two watchers from here on: one of the standbys stops.
  await stop(standbys.slice(0, 1));
  const survivor = standbys[1]!;
  assert.equal(holdsLease(survivor), false);

  // 1,000 files over about 5 s: the kill lands while files are still arriving.
  const dropping = dropDocuments('kill', 40, 200);
  await waitFor(async () => (await recorded('kill')) >= 300, '300 documents recorded before the kill', 90_000);
  holder.child.kill('SIGKILL');
  assert.equal(await holder.exited, 'SIGKILL');
  const killedAt = Date.now();
  const atKill = await recorded('kill');
  assert.ok(atKill < DOCUMENTS, `the kill must land mid-run (recorded ${atKill})`);

  await waitFor(() => holdsLease(survivor), 'the other watcher taking the inbox over', 30_000);
  const leaseAfterMs = Date.now() - killedAt;
  await waitFor(async () => (await recorded('kill')) > atKill, 'the other watcher recording documents', 30_000);
  const recordingAfterMs = Date.now() - killedAt;
  process.stdout.write(`# recorded at the kill: ${atKill}; lease taken over after ${leaseAfterMs} ms, next document recorded after ${recordingAfterMs} ms\n`);
  assert.ok(recordingAfterMs < 10_000, `taken over within 10 s (lease after ${leaseAfterMs} ms, next document recorded after ${recordingAfterMs} ms)`);

  await dropping;
  await assertOneAnswerEach('kill');
  await stop([survivor]);
  assert.equal(worker.child.exitCode, null, worker.output());
});
