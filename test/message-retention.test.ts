/**
 * Retention of received documents' bytes, on the embedded database and on PostgreSQL:
 * finished messages received more than `keepBytesDays` ago lose their bytes, and their
 * delivered responses their bodies, to a compressed archive file of the document store,
 * at most `maxPerRun` a run, the next run going on where the last stopped; what is read
 * back from the archive is the document as received (its sha256) and the response as
 * sent; dead messages and newer ones keep their bytes; the run is recorded; the
 * counterparties' archive day folders past the cutoff go. Past `maskAfterDays` the
 * archive files are written again with personal identity numbers masked, the unmasked
 * files removed — by the next run when the one that masked them stopped first — and
 * staff see the masked document.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { markDead } from '../src/ledger/messages/messages.repository.ts';
import { runRetention, pruneArchiveFolders, removeReplacedArchives, MESSAGE_RETENTION_JOB } from '../src/calendar/message-retention.job.ts';
import { signInToConsole } from './support/console-session.ts';
import { FIXED_NOW, startTestGateway, waitFor, type TestGateway, type TestGatewayOptions } from './support/harness.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];
const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
const YEAR_MS = 365 * 86_400_000;
const SILENT = pino({ level: 'silent' });

async function bytesOf(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

describe.each(ENGINES)('retention of documents\' bytes on %s', (_engine, engine) => {
  let gateway: TestGateway;
  const ids: string[] = [];

  beforeAll(async () => {
    gateway = await startTestGateway({ ...engine, roles: ['api', 'worker'] });
    for (let index = 0; index < 6; index += 1) {
      const answer = await gateway.http!.inject({
        method: 'POST', url: `/api/messages?from=demo-employer&name=retention-${index}.xml`, headers: { ...STAFF, 'content-type': 'application/xml' },
        payload: salaryAdjustment({ messageId: `RETENTION-${index}` }, [{ pin: PERSONS.anna, date: '2026-12-01', salary: `${600_000 + index}.00` }]),
      });
      ids.push((answer.json() as { messageId: string }).messageId);
    }
    await waitFor(async () => (await gateway.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE id = ANY($1::text[]) AND status = 'applied'`, [ids])).rows[0]!.n === ids.length, 'the documents applied');
    await waitFor(async () => (await gateway.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM responses WHERE message_id = ANY($1::text[]) AND delivered_at IS NOT NULL`, [ids])).rows[0]!.n === ids.length, 'the responses delivered');
    // The day's run at start has found nothing old; the tests run the job themselves.
    await waitFor(async () => (await gateway.deps.db.query('SELECT 1 FROM calendar_runs WHERE job = $1', [MESSAGE_RETENTION_JOB])).rows.length > 0, 'the retention run of the day');
    // Five of them (and every message before them) three years old, one of those dead; the sixth received now.
    await gateway.deps.db.query(`UPDATE messages SET received_at = received_at - interval '3 years' WHERE seq <= (SELECT seq FROM messages WHERE id = $1)`, [ids[4]]);
    await markDead(gateway.deps.db, ids[4]!, 'deliver', 'DELIVERY_FAILED', 'the outbox could not be written');
  });
  afterAll(async () => {
    await gateway?.destroy();
  });

  test('the nightly job is scheduled, and its run at start found nothing old enough', async () => {
    const { rows } = await gateway.deps.db.query<{ archived: number }>(`SELECT archived FROM message_retention_runs WHERE period NOT LIKE 'test-%'`);
    assert.deepEqual(rows, [{ archived: 0 }]);
  });

  test('old finished messages lose their bytes to the archive, at most maxPerRun a run; read back they are the documents received', async () => {
    const { db, documents: store } = gateway.deps;
    // What is due: finished messages with their bytes, received before the cutoff (ours and any the demo made before them).
    const due = (await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages WHERE raw IS NOT NULL AND status IN ('applied', 'rejected', 'duplicate') AND received_at < $1`, [new Date(FIXED_NOW.getTime() - 730 * 86_400_000)],
    )).rows[0]!.n;
    assert.ok(due >= 4);
    const deps = { store, keepBytesDays: 730, maskAfterDays: 3650, maxPerRun: due - 1 };
    const first = await db.transaction((tx) => runRetention(tx, deps, 'test-1', FIXED_NOW));
    assert.equal(first.archived, due - 1, 'bounded by maxPerRun');
    const second = await db.transaction((tx) => runRetention(tx, deps, 'test-2', FIXED_NOW));
    assert.equal(second.archived, 1, 'the next run goes on where the first stopped');
    assert.ok(second.lastSeq > first.lastSeq);
    assert.ok(first.responses + second.responses >= 4, 'the delivered responses moved with them');
    const third = await db.transaction((tx) => runRetention(tx, deps, 'test-3', FIXED_NOW));
    assert.equal(third.archived, 0, 'nothing more is old enough');
    assert.equal(first.masked + second.masked + third.masked, 0, 'nothing is old enough to be masked');

    const rows = (await db.query<{ id: string; raw: Uint8Array | null; raw_location: string | null; sha256: string; status: string }>(
      'SELECT id, raw, raw_location, sha256, status FROM messages WHERE id = ANY($1::text[])', [ids],
    )).rows;
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const id of ids.slice(0, 4)) {
      const row = byId.get(id)!;
      assert.equal(row.raw, null, `${id} has no bytes in its row`);
      assert.match(row.raw_location ?? '', /^archive\/test-\d-\d+\.gz@\d+\+\d+$/);
      const back = await bytesOf(store.read(row.raw_location!));
      assert.equal(createHash('sha256').update(back).digest('hex'), row.sha256, `${id} read back from the archive is the document received`);
      assert.equal(row.status, 'applied', 'its status stays');
    }
    assert.ok(byId.get(ids[4]!)!.raw !== null, 'a dead message keeps its bytes (staff may replay it)');
    assert.ok(byId.get(ids[5]!)!.raw !== null, 'a new message keeps its bytes');
    const runs = (await db.query<{ period: string; archived: number }>(`SELECT period, archived FROM message_retention_runs WHERE period LIKE 'test-%' ORDER BY period`)).rows;
    assert.deepEqual(runs, [{ period: 'test-1', archived: due - 1 }, { period: 'test-2', archived: 1 }, { period: 'test-3', archived: 0 }]);

    // The responses of the archived messages left their rows for the same files, and read back they are what was sent.
    const responses = (await db.query<{ message_id: string; body: string | null; body_location: string | null }>(
      'SELECT message_id, body, body_location FROM responses WHERE message_id = ANY($1::text[])', [ids.slice(0, 4)],
    )).rows;
    assert.equal(responses.length, 4);
    for (const response of responses) {
      assert.equal(response.body, null, `${response.message_id}: its response has no body in its row`);
      assert.equal(response.body_location!.split('@')[0], byId.get(response.message_id)!.raw_location!.split('@')[0], 'in its request\'s archive file');
      assert.match((await bytesOf(store.read(response.body_location!))).toString('utf8'), /<SalaryAdjustmentResponse [\s\S]*<Status>Accepted<\/Status>/);
    }
    const files = (await db.query<{ documents: number; masked_at: Date | null }>(`SELECT documents, masked_at FROM message_archive_files`)).rows;
    assert.equal(files.reduce((sum, file) => sum + file.documents, 0), due + first.responses + second.responses, 'every archive file is recorded with its documents');
    assert.ok(files.every((file) => file.masked_at === null));

    // Staff still read an archived message, and its response stays.
    const message = await gateway.http!.inject({ method: 'GET', url: `/api/messages/${ids[0]}`, headers: STAFF });
    assert.equal(message.statusCode, 200);
    const response = await gateway.http!.inject({ method: 'GET', url: `/api/messages/${ids[0]}/response`, headers: STAFF });
    assert.match(response.body, /<Status>Accepted<\/Status>/);
  });

  test('past maskAfterDays the archive files are written again with personal identity numbers masked; the unmasked files go, by the next run if need be', async () => {
    const { db, documents: store } = gateway.deps;
    const deps = { store, keepBytesDays: 730, maskAfterDays: 3650, maxPerRun: 200_000 };
    const before = (await db.query<{ id: string; raw_location: string }>('SELECT id, raw_location FROM messages WHERE id = ANY($1::text[])', [ids.slice(0, 4)])).rows;
    const unmaskedFiles = [...new Set(before.map((row) => row.raw_location.split('@')[0]!))];
    assert.match((await bytesOf(store.read(before[0]!.raw_location))).toString('utf8'), new RegExp(PERSONS.anna), 'archived unmasked at first');

    // Eight years on, the three-year-old files are past ten years; the run stops before its removals.
    const later = new Date(FIXED_NOW.getTime() + 8 * YEAR_MS);
    const masking = await db.transaction((tx) => runRetention(tx, deps, 'test-4', later));
    assert.ok(masking.masked >= 8, `requests and responses masked (${masking.masked})`);
    assert.deepEqual([...masking.replaced].sort(), [...unmaskedFiles].sort().filter((file) => masking.replaced.includes(file)));
    for (const file of unmaskedFiles) assert.ok(masking.replaced.includes(file), `${file} replaced by its masked copy`);
    const after = (await db.query<{ id: string; raw_location: string; body_location: string; sha256: string }>(
      'SELECT m.id, m.raw_location, r.body_location, m.sha256 FROM messages m JOIN responses r ON r.message_id = m.id WHERE m.id = ANY($1::text[])', [ids.slice(0, 4)],
    )).rows;
    for (const row of after) {
      assert.ok(!unmaskedFiles.includes(row.raw_location.split('@')[0]!), `${row.id} is read from the masked copy`);
      const document = (await bytesOf(store.read(row.raw_location))).toString('utf8');
      assert.ok(!document.includes(PERSONS.anna), `${row.id}: no personal identity number left`);
      assert.match(document, new RegExp(`${PERSONS.anna.slice(0, 8)}-\\*{4}`), 'masked to the date of birth');
      assert.match(document, /<AnnualSalary currency="SEK">60000\d\.00<\/AnnualSalary>/, 'the rest of the document as received');
      assert.ok(!(await bytesOf(store.read(row.body_location))).toString('utf8').includes(PERSONS.anna), 'nor in its response');
    }
    // Not removed yet: the run stopped before; the unmasked file is recorded as replaced.
    assert.ok((await bytesOf(store.read(before[0]!.raw_location))).length > 0);
    const replaced = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM message_archive_files WHERE replaced_at IS NOT NULL')).rows[0]!.n;
    assert.equal(replaced, masking.maskedFiles);

    // The next run removes them, and masks nothing twice.
    const next = await db.transaction((tx) => runRetention(tx, deps, 'test-5', new Date(later.getTime() + 86_400_000)));
    assert.equal(next.masked, 0);
    await assert.rejects(bytesOf(store.read(before[0]!.raw_location)), 'the unmasked file is gone');
    assert.equal((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM message_archive_files WHERE replaced_at IS NOT NULL')).rows[0]!.n, 0);
    await removeReplacedArchives(store, next.replaced, SILENT);
    const recorded = (await db.query<{ masked: number; masked_files: number }>(`SELECT masked, masked_files FROM message_retention_runs WHERE period = 'test-4'`)).rows[0]!;
    assert.deepEqual(recorded, { masked: masking.masked, masked_files: masking.maskedFiles });

    // Staff see the masked document, and that it is masked; the response through the staff API.
    const session = await signInToConsole(gateway.http!, 'staff', 'test-password');
    const detail = await gateway.http!.inject({ url: `/console/messages/${ids[0]}`, headers: { cookie: session.cookie } });
    assert.equal(detail.statusCode, 200);
    assert.match(detail.body, /personal identity numbers masked/);
    assert.match(detail.body, new RegExp(`${PERSONS.anna.slice(0, 8)}-\\*{4}`));
    const download = await gateway.http!.inject({ url: `/console/messages/${ids[0]}/raw`, headers: { cookie: session.cookie } });
    assert.equal(download.statusCode, 200);
    assert.ok(!download.body.includes(PERSONS.anna) && download.body.includes('<SalaryAdjustment'), 'the download is the masked document');
    const response = await gateway.http!.inject({ method: 'GET', url: `/api/messages/${ids[0]}/response`, headers: STAFF });
    assert.match(response.body, /<Status>Accepted<\/Status>/);

    // And what retention did, night by night.
    const retention = await gateway.http!.inject({ url: '/console/retention', headers: { cookie: session.cookie } });
    assert.equal(retention.statusCode, 200);
    const night = new RegExp(`<tr><td>test-4</td>[\\s\\S]*?<span class="number">${masking.masked}</span></td><td>${masking.maskedFiles}</td>`);
    assert.match(retention.body, night, 'the masking night with its figures');
    assert.match(retention.body, /masked to the date of birth after 3650 days/);
  });

  test("the counterparties' archive day folders past the cutoff are removed, the newer kept", async () => {
    const folder = gateway.folders.get('demo-employer')!;
    await mkdir(join(folder, 'archive', '2023-05-01'), { recursive: true });
    await writeFile(join(folder, 'archive', '2023-05-01', 'old.xml'), '<old/>');
    await mkdir(join(folder, 'archive', '2026-11-01'), { recursive: true });
    await pruneArchiveFolders([folder], '2024-11-22', pino({ level: 'silent' }));
    const left = await readdir(join(folder, 'archive'));
    assert.ok(!left.includes('2023-05-01'));
    assert.ok(left.includes('2026-11-01'));
  });
});
