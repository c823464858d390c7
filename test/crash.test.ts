/**
 * Exactly-once under crashes: 1,000 documents in flight, the worker process killed
 * with SIGKILL mid-run and started again, then Redis killed and restarted empty
 * mid-run. Every document must be applied exactly once — the ledger's totals match —
 * and answered with exactly one response file; so must the documents whose jobs the
 * killed worker held, taken by the new worker once their locks ran out (the shipped
 * lock settings: workers.lockDurationMs and stalledIntervalMs are left at their defaults).
 *
 * A worker applies a burst like this one in about a second, faster than a test can
 * watch and kill: the test database slows each salary row by a few milliseconds (a
 * trigger), so the ledger takes the burst at about 250 documents/s and each kill lands
 * mid-run.
 */
import { test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import type { Database } from '../src/ledger/database.ts';
import { createTestDatabase, deleteQueues, startTestGateway, testSettings, waitFor, type TestDatabase, type TestGateway } from './support/harness.ts';
import { startRedisServer, writeConfigFile, runCli, type RedisServer, type GatewayProcess } from './support/processes.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';
import { idsOf } from '../src/pipeline/queues.ts';

/** How long a worker process may take to start and get going: minutes on a machine shared by many. */
const WORKER_GOING_MS = 180_000;

const DOCUMENTS = 1000;
const people = [PERSONS.anna, PERSONS.bertil, PERSONS.cecilia];

let redis: RedisServer;
let database: TestDatabase;
let db: Database;
let producer: TestGateway;
let configFile: string;
let queuePrefix: string;
const workers: GatewayProcess[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  database = await createTestDatabase();
  db = openPostgresDatabase({ url: database.url, max: 2 });
  // The producer only receives (intake + queues); the worker runs in a child process.
  producer = await startTestGateway({ roles: [], database, settings: { redisUrl: redis.url } });
  queuePrefix = producer.config.queuePrefix;
  await db.query(`CREATE FUNCTION crash_test_pace() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.004); RETURN NEW; END $$`);
  await db.query('CREATE TRIGGER crash_test_pace BEFORE INSERT ON salaries FOR EACH ROW EXECUTE FUNCTION crash_test_pace()');
  const settings = testSettings(producer.dataDir, {
    databaseUrl: database.url,
    redisUrl: redis.url,
    queuePrefix,
    logLevel: 'warn',
    workers: {
      applyConcurrency: 16, validateConcurrency: 16, backoffMs: 100, attempts: 20, reconcileEveryMs: 500, reconcileAfterMs: 1500,
    },
  });
  configFile = await writeConfigFile(producer.dataDir, settings);
});

afterAll(async () => {
  for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
  await producer?.destroy();
  await db?.close();
  await database?.drop();
  await deleteQueues(queuePrefix, redis.url).catch(() => undefined);
  await redis?.kill();
});

const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);
const applied = () => count(`SELECT count(*)::text AS n FROM messages WHERE status = 'applied'`);
/** Messages past `received`: a new worker moves some on before it applies any (it may wait for documents the killed one held). */
const movedOn = () => count(`SELECT count(*)::text AS n FROM messages WHERE status <> 'received'`);

function startWorker(): GatewayProcess {
  const worker = runCli(['worker', '--config', configFile]);
  workers.push(worker);
  return worker;
}

async function kill(worker: GatewayProcess): Promise<void> {
  worker.child.kill('SIGKILL');
  assert.equal(await worker.exited, 'SIGKILL');
}

/** Kills the workers an earlier test left running (when it failed), so that they apply none of this test's documents. */
async function killLeftovers(): Promise<void> {
  for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) await kill(worker);
}

test('1,000 documents survive a SIGKILLed worker and a Redis restart, each applied and answered exactly once', async () => {
  const expectedTotal = { count: 0, sum: 0 };
  const receipts = [];
  for (let index = 0; index < DOCUMENTS; index += 1) {
    const salary = 400_000 + index;
    expectedTotal.count += 1;
    expectedTotal.sum += salary;
    const bytes = Buffer.from(salaryAdjustment({ messageId: `CRASH-${index}` }, [{ pin: people[index % people.length]!, date: '2026-12-01', salary: `${salary}.00` }]));
    receipts.push(producer.intake.receive({
      channel: 'folder', counterpartyId: 'demo-employer', externalId: `crash-${index}.xml`, receivedAt: new Date(),
      content: { bytes }, metadata: { fileName: `crash-${index}.xml` },
    }));
  }
  await Promise.all(receipts);

  let worker = startWorker();
  await waitFor(async () => (await applied()) >= 200 || worker.child.exitCode !== null, '200 applied before the first kill', WORKER_GOING_MS);
  assert.equal(worker.child.exitCode, null, `worker exited early:\n${worker.output()}`);
  await kill(worker);
  const killedAt = Date.now();
  // The jobs the dead worker held stay active, under its locks, until these run out.
  const held = [...new Set((await Promise.all(Object.values(producer.queues!.queues).map((queue) => queue.getJobs(['active']))))
    .flat().flatMap((job) => idsOf(job.data)))];
  assert.ok(held.length > 0, 'the killed worker held documents');
  const atKill = await applied();
  const movedOnAtKill = await movedOn();
  assert.ok(atKill < DOCUMENTS, `the kill must happen mid-run (applied ${atKill})`);

  worker = startWorker();
  // Redis goes down as soon as the new worker has moved a document on (validated or finished one), far from the end.
  await waitFor(async () => (await movedOn()) > movedOnAtKill, 'the second worker at work', WORKER_GOING_MS);
  const heldTakenMs = Date.now() - killedAt;
  const atRedisKill = await applied();
  await redis.kill();
  await new Promise((resolve) => setTimeout(resolve, 500));
  await redis.start();
  const atRedisRestart = await applied();
  assert.ok(atRedisRestart < DOCUMENTS, `Redis must restart mid-run (applied ${atRedisKill} when it was killed, ${atRedisRestart} when it started again)`);
  process.stdout.write(`# applied when the worker was killed: ${atKill} (it held ${held.length}); the new worker at work ${heldTakenMs} ms after the kill; ` +
    `applied when Redis was killed: ${atRedisKill}; when it started again: ${atRedisRestart}\n`);

  await waitFor(
    async () => (await count(`SELECT count(*)::text AS n FROM responses WHERE delivered_at IS NOT NULL`)) === DOCUMENTS,
    'every response delivered',
    120_000,
  );
  worker.child.kill('SIGTERM');
  await worker.exited;

  assert.equal(await applied(), DOCUMENTS, 'every document applied');
  const ledger = (await db.query<{ n: string; total: string; distinct_messages: string }>(
    `SELECT count(*)::text AS n, sum(annual_salary)::text AS total, count(DISTINCT message_id)::text AS distinct_messages
       FROM salaries WHERE message_id <> 'demo-seed'`,
  )).rows[0]!;
  assert.deepEqual(
    { n: Number(ledger.n), total: Number(ledger.total), distinct: Number(ledger.distinct_messages) },
    { n: expectedTotal.count, total: expectedTotal.sum, distinct: DOCUMENTS },
    'ledger totals: one salary row per document, no more, no less',
  );
  // The answers: the month's invoice specifications the worker makes at start go to the same outbox.
  const files = (await readdir(join(producer.outbox('demo-employer')))).filter((name) => name.endsWith('.xml') && !name.startsWith('invoice-specification-'));
  assert.equal(files.length, DOCUMENTS, 'exactly one response file per document');
  assert.equal(new Set(files.map((name) => name.split('.')[1])).size, DOCUMENTS, 'one response per message id');
  assert.equal(await count(`SELECT count(*)::text AS n FROM messages WHERE status = 'dead'`), 0);
  const heldApplied = (await db.query<{ id: string; status: string; rows: string }>(
    `SELECT m.id, m.status, (SELECT count(*) FROM salaries s WHERE s.message_id = m.id)::text AS rows FROM messages m WHERE m.id = ANY($1::text[]) ORDER BY m.id`, [held],
  )).rows;
  assert.deepEqual(heldApplied, [...held].sort().map((id) => ({ id, status: 'applied', rows: '1' })), 'each document the killed worker held applied once');
});

test('SIGTERM drains: the worker finishes its active jobs, leaves none behind, and exits 0', async () => {
  await killLeftovers();
  const before = await count(`SELECT count(*)::text AS n FROM messages`);
  const documents = 1000;
  await Promise.all(Array.from({ length: documents }, (_, index) => producer.intake.receive({
    channel: 'folder', counterpartyId: 'demo-employer', externalId: `drain-${index}.xml`, receivedAt: new Date(),
    content: { bytes: Buffer.from(salaryAdjustment({ messageId: `DRAIN-${index}` }, [{ pin: people[index % people.length]!, date: '2026-12-02', salary: `${300_000 + index}.00` }])) },
    metadata: { fileName: `drain-${index}.xml` },
  })));
  const drained = () => count(`SELECT count(*)::text AS n FROM salaries WHERE effective_date = '2026-12-02'`);
  let worker = startWorker();
  await waitFor(async () => (await drained()) >= 50, 'some documents applied', WORKER_GOING_MS);
  worker.child.kill('SIGTERM');
  assert.equal(await worker.exited, 0, `a clean exit:\n${worker.output()}`);
  const active = await producer.queues!.counts();
  assert.deepEqual(
    Object.fromEntries(Object.entries(active).map(([stage, counts]) => [stage, counts.active])),
    { validate: 0, apply: 0, deliver: 0 },
    'no job was left active (a killed worker would leave its jobs locked)',
  );
  assert.ok((await drained()) < documents, 'stopped mid-run');

  worker = startWorker();
  await waitFor(async () => (await count(`SELECT count(*)::text AS n FROM responses WHERE delivered_at IS NOT NULL`)) === before + documents, 'the rest delivered', WORKER_GOING_MS);
  worker.child.kill('SIGTERM');
  await worker.exited;
  assert.equal(await drained(), documents, 'each document applied exactly once across the two workers');
});
