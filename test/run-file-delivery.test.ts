/**
 * A debit run's DebitAccounts file leaves the gateway only after the run has committed,
 * through the deliver stage, as a response does: nothing is in the outbox while the
 * run's transaction is open; a delivery that fails leaves the run stored and is retried
 * by the deliver queue until the outbox takes the recorded file, and replayed by its id
 * once every attempt has failed; and a worker killed
 * between the commit and the delivery leaves, after a restart, exactly one file per
 * document with the recorded bytes under the recorded name. Real PostgreSQL, Redis and
 * worker processes.
 */
import { test, beforeAll, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../src/ledger/database.ts';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { runDuePeriods, type CalendarJob } from '../src/calendar/calendar.scheduler.ts';
import { debitRunJob, runDepsFrom } from '../src/calendar/debit-run.ts';
import { replayMessage } from '../src/pipeline/replay.ts';
import { createDemoLedgerTemplate, createTestDatabase, deleteQueues, startTestGateway, testSettings, waitFor, type TestDatabase, type TestGateway } from './support/harness.ts';
import { runCli, writeConfigFile, type GatewayProcess } from './support/processes.ts';

const DOCUMENT = 'DA-2024-Q3-demo-custodian';
const FILE = 'debit-run-2024-Q3.DebitAccounts.xml';
/** The day after the 2024-Q3 debit run date (31 October 2024). */
const RUN_AT = new Date('2024-11-01T08:00:00Z');

let template: TestDatabase;
beforeAll(async () => {
  template = await createDemoLedgerTemplate();
});
afterAll(() => template?.drop());

/**
 * A worker gateway (deliver queue, reconciler, calendar) on a copy of the demo ledger.
 * Its own clock is January 2023, so the catch-up at start makes the 2022 runs, which
 * have no custody values and so no file; the test makes the 2024-Q3 run itself.
 */
async function workerOnDemoLedger(workers: Record<string, number> = {}): Promise<TestGateway> {
  const database = await createTestDatabase(template.name);
  const gateway = await startTestGateway({
    roles: ['worker'], database, clock: () => new Date('2023-01-10T08:00:00Z'),
    settings: { workers: { backoffMs: 50, attempts: 5, reconcileEveryMs: 500, reconcileAfterMs: 2000, ...workers } },
  });
  // DEPA-100001's value on 1 July 2024: the 2024-Q3 run debits it, and holds the other accounts.
  await gateway.deps.db.exec(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
    VALUES ('DEPA-100001', '2024-07-01', 50000.00, 500000.00, 550000.00, 1, 'test')`);
  const destroy = gateway.destroy;
  return { ...gateway, destroy: async () => { await destroy(); await database.drop(); } };
}

/** The 2024-Q3 debit run as the calendar makes it (only the latest run due). */
function debitRun(gateway: TestGateway): CalendarJob {
  return debitRunJob({ ...runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log), catchUpRuns: 1 });
}

const xmlFiles = async (outbox: string) => (await readdir(outbox)).filter((name) => name.endsWith('.xml')).sort();

interface Recorded {
  readonly document_id: string;
  readonly file_name: string;
  readonly body: string;
  readonly delivered_at: Date | null;
  readonly delivery_target: string | null;
}

/** The runs' recorded documents (not the month's invoice specifications the worker also makes at start). */
const recorded = async (db: Database) =>
  (await db.query<Recorded>(`SELECT document_id, file_name, body, delivered_at, delivery_target FROM outgoing_documents
                              WHERE document_id NOT IN (SELECT document_id FROM invoice_specifications) ORDER BY document_id`)).rows;

const attempts = async (db: Database, documentId: string) =>
  (await db.query<{ channel: string | null; target: string | null; outcome: string; error: string | null }>(
    'SELECT channel, target, outcome, error FROM outgoing_deliveries WHERE document_id = $1 ORDER BY id', [documentId],
  )).rows;

test('the file reaches the outbox only after the run has committed, by the deliver stage, with a delivery record', async () => {
  const gateway = await workerOnDemoLedger();
  try {
    const { db } = gateway.deps;
    const outbox = gateway.outbox('demo-custodian');
    const job = debitRun(gateway);
    let inside: { files: string[]; committedRows: number } | undefined;
    // The calendar's run, looked at just before its transaction commits (after a pause
    // long enough for any delivery to have happened): no file, and nothing visible yet to
    // another connection (a database handle of its own: inside the transaction the
    // gateway's own outer handle is refused).
    const onlooker = openPostgresDatabase({ url: gateway.database!.url, max: 1 });
    const observed: CalendarJob = {
      ...job,
      async run(run) {
        await job.run(run);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const { rows } = await onlooker.query<{ n: number }>('SELECT count(*)::int AS n FROM outgoing_documents');
        inside = { files: await xmlFiles(outbox), committedRows: rows[0]!.n };
      },
    };
    try {
      assert.deepEqual(await runDuePeriods(db, observed, RUN_AT, gateway.log), ['2024-Q3']);
    } finally {
      await onlooker.close();
    }
    expect(inside).toStrictEqual({ files: [], committedRows: 0 });

    await waitFor(async () => (await xmlFiles(outbox)).length > 0, 'the file');
    expect(await xmlFiles(outbox)).toEqual([FILE]);
    const [document] = await waitFor(async () => {
      const rows = await recorded(db);
      return rows[0]?.delivered_at && rows;
    }, 'the delivery recorded');
    assert.equal(document!.document_id, DOCUMENT);
    assert.equal(await readFile(join(outbox, FILE), 'utf8'), document!.body);
    assert.equal(document!.delivery_target, join(outbox, FILE));
    assert.deepEqual(await attempts(db, DOCUMENT), [{ channel: 'folder', target: join(outbox, FILE), outcome: 'delivered', error: null }]);
  } finally {
    await gateway.destroy();
  }
});

test('an outbox that cannot be written leaves the run committed; the deliver queue retries until the recorded file is in place', async () => {
  // Enough attempts, from 100 ms doubling, for the outbox to be put back meanwhile.
  const gateway = await workerOnDemoLedger({ attempts: 30, backoffMs: 100 });
  try {
    const { db } = gateway.deps;
    const outbox = gateway.outbox('demo-custodian');
    await rm(outbox, { recursive: true, force: true });
    await writeFile(outbox, 'not a folder');

    assert.deepEqual(await runDuePeriods(db, debitRun(gateway), RUN_AT, gateway.log), ['2024-Q3']);
    // The ledger effects are committed whatever becomes of the file.
    const { rows: ledger } = await db.query<{ runs: number; lines: number; calendar: number }>(
      `SELECT (SELECT count(*)::int FROM debit_runs WHERE run_key = '2024-Q3') AS runs,
              (SELECT count(*)::int FROM debit_lines WHERE run_key = '2024-Q3') AS lines,
              (SELECT count(*)::int FROM calendar_runs WHERE job = 'debit-runs' AND period = '2024-Q3') AS calendar`,
    );
    assert.deepEqual(ledger[0], { runs: 1, lines: 2, calendar: 1 }); // DEPA-100001's fixed and capital charges
    const [document] = await recorded(db);
    assert.deepEqual([document?.document_id, document?.file_name], [DOCUMENT, FILE]);

    // The deliver stage tries, fails, and tries again.
    const failed = await waitFor(async () => {
      const rows = await attempts(db, DOCUMENT);
      return rows.length >= 2 && rows;
    }, 'two failed attempts');
    assert.ok(failed.every((attempt) => attempt.outcome === 'failed' && attempt.channel === 'folder'), JSON.stringify(failed));
    assert.match(failed[0]!.error ?? '', new RegExp(FILE.replaceAll('.', '\\.')));
    assert.ok((await stat(outbox)).isFile(), 'nothing was written');
    assert.equal((await recorded(db))[0]?.delivered_at, null);

    await rm(outbox, { force: true });
    await mkdir(outbox);
    const [delivered] = await waitFor(async () => {
      const rows = await recorded(db);
      return rows[0]?.delivered_at && rows;
    }, 'the retry to deliver the file');
    expect(await xmlFiles(outbox)).toEqual([FILE]);
    assert.equal(await readFile(join(outbox, FILE), 'utf8'), document!.body);
    assert.equal(delivered!.body, document!.body);
    const all = await attempts(db, DOCUMENT);
    assert.deepEqual(all.at(-1), { channel: 'folder', target: join(outbox, FILE), outcome: 'delivered', error: null });
    assert.ok(all.slice(0, -1).every((attempt) => attempt.outcome === 'failed'));
  } finally {
    await gateway.destroy();
  }
});

test('a document whose every attempt failed waits, like a dead response, until it is replayed by its id', async () => {
  const gateway = await workerOnDemoLedger({ attempts: 2, backoffMs: 50 });
  try {
    const { db } = gateway.deps;
    const outbox = gateway.outbox('demo-custodian');
    await rm(outbox, { recursive: true, force: true });
    await writeFile(outbox, 'not a folder');
    assert.deepEqual(await runDuePeriods(db, debitRun(gateway), RUN_AT, gateway.log), ['2024-Q3']);
    await waitFor(async () => (await gateway.queues!.counts()).deliver.failed === 1, 'the deliver job to fail for good');
    await rm(outbox, { force: true });
    await mkdir(outbox);
    // The reconciler's sweeps (every 500 ms) do not make a second job beside the failed one.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await xmlFiles(outbox)).toEqual([]);
    assert.deepEqual((await attempts(db, DOCUMENT)).map((attempt) => attempt.outcome), ['failed', 'failed']);

    assert.equal(await replayMessage(db, gateway.deps.scheduler, DOCUMENT), 'deliver');
    const [document] = await waitFor(async () => {
      const rows = await recorded(db);
      return rows[0]?.delivered_at && rows;
    }, 'the replayed delivery');
    expect(await xmlFiles(outbox)).toEqual([FILE]);
    assert.equal(await readFile(join(outbox, FILE), 'utf8'), document!.body);
    await assert.rejects(replayMessage(db, gateway.deps.scheduler, DOCUMENT), { code: 'MESSAGE_NOT_REPLAYABLE' });
    await assert.rejects(replayMessage(db, gateway.deps.scheduler, 'DA-1999-Q1-nobody'), { code: 'MESSAGE_NOT_FOUND' });
  } finally {
    await gateway.destroy();
  }
});

test('a worker killed between the commit and the delivery: after a restart, one file per document, the recorded bytes under the recorded name', async () => {
  const database = await createTestDatabase(template.name);
  const db = openPostgresDatabase({ url: database.url, max: 2 });
  const folder = await mkdtemp(join(tmpdir(), 'dg-run-crash-'));
  const workers: GatewayProcess[] = [];
  const settings = testSettings(join(folder, 'data'), {
    databaseUrl: database.url, logLevel: 'warn',
    workers: { backoffMs: 200, attempts: 50, reconcileEveryMs: 500, reconcileAfterMs: 1500, lockDurationMs: 3000, stalledIntervalMs: 1000 },
    // Rates for every tax year the runs due today may need, so that none is held back for want of one.
    charges: { yieldTaxRates: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [String(2024 + i), { pt: '0.300', k: '0.900' }])) },
  });
  const config = await writeConfigFile(folder, settings);
  const outbox = join(folder, 'data', 'counterparties', 'demo-custodian', 'outbox');
  const startWorker = () => {
    const worker = runCli(['worker', '--config', config]);
    workers.push(worker);
    return worker;
  };
  try {
    // Values for a T and a K account, carried into every quarter since: the debit runs due
    // today (by the real clock the worker runs on) each make a file. Each document's row
    // is held a moment by a trigger, so the test can act while the run is under way.
    await db.exec(`
      INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id) VALUES
        ('DEPA-100001', '2025-12-31', 50000.00, 500000.00, 550000.00, 1, 'test'), ('DEPA-100006', '2025-12-31', 100.00, 339900.00, 340000.00, 1, 'test');
      CREATE FUNCTION run_file_pace() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1); RETURN NEW; END $$;
      CREATE TRIGGER run_file_pace BEFORE INSERT ON outgoing_documents FOR EACH ROW EXECUTE FUNCTION run_file_pace();`);

    let worker = startWorker();
    // The worker's calendar catch-up is writing its first document: the outbox goes now,
    // so that every delivery after the commit fails.
    await waitFor(async () => {
      if (worker.child.exitCode !== null) throw new Error(`worker exited:\n${worker.output()}`);
      const { rows } = await db.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE 'INSERT INTO outgoing_documents%'`, [database.name],
      );
      return rows.length > 0;
    }, 'the run to write its document', 60_000);
    await rm(outbox, { recursive: true, force: true });
    await writeFile(outbox, 'not a folder');

    // Both due debit runs committed, and each document's delivery tried and failed.
    const documents = await waitFor(async () => {
      const { rows: runs } = await db.query(`SELECT 1 FROM calendar_runs WHERE job = 'debit-runs'`);
      const rows = await recorded(db);
      const tried = await Promise.all(rows.map(async (row) => (await attempts(db, row.document_id)).length > 0));
      return runs.length === 2 && rows.length > 0 && tried.every(Boolean) && rows;
    }, 'the runs committed and their deliveries failed', 60_000);
    worker.child.kill('SIGKILL');
    assert.equal(await worker.exited, 'SIGKILL');
    assert.ok(documents.every((document) => document.delivered_at === null));
    assert.equal(documents.length, 2, documents.map((document) => document.document_id).join(', '));

    await db.exec('DROP TRIGGER run_file_pace ON outgoing_documents');
    await rm(outbox, { force: true });
    await mkdir(outbox);
    worker = startWorker();
    await waitFor(async () => {
      if (worker.child.exitCode !== null) throw new Error(`worker exited:\n${worker.output()}`);
      return (await recorded(db)).every((document) => document.delivered_at !== null);
    }, 'the recorded files delivered after the restart', 60_000);
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.output());

    expect(await xmlFiles(outbox)).toEqual(documents.map((document) => document.file_name).sort());
    for (const document of documents) {
      assert.equal(await readFile(join(outbox, document.file_name), 'utf8'), document.body, `${document.file_name} holds the recorded bytes`);
    }
    const after = await recorded(db);
    assert.deepEqual(after.map((document) => [document.document_id, document.body]), documents.map((document) => [document.document_id, document.body]), 'no new document');
    const { rows: runs } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM debit_runs');
    assert.equal(runs[0]!.n, 2);
  } finally {
    for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    await db.close();
    await database.drop();
    await deleteQueues(settings.queuePrefix as string);
    await rm(folder, { recursive: true, force: true });
  }
});
