/**
 * A folder inbox file is answered once, whatever happens between intake and its move
 * out of the inbox: a gateway killed in between, or an archive it cannot write to; and
 * the same file sent again after its move is answered as a duplicate, whatever happened
 * to the record of that move (the database away, a stop before it).
 * The gateway, PostgreSQL, Redis and the folders are real; the fault is a real one too
 * (the day's archive folder is a regular file, so the move fails as on a full or
 * read-only archive).
 */
import { test, afterEach } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FolderInboxWatcher } from '../src/channels/folder.channel.ts';
import type { IntakePort } from '../src/channels/envelope.ts';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { createTestDatabase, deleteQueues, dropFile, startTestGateway, testSettings, waitFor, FIXED_NOW } from './support/harness.ts';
import { runCli, writeConfigFile } from './support/processes.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';
import { startPostgresCluster } from './support/postgres-cluster.ts';

const people = [PERSONS.anna, PERSONS.bertil, PERSONS.cecilia];
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

function document(tag: string, index: number): string {
  return salaryAdjustment({ messageId: `${tag}-${index}` }, [{ pin: people[index % people.length]!, date: '2026-12-01', salary: `${410_000 + index}.00` }]);
}

/** The day's archive folder made a regular file: every move into it fails. */
async function blockArchive(folder: string, days: readonly Date[]): Promise<() => Promise<void>> {
  const paths = days.map((day) => join(folder, 'archive', day.toISOString().slice(0, 10)));
  for (const path of paths) await writeFile(path, 'not a folder');
  return async () => {
    for (const path of paths) await rm(path, { force: true });
  };
}

const xmlFiles = async (folder: string) => (await readdir(folder)).filter((name) => name.endsWith('.xml'));
/** The answers in an outbox: the worker's other documents there (the month's invoice specifications it makes at start) are not the test's. */
const answersIn = async (outbox: string) => (await xmlFiles(outbox)).filter((name) => !name.startsWith('invoice-specification-'));

test('a gateway killed after intake but before the archive move answers each document once after its restart', async () => {
  const database = await createTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), 'dg-inbox-kill-'));
  const settings = testSettings(dataDir, { databaseUrl: database.url, logLevel: 'warn' });
  cleanups.push(() => database.drop(), () => rm(dataDir, { recursive: true, force: true }), () => deleteQueues(settings.queuePrefix as string));
  const configFile = await writeConfigFile(dataDir, settings);
  await writeFile(join(dataDir, '.demo-sample-dropped'), ''); // no sample document among the test's
  const folder = join(dataDir, 'counterparties', 'demo-employer');
  const inbox = join(folder, 'inbox');
  const outbox = join(folder, 'outbox');
  const db = openPostgresDatabase({ url: database.url, max: 1 });
  cleanups.push(() => db.close());
  const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);

  // The first gateway records and answers the documents; their move fails, and it is killed.
  let gateway = runCli(['start', '--config', configFile]);
  cleanups.push(async () => gateway.child.kill('SIGKILL'));
  await waitFor(async () => (await readdir(folder).catch((): string[] => [])).includes('archive'), 'the gateway to create its folders', 30_000);
  const today = new Date();
  const unblock = await blockArchive(folder, [today, new Date(today.getTime() + 86_400_000)]);
  const documents = 5;
  for (let index = 0; index < documents; index += 1) await dropFile(inbox, `kill-${index}.xml`, document('KILL', index));
  await waitFor(async () => (await answersIn(outbox).catch((): string[] => [])).length >= documents || gateway.child.exitCode !== null, 'every document answered', 30_000);
  assert.equal(gateway.child.exitCode, null, `gateway exited early:\n${gateway.output()}`);
  gateway.child.kill('SIGKILL');
  assert.equal(await gateway.exited, 'SIGKILL');
  assert.equal((await xmlFiles(inbox)).length, documents, 'the recorded files are still in the inbox');

  // Restarted with a writable archive: the files move, and nobody is answered again.
  await unblock();
  gateway = runCli(['start', '--config', configFile]);
  await waitFor(async () => (await xmlFiles(inbox)).length === 0, 'the inbox to empty', 30_000);
  await waitFor(async () => (await count(`SELECT count(*)::text AS n FROM inbox_files`)) === 0, 'the moves to be recorded');
  await waitFor(async () => (await count(`SELECT count(*)::text AS n FROM messages WHERE status = 'applied'`)) === documents, 'every document applied', 30_000);
  await sleep(500); // an answer the restart wrongly gave would be delivered by now
  gateway.child.kill('SIGTERM');
  await gateway.exited;

  assert.equal(await count(`SELECT count(*)::text AS n FROM messages`), documents, 'one message per document');
  const answers = await answersIn(outbox);
  assert.equal(answers.length, documents, `one answer per document: ${answers.join(', ')}`);
  assert.ok(answers.every((name) => name.endsWith('.SalaryAdjustmentResponse.xml')), answers.join(', '));
  const archived = (await readdir(join(folder, 'archive'), { recursive: true })).filter((name) => String(name).endsWith('.xml'));
  assert.equal(archived.length, documents, 'every file archived');
});

test('a file that cannot be archived is answered once and reported once across rescans; once the archive is writable it moves, and a re-send after that is a duplicate', async () => {
  const gateway = await startTestGateway({ roles: ['worker'] });
  cleanups.push(() => gateway.destroy());
  const folder = join(gateway.inbox('demo-employer'), '..');
  const unblock = await blockArchive(folder, [FIXED_NOW]);
  const errors: { messageId?: string }[] = [];
  const watcher = new FolderInboxWatcher({
    counterparties: [{ id: 'demo-employer', folder }], intake: gateway.intake, maxDocumentBytes: 1 << 20,
    stableMs: 50, pollIntervalMs: 25, rescanEveryMs: 100, clock: () => FIXED_NOW,
    log: { info() {}, warn() {}, error: (obj) => errors.push(obj as { messageId?: string }) },
  });
  cleanups.push(() => watcher.stop());
  await watcher.start();
  const db = gateway.deps.db;
  const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);

  const documents = 3;
  for (let index = 0; index < documents; index += 1) await dropFile(gateway.inbox('demo-employer'), `stuck-${index}.xml`, document('STUCK', index));
  await waitFor(async () => (await answersIn(gateway.outbox('demo-employer'))).length >= documents, 'every document answered');
  await sleep(1500); // some fifteen rescans, each offering the files again

  assert.equal(await count(`SELECT count(*)::text AS n FROM messages`), documents, 'no message recorded again');
  assert.equal((await answersIn(gateway.outbox('demo-employer'))).length, documents, 'no answer given again');
  assert.equal((await xmlFiles(gateway.inbox('demo-employer'))).length, documents, 'the files are still in the inbox');
  assert.equal(errors.length, documents, 'each unmovable file reported once');
  assert.equal(new Set(errors.map((e) => e.messageId)).size, documents);
  assert.equal(await count(`SELECT count(*)::text AS n FROM message_events WHERE reason = 'not_moved'`), documents, 'one event per file for staff');

  await unblock();
  await waitFor(async () => (await xmlFiles(gateway.inbox('demo-employer'))).length === 0, 'the inbox to empty');
  await waitFor(async () => (await count(`SELECT count(*)::text AS n FROM inbox_files`)) === 0, 'the moves to be recorded');
  assert.equal((await answersIn(gateway.outbox('demo-employer'))).length, documents, 'still one answer per document');

  // The same file sent again after its move is a re-send: recorded and answered as a duplicate.
  await dropFile(gateway.inbox('demo-employer'), 'stuck-0.xml', document('STUCK', 0));
  await waitFor(async () => (await count(`SELECT count(*)::text AS n FROM messages WHERE status = 'duplicate'`)) === 1, 'the re-send recorded as a duplicate');
  await waitFor(async () => (await answersIn(gateway.outbox('demo-employer'))).length === documents + 1, 'the re-send answered');
  await waitFor(async () => (await xmlFiles(gateway.inbox('demo-employer'))).length === 0, 'the re-send moved');
});

test('a recorded file its sender removed before the move counts as moved: nothing is reported, and a later upload of it is a duplicate', async () => {
  const gateway = await startTestGateway({ roles: ['worker'] });
  cleanups.push(() => gateway.destroy());
  const inbox = gateway.inbox('demo-employer');
  const errors: object[] = [];
  // The real intake; the sender removes each file just after intake recorded it.
  const intake: IntakePort = {
    receive: (envelope) => gateway.intake.receive(envelope).finally(() => rm(join(inbox, envelope.externalId), { force: true })),
    inboxFilesMoved: (ids) => gateway.intake.inboxFilesMoved!(ids),
    inboxFileNotMoved: (id, reason) => gateway.intake.inboxFileNotMoved!(id, reason),
  };
  const watcher = new FolderInboxWatcher({
    counterparties: [{ id: 'demo-employer', folder: join(inbox, '..') }], intake, maxDocumentBytes: 1 << 20,
    stableMs: 50, pollIntervalMs: 25, rescanEveryMs: 100, clock: () => FIXED_NOW,
    log: { info() {}, warn() {}, error: (obj) => errors.push(obj) },
  });
  cleanups.push(() => watcher.stop());
  await watcher.start();
  const count = async (sql: string) => Number((await gateway.deps.db.query<{ n: string }>(sql)).rows[0]!.n);

  await dropFile(inbox, 'gone.xml', document('GONE', 0));
  await waitFor(async () => (await count(`SELECT count(*)::text AS n FROM messages`)) === 1, 'the file recorded');
  await waitFor(async () => (await count(`SELECT count(*)::text AS n FROM inbox_files`)) === 0, 'its leaving recorded');
  assert.deepEqual(errors, []);
  await dropFile(inbox, 'gone.xml', document('GONE', 0));
  await waitFor(async () => (await count(`SELECT count(*)::text AS n FROM messages WHERE status = 'duplicate'`)) === 1, 'the upload again answered as a duplicate');
});

test('PostgreSQL stopped during the move of a recorded file: once it is back, the same file sent again is answered as a duplicate, and the archived file stays as it was', async () => {
  const cluster = await startPostgresCluster();
  cleanups.push(() => cluster.destroy());
  const gateway = await startTestGateway({ roles: ['worker'], database: { url: cluster.url, name: 'postgres', drop: async () => {} }, keepDatabase: true });
  cleanups.push(() => gateway.destroy());
  const inbox = gateway.inbox('demo-employer');
  const folder = join(inbox, '..');
  let stopAfterIntake = true;
  // The real intake; the database goes away right after it recorded the file, before the watcher moves it.
  const intake: IntakePort = {
    receive: async (envelope) => {
      const receipt = await gateway.intake.receive(envelope);
      if (stopAfterIntake) {
        stopAfterIntake = false;
        await cluster.stop();
      }
      return receipt;
    },
    inboxFilesMoved: (ids) => gateway.intake.inboxFilesMoved!(ids),
    unmovedInboxFiles: (ids) => gateway.intake.unmovedInboxFiles!(ids),
    inboxFileNotMoved: (id, reason) => gateway.intake.inboxFileNotMoved!(id, reason),
  };
  const warnings: string[] = [];
  const watcher = new FolderInboxWatcher({
    counterparties: [{ id: 'demo-employer', folder }], intake, maxDocumentBytes: 1 << 20,
    stableMs: 50, pollIntervalMs: 25, rescanEveryMs: 200, clock: () => FIXED_NOW,
    log: { info() {}, warn: (_obj, msg) => warnings.push(msg ?? ''), error() {} },
  });
  cleanups.push(() => watcher.stop());
  await watcher.start();
  const count = async (sql: string) => Number((await gateway.deps.db.query<{ n: string }>(sql)).rows[0]!.n);

  const bytes = document('PGMOVE', 0);
  await dropFile(inbox, 'moved.xml', bytes);
  await waitFor(async () => (await xmlFiles(inbox)).length === 0, 'the recorded file moved to the archive');
  await waitFor(() => warnings.some((msg) => /could not record it/.test(msg)), 'the move\'s record to fail');
  const archiveDay = join(folder, 'archive', FIXED_NOW.toISOString().slice(0, 10));
  const [archived] = await readdir(archiveDay);
  // Its sender sends it again while the database is still away, then the database comes back.
  await sleep(300);
  await dropFile(inbox, 'moved.xml', bytes);
  await sleep(300);
  await cluster.start();

  await waitFor(async () => (await count(`SELECT count(*)::text AS n FROM messages WHERE status = 'duplicate'`)) === 1, 'the re-send recorded as a duplicate', 30_000);
  await waitFor(async () => (await answersIn(gateway.outbox('demo-employer'))).length === 2, 'the original and the re-send each answered', 30_000);
  await waitFor(async () => (await xmlFiles(inbox)).length === 0, 'the re-send moved out of the inbox');
  await waitFor(async () => (await count(`SELECT count(*)::text AS n FROM inbox_files`)) === 0, 'no recorded file left behind');
  assert.equal(await count(`SELECT count(*)::text AS n FROM messages`), 2);
  const answers = await xmlFiles(gateway.outbox('demo-employer'));
  assert.equal(answers.filter((name) => name.endsWith('.MessageRejected.xml')).length, 1, answers.join(', '));
  const archive = (await readdir(archiveDay)).sort();
  assert.equal(archive.length, 2, `both files archived, each under its own message: ${archive.join(', ')}`);
  assert.ok(archive.includes(archived!), 'the original\'s archived file is where it was');
});

test('a stop between the move and its record: after the restart the same file sent again — before or after the start — is answered as a duplicate', async () => {
  const gateway = await startTestGateway({ roles: ['worker'] });
  cleanups.push(() => gateway.destroy());
  const inbox = gateway.inbox('demo-employer');
  const folder = join(inbox, '..');
  const watcherWith = (intake: IntakePort) => new FolderInboxWatcher({
    counterparties: [{ id: 'demo-employer', folder }], intake, maxDocumentBytes: 1 << 20,
    stableMs: 50, pollIntervalMs: 25, rescanEveryMs: 200, clock: () => FIXED_NOW,
  });
  const count = async (sql: string) => Number((await gateway.deps.db.query<{ n: string }>(sql)).rows[0]!.n);

  // The first run is stopped right after its moves: their record never made (a kill there leaves the same).
  const first = watcherWith({ receive: (envelope) => gateway.intake.receive(envelope), receiveMany: (envelopes) => gateway.intake.receiveMany!(envelopes) });
  await first.start();
  await dropFile(inbox, 'before.xml', document('STOPPED', 0));
  await dropFile(inbox, 'after.xml', document('STOPPED', 1));
  await waitFor(async () => (await xmlFiles(inbox)).length === 0 && (await count(`SELECT count(*)::text AS n FROM messages`)) === 2, 'both files recorded and moved');
  await first.stop();
  assert.equal(await count(`SELECT count(*)::text AS n FROM inbox_files`), 2, 'their records left behind');

  // One is sent again while the gateway is stopped, the other once it runs again.
  await dropFile(inbox, 'before.xml', document('STOPPED', 0));
  const second = watcherWith(gateway.intake);
  cleanups.push(() => second.stop());
  await second.start();
  await waitFor(async () => (await count(`SELECT count(*)::text AS n FROM messages WHERE status = 'duplicate'`)) === 1, 'the file sent again during the stop answered as a duplicate');
  await waitFor(async () => (await count(`SELECT count(*)::text AS n FROM inbox_files`)) === 0, 'the records left behind forgotten');
  await dropFile(inbox, 'after.xml', document('STOPPED', 1));
  await waitFor(async () => (await count(`SELECT count(*)::text AS n FROM messages WHERE status = 'duplicate'`)) === 2, 'the file sent again after the start answered as a duplicate');
  await waitFor(async () => (await answersIn(gateway.outbox('demo-employer'))).length === 4, 'every file answered, the originals and the re-sends');
  await waitFor(async () => (await xmlFiles(inbox)).length === 0, 'the inbox empty');
  const archived = (await readdir(join(folder, 'archive'), { recursive: true })).filter((name) => String(name).endsWith('.xml'));
  assert.equal(archived.length, 4, `each file archived under its own message: ${archived.join(', ')}`);
});
