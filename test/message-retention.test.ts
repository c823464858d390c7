/**
 * Retention of received documents' bytes, on the embedded database and on PostgreSQL:
 * finished messages received more than `keepBytesDays` ago lose their bytes to a
 * compressed archive file of the document store, at most `maxPerRun` a run, the next
 * run going on where the last stopped; what is read back from the archive is the
 * document as received (its sha256); dead messages and newer ones keep their bytes;
 * the run is recorded; the counterparties' archive day folders past the cutoff go.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { markDead } from '../src/ledger/messages/messages.repository.ts';
import { archiveMessageBytes, pruneArchiveFolders, MESSAGE_RETENTION_JOB } from '../src/calendar/message-retention.job.ts';
import { FIXED_NOW, startTestGateway, waitFor, type TestGateway, type TestGatewayOptions } from './support/harness.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];
const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };

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
    const deps = { store, keepBytesDays: 730, maxPerRun: due - 1 };
    const first = await db.transaction((tx) => archiveMessageBytes(tx, deps, 'test-1', FIXED_NOW));
    assert.equal(first.archived, due - 1, 'bounded by maxPerRun');
    const second = await db.transaction((tx) => archiveMessageBytes(tx, deps, 'test-2', FIXED_NOW));
    assert.equal(second.archived, 1, 'the next run goes on where the first stopped');
    assert.ok(second.lastSeq > first.lastSeq);
    const third = await db.transaction((tx) => archiveMessageBytes(tx, deps, 'test-3', FIXED_NOW));
    assert.equal(third.archived, 0, 'nothing more is old enough');

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

    // Staff still read an archived message, and its response stays.
    const message = await gateway.http!.inject({ method: 'GET', url: `/api/messages/${ids[0]}`, headers: STAFF });
    assert.equal(message.statusCode, 200);
    const response = await gateway.http!.inject({ method: 'GET', url: `/api/messages/${ids[0]}/response`, headers: STAFF });
    assert.match(response.body, /<Status>Accepted<\/Status>/);
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
