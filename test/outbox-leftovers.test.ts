/**
 * What an interrupted delivery leaves in a folder outbox: a response written but not
 * recorded as delivered is not written again when it is in place with the same bytes
 * (the counterparty sees one write), and temporary files a kill left behind are removed
 * once old — only ours, at start and periodically. Real PostgreSQL, Redis and folders.
 */
import { describe, test, beforeAll, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { watch } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { FolderOutbox, TEMPORARY_NAME } from '../src/channels/folder-outbox.channel.ts';
import { removeStaleTemporaries, startOutboxSweeper } from '../src/channels/folder-outbox.sweeper.ts';
import { deliverResponses } from '../src/pipeline/deliver.stage.ts';
import { startTestGateway, testSettings, waitFor, type TestGateway } from './support/harness.ts';
import { PERSONS, salaryAdjustment } from './support/documents.ts';

const silent = pino({ level: 'silent' });
const HOUR_AGO = () => new Date(Date.now() - 3_600_000);

describe('a response already in the outbox', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ roles: [], inline: true });
  });
  afterAll(() => gateway.destroy());

  test('with the same bytes is left untouched and recorded delivered; with other bytes it is replaced', async () => {
    const receipt = await gateway.intake.receive({
      channel: 'folder', counterpartyId: 'demo-employer', externalId: 'leftover.xml', receivedAt: new Date(),
      content: { bytes: Buffer.from(salaryAdjustment({ messageId: 'leftover-1', agreementNumber: 'AGR-1001' }, [{ pin: PERSONS.anna, date: '2026-11-04', salary: '540000.00' }])) },
      metadata: { fileName: 'leftover.xml' },
    });
    const id = receipt.messageId;
    const { db } = gateway.deps;
    const response = async () => (await db.query<{ file_name: string; body: string; delivered: boolean }>(
      'SELECT file_name, body, delivered_at IS NOT NULL AS delivered FROM responses WHERE message_id = $1', [id],
    )).rows[0];
    const first = await waitFor(async () => (await response())?.delivered && response(), 'the first delivery');
    const path = join(gateway.outbox('demo-employer'), first.file_name);
    const attempts = async () => Number((await db.query<{ n: string }>("SELECT count(*)::text AS n FROM deliveries WHERE message_id = $1 AND outcome = 'delivered'", [id])).rows[0]?.n);
    const attemptsBefore = await attempts();

    // The process stopped after the rename, before recording it: the delivery runs again.
    await db.query('UPDATE responses SET delivered_at = NULL WHERE message_id = $1', [id]);
    await utimes(path, HOUR_AGO(), HOUR_AGO());
    const before = await stat(path);
    assert.deepEqual(await deliverResponses(gateway.deps, [id]), new Map());
    const after = await stat(path);
    assert.deepEqual([after.ino, after.mtimeMs], [before.ino, before.mtimeMs], 'the file was not written again');
    assert.equal((await response())?.delivered, true);
    assert.equal(await attempts(), attemptsBefore + 1, 'the delivery is recorded');
    expect((await readdir(gateway.outbox('demo-employer'))).filter((name) => name.startsWith('.'))).toEqual([]); // no temporary file

    // Something else stands under the name (a half-copied file put back by hand): replaced by the response.
    await db.query('UPDATE responses SET delivered_at = NULL WHERE message_id = $1', [id]);
    await writeFile(path, first.body.slice(0, -10) + 'XXXXXXXXXX');
    await utimes(path, HOUR_AGO(), HOUR_AGO());
    assert.deepEqual(await deliverResponses(gateway.deps, [id]), new Map());
    assert.equal(await readFile(path, 'utf8'), first.body);
    assert.ok((await stat(path)).mtimeMs > Date.now() - 60_000, 'written now');
  });
});

describe('temporary files left in outboxes', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'dg-outbox-leftovers-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  /** The name the outbox gives a temporary file, caught while it writes one. */
  async function temporaryNameOf(outbox: FolderOutbox, dir: string, fileName: string): Promise<string> {
    const seen: string[] = [];
    const watcher = watch(dir, (_, name) => name && seen.push(name));
    try {
      await outbox.deliver({ messageId: 'M1', counterpartyId: 'cp', documentType: 'PlanResponse', fileName, body: '<PlanResponse/>', requestMetadata: {} });
      await waitFor(() => seen.includes(fileName), 'the rename seen');
    } finally {
      watcher.close();
    }
    const temporary = seen.find((name) => name !== fileName);
    assert.ok(temporary, `a temporary name among ${seen.join(', ')}`);
    return temporary;
  }

  test('only our own temporary files older than the safe age are removed', async () => {
    const root = join(folder, 'cp');
    const dir = join(root, 'outbox');
    await mkdir(dir, { recursive: true });
    const outbox = new FolderOutbox([{ id: 'cp', folder: root }]);
    const ours = await temporaryNameOf(outbox, dir, 'req.01ABC.PlanResponse.xml');
    assert.match(ours, TEMPORARY_NAME);

    const old = [ours, '.other.xml.0a1b2c3d4f.tmp', '.upload.xml.part', 'notes.tmp', '.draft.tmp', '.x.ZZZZZZZZ1.tmp'];
    for (const name of old) {
      await writeFile(join(dir, name), 'left over');
      await utimes(join(dir, name), HOUR_AGO(), HOUR_AGO());
    }
    await writeFile(join(dir, '.fresh.xml.0a1b2c3d5.tmp'), 'being written');
    await utimes(join(dir, 'req.01ABC.PlanResponse.xml'), HOUR_AGO(), HOUR_AGO());

    const removed = await removeStaleTemporaries([{ id: 'cp', folder: root }, { id: 'gone', folder: join(folder, 'gone') }], 15 * 60_000);
    assert.deepEqual(removed.sort(), [join(dir, '.other.xml.0a1b2c3d4f.tmp'), join(dir, ours)].sort());
    expect((await readdir(dir)).sort()).toEqual([
      '.draft.tmp', '.fresh.xml.0a1b2c3d5.tmp', '.upload.xml.part', '.x.ZZZZZZZZ1.tmp', 'notes.tmp', 'req.01ABC.PlanResponse.xml',
    ]);
  });

  test('the sweeper removes them at start and again on its next round', async () => {
    const root = join(folder, 'periodic');
    const dir = join(root, 'outbox');
    await mkdir(dir, { recursive: true });
    const leftover = (name: string) => writeFile(join(dir, name), 'x').then(() => utimes(join(dir, name), HOUR_AGO(), HOUR_AGO()));
    await leftover('.a.xml.0a1b2c3d1.tmp');
    const stop = startOutboxSweeper({ counterparties: [{ id: 'periodic', folder: root }], olderThanMs: 60_000, everyMs: 100, log: silent });
    try {
      await waitFor(async () => (await readdir(dir)).length === 0, 'the sweep at start');
      await leftover('.b.xml.0a1b2c3d2.tmp');
      await waitFor(async () => (await readdir(dir)).length === 0, 'the next sweep');
    } finally {
      await stop();
    }
  });

  test('a worker removes the leftovers in the outboxes when it starts', async () => {
    const root = join(folder, 'employer');
    const dir = join(root, 'outbox');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, '.answer.xml.0a1b2c3d9.tmp'), 'x');
    await utimes(join(dir, '.answer.xml.0a1b2c3d9.tmp'), HOUR_AGO(), HOUR_AGO());
    await writeFile(join(dir, 'answer.xml'), 'delivered earlier');
    const counterparties = (testSettings('unused').counterparties as { id: string }[]).map((c) => (c.id === 'demo-employer' ? { ...c, folder: root } : c));
    const gateway = await startTestGateway({ roles: ['worker'], settings: { counterparties } });
    try {
      await waitFor(async () => !(await readdir(dir)).includes('.answer.xml.0a1b2c3d9.tmp'), 'the leftover removed');
      expect(await readdir(dir)).toEqual(['answer.xml']);
    } finally {
      await gateway.destroy();
    }
  });
});
