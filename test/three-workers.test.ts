/**
 * Three `worker` processes on one PostgreSQL and one Redis (three hosts' worth), started
 * at once: the calendar's catch-up at start (deadline checks, debit runs, payout runs,
 * notices, validations) runs each period in exactly one of them, and a burst of
 * documents goes through all three while one is killed with SIGKILL mid-run — every
 * document applied once and answered with one response file. The documents come in
 * through an intake in the test process; the workers are child processes.
 *
 * Three workers apply a burst faster than a test can watch and kill: the test database
 * slows each salary row by a few milliseconds (a trigger), so each kill lands mid-run.
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { createTestDatabase, deleteQueues, startTestGateway, testSettings, waitFor } from './support/harness.ts';
import { writeConfigFile, runCli, type GatewayProcess } from './support/processes.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const DOCUMENTS = 600;
const WORKERS_GOING_MS = 180_000;
const people = [PERSONS.anna, PERSONS.bertil, PERSONS.cecilia];

interface CalendarLine { job: string; period?: string; periods?: number; first?: string; last?: string; msg: string }

/** The calendar periods a process logged as run: one per 'calendar job ran', `periods` per 'caught up'. */
function periodsRun(process: GatewayProcess): number {
  return process.output().split('\n').filter((line) => line.startsWith('{') && line.includes('"msg":"calendar job'))
    .map((line) => JSON.parse(line) as CalendarLine)
    .reduce((sum, line) => sum + (line.msg === 'calendar job ran' ? 1 : line.msg.startsWith('calendar job caught up') ? line.periods ?? 0 : 0), 0);
}

test(`three workers started at once: each calendar period runs in one of them; ${DOCUMENTS} documents through a kill of one, each applied and answered once`, async () => {
  const database = await createTestDatabase();
  const db = openPostgresDatabase({ url: database.url, max: 2 });
  const producer = await startTestGateway({ roles: [], database, keepDatabase: true });
  const workers: GatewayProcess[] = [];
  const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);
  try {
    await db.query(`CREATE FUNCTION three_workers_pace() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.004); RETURN NEW; END $$`);
    await db.query('CREATE TRIGGER three_workers_pace BEFORE INSERT ON salaries FOR EACH ROW EXECUTE FUNCTION three_workers_pace()');
    const config = await writeConfigFile(producer.dataDir, testSettings(producer.dataDir, {
      databaseUrl: database.url, queuePrefix: producer.config.queuePrefix,
      workers: { applyConcurrency: 8, validateConcurrency: 8, backoffMs: 100, attempts: 20, reconcileEveryMs: 500, reconcileAfterMs: 1500, lockDurationMs: 3000, stalledIntervalMs: 1000 },
    }));
    for (let index = 0; index < 3; index += 1) workers.push(runCli(['worker', '--config', config], { LOG_LEVEL: 'info', LOG_FORMAT: 'json' }));

    // The calendar: every due period recorded, and run by exactly one process.
    const calendarRuns = () => count('SELECT count(*)::text AS n FROM calendar_runs');
    await waitFor(() => workers.every((worker) => worker.output().includes('"msg":"depot-gateway is running"') || worker.child.exitCode !== null), 'three workers running', WORKERS_GOING_MS);
    for (const worker of workers) assert.equal(worker.child.exitCode, null, worker.output());
    let settled = -1;
    await waitFor(async () => {
      const now = await calendarRuns();
      const stable = now > 0 && now === settled;
      settled = now;
      if (!stable) await new Promise((resolve) => setTimeout(resolve, 1500));
      return stable;
    }, 'the calendar to catch up', WORKERS_GOING_MS);
    const byProcess = workers.map(periodsRun);
    process.stdout.write(`# calendar: ${settled} periods recorded; run per process ${byProcess.join(', ')}\n`);
    assert.equal(byProcess.reduce((sum, n) => sum + n, 0), settled, 'each recorded period was run by one process, once');

    // The burst, through a kill of one of the three.
    await Promise.all(Array.from({ length: DOCUMENTS }, (_, index) => producer.intake.receive({
      channel: 'folder', counterpartyId: 'demo-employer', externalId: `three-${index}.xml`, receivedAt: new Date(),
      content: { bytes: Buffer.from(salaryAdjustment({ messageId: `THREE-${index}` }, [{ pin: people[index % people.length]!, date: '2026-12-03', salary: `${400_000 + index}.00` }])) },
      metadata: { fileName: `three-${index}.xml` },
    })));
    const applied = () => count(`SELECT count(*)::text AS n FROM salaries WHERE effective_date = '2026-12-03'`);
    await waitFor(async () => (await applied()) >= 100, 'a hundred documents applied', WORKERS_GOING_MS);
    workers[0]!.child.kill('SIGKILL');
    assert.equal(await workers[0]!.exited, 'SIGKILL');
    const atKill = await applied();
    assert.ok(atKill < DOCUMENTS, `killed mid-run (${atKill} applied)`);
    await waitFor(
      async () => (await count(`SELECT count(*)::text AS n FROM responses r JOIN messages m ON m.id = r.message_id WHERE m.external_id LIKE 'three-%' AND r.delivered_at IS NOT NULL`)) === DOCUMENTS,
      'every response delivered', WORKERS_GOING_MS,
    );
    process.stdout.write(`# ${DOCUMENTS} documents: ${atKill} applied when one of three workers was killed\n`);

    const ledger = (await db.query<{ n: string; distinct_messages: string }>(
      `SELECT count(*)::text AS n, count(DISTINCT message_id)::text AS distinct_messages FROM salaries WHERE effective_date = '2026-12-03'`,
    )).rows[0]!;
    assert.deepEqual({ n: Number(ledger.n), distinct: Number(ledger.distinct_messages) }, { n: DOCUMENTS, distinct: DOCUMENTS }, 'one salary row per document');
    const files = (await readdir(producer.outbox('demo-employer'))).filter((name) => /^three-\d+\./.test(name));
    assert.equal(files.length, DOCUMENTS, 'one response file per document');
    assert.equal(new Set(files.map((name) => name.split('.')[1])).size, DOCUMENTS, 'one response per message');
    assert.equal(await count(`SELECT count(*)::text AS n FROM messages WHERE external_id LIKE 'three-%' AND status <> 'applied'`), 0);
  } finally {
    for (const worker of workers) {
      if (worker.child.exitCode === null && worker.child.signalCode === null) {
        worker.child.kill('SIGKILL');
        await worker.exited;
      }
    }
    await db.close();
    await deleteQueues(producer.config.queuePrefix);
    await producer.destroy();
    await database.drop();
  }
}, 600_000);
