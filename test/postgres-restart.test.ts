/**
 * A PostgreSQL restart under load: a gateway (`start`: watcher, workers and API in one
 * child process) on a PostgreSQL cluster of the test's own, files dropped into an inbox
 * without pause, and the cluster stopped (`pg_ctl stop -m fast`, which cuts every open
 * connection, those in a transaction or COPY included) and started again twice mid-run.
 * The process must stay up, /readyz must say not ready while the database is away, and
 * once it is back every document must be applied and answered exactly once, none dead.
 */
import { test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import type { Database } from '../src/ledger/database.ts';
import { STAGES } from '../src/pipeline/queues.ts';
import { deleteQueues, dropFile, testSettings, waitFor, TEST_REDIS_URL } from './support/harness.ts';
import { freePort, runCli, writeConfigFile, type GatewayProcess } from './support/processes.ts';
import { startPostgresCluster, type PostgresCluster } from './support/postgres-cluster.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const people = [PERSONS.anna, PERSONS.bertil, PERSONS.cecilia];
/** How long the database stays away each time: about what a restart takes. */
const DOWN_MS = 2500;
const DROP_EVERY_MS = 40;

let cluster: PostgresCluster;
let dataDir: string;
let queuePrefix: string;
let port: number;
let gateway: GatewayProcess;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  dataDir = await mkdtemp(join(tmpdir(), 'dg-pg-restart-'));
  // The demo's sample document would be one more answer than the test dropped.
  await writeFile(join(dataDir, '.demo-sample-dropped'), 'not in this test\n');
  port = await freePort();
  const settings = testSettings(dataDir, {
    databaseUrl: cluster.url,
    port,
    logLevel: 'warn',
    workers: { backoffMs: 100, attempts: 10, reconcileEveryMs: 500, reconcileAfterMs: 2000, lockDurationMs: 5000, stalledIntervalMs: 1000 },
  });
  queuePrefix = settings.queuePrefix as string;
  gateway = runCli(['start', '--config', await writeConfigFile(dataDir, settings)]);
});

afterAll(async () => {
  if (gateway?.child.exitCode === null && gateway.child.signalCode === null) {
    gateway.child.kill('SIGKILL');
    await gateway.exited;
  }
  await cluster?.destroy();
  await deleteQueues(queuePrefix).catch(() => undefined);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Readiness {
  readonly at: number;
  readonly status: number | 'no answer';
  readonly postgres: string;
  /** Answers in the outbox at the time. */
  readonly answered: number;
}

async function readiness(outbox: string): Promise<Readiness> {
  const at = Date.now();
  const answered = await countAnswers(outbox);
  try {
    const reply = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(3000) });
    const body = (await reply.json()) as { checks?: { postgres?: string } };
    return { at, status: reply.status, postgres: body.checks?.postgres ?? '', answered };
  } catch (error) {
    return { at, status: 'no answer', postgres: (error as Error).message, answered };
  }
}

const countAnswers = async (outbox: string) => (await readdir(outbox).catch(() => [])).filter((name) => name.startsWith('pgr-')).length;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const alive = () => gateway.child.exitCode === null && gateway.child.signalCode === null;

/** Drops a SalaryAdjustment into the inbox every DROP_EVERY_MS until stopped; stop() gives how many. */
function dropContinuously(inbox: string) {
  let dropped = 0;
  let dropping = true;
  const done = (async () => {
    while (dropping) {
      const index = dropped;
      const bytes = salaryAdjustment({ messageId: `PGR-${index}` }, [{ pin: people[index % people.length]!, date: '2026-12-01', salary: `${500_000 + index}.00` }]);
      await dropFile(inbox, `pgr-${index}.xml`, bytes);
      dropped += 1;
      await pause(DROP_EVERY_MS);
    }
  })();
  return {
    count: () => dropped,
    async stop() {
      dropping = false;
      await done;
      return dropped;
    },
  };
}

/** Asks /readyz every 100 ms, and counts the answers in the outbox, until stopped; stop() gives every poll. */
function pollReadiness(outbox: string) {
  const answers: Readiness[] = [];
  let polling = true;
  const done = (async () => {
    while (polling) {
      answers.push(await readiness(outbox));
      await pause(100);
    }
  })();
  return {
    async stop() {
      polling = false;
      await done;
      return answers;
    },
  };
}

test('documents flowing through two PostgreSQL restarts are each answered exactly once, and the gateway stays up', async () => {
  const inbox = join(dataDir, 'counterparties', 'demo-employer', 'inbox');
  const outbox = join(dataDir, 'counterparties', 'demo-employer', 'outbox');
  await waitFor(async () => !alive() || (await readiness(outbox)).status === 200, 'the gateway ready', 30_000);
  assert.ok(alive(), `the gateway exited at start:\n${gateway.output()}`);

  const drops = dropContinuously(inbox);
  const polls = pollReadiness(outbox);
  const outages: { from: number; to: number; back: number }[] = [];
  const answered = () => countAnswers(outbox);
  let total: number;
  let readyAnswers: Readiness[];
  try {
    for (let restart = 0; restart < 2; restart += 1) {
      await pause(2500);
      const answeredBefore = await answered();
      const from = Date.now();
      await cluster.stop();
      await pause(DOWN_MS);
      const to = Date.now();
      await cluster.start();
      outages.push({ from, to, back: Date.now() });
      process.stdout.write(`# restart ${restart + 1}: ${drops.count()} dropped, ${answeredBefore} answered when the database stopped\n`);
      assert.ok(alive(), `the gateway exited while the database was away:\n${gateway.output()}`);
    }
    await pause(1500);
  } finally {
    total = await drops.stop();
  }
  try {
    // Processing resumes by itself: every document answered.
    const startedWaiting = Date.now();
    await waitFor(async () => !alive() || (await answered()) >= total, `${total} answers`, 90_000);
    process.stdout.write(`# ${total} documents dropped; all answered ${Date.now() - startedWaiting} ms after the last drop\n`);
  } finally {
    readyAnswers = await polls.stop();
  }
  assert.ok(alive(), `the gateway exited:\n${gateway.output()}`);

  for (const [index, outage] of outages.entries()) {
    const during = readyAnswers.filter((poll) => poll.at >= outage.from && poll.at + 100 <= outage.to);
    assert.ok(during.length > 0, `/readyz was polled during outage ${index + 1}`);
    assert.ok(
      during.some((poll) => poll.status === 503 && poll.postgres !== 'ok'),
      `/readyz said not ready while the database was away (outage ${index + 1}: ${JSON.stringify(during.slice(0, 5))})`,
    );
    // How soon after the database was back /readyz said ready and a new answer came.
    const after = readyAnswers.filter((poll) => poll.at >= outage.back);
    const answeredWhileAway = Math.max(0, ...during.map((poll) => poll.answered));
    const ready = after.find((poll) => poll.status === 200);
    const answering = after.find((poll) => poll.answered > answeredWhileAway);
    process.stdout.write(`# outage ${index + 1}: ready ${ready ? ready.at - outage.back : '-'} ms and answering ${answering ? answering.at - outage.back : '-'} ms after the database was back\n`);
  }
  assert.equal((await readiness(outbox)).status, 200, '/readyz ready again');

  const files = (await readdir(outbox)).filter((name) => name.startsWith('pgr-'));
  const stems = files.map((name) => name.split('.')[0]);
  assert.equal(files.length, total, 'one answer per document');
  assert.equal(new Set(stems).size, total, 'each document answered exactly once');
  assert.equal((await readdir(inbox)).filter((name) => name.startsWith('pgr-')).length, 0, 'nothing left in the inbox');

  const db: Database = openPostgresDatabase({ url: cluster.url, max: 1 });
  try {
    const statuses = (await db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM messages WHERE external_id LIKE 'pgr-%' GROUP BY status ORDER BY status`,
    )).rows;
    assert.deepEqual(statuses, [{ status: 'applied', n: total }], 'every document recorded once and applied, none dead or duplicate');
    const salaries = (await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM salaries s JOIN messages m ON m.id = s.message_id WHERE m.external_id LIKE 'pgr-%'`,
    )).rows[0]!;
    assert.equal(salaries.n, total, 'one salary row per document');
  } finally {
    await db.close();
  }

  const failed = await Promise.all(STAGES.map(async (stage) => {
    const queue = new Queue(stage, { connection: { url: TEST_REDIS_URL }, prefix: queuePrefix });
    try {
      return (await queue.getJobCounts('failed')).failed ?? 0;
    } finally {
      await queue.close();
    }
  }));
  assert.deepEqual(failed, [0, 0, 0], 'no job failed for good');

  gateway.child.kill('SIGTERM');
  assert.equal(await gateway.exited, 0, `a clean exit after the restarts:\n${gateway.output()}`);
});
