/**
 * What an interrupted delivery leaves in a folder outbox: a response written but not
 * recorded as delivered is not written again when it is in place with the same bytes
 * (the counterparty sees one write), and temporary files a kill left behind are removed
 * once old — only ours, at start and periodically. Real PostgreSQL, Redis and folders.
 */
import { describe, test, beforeAll, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { FolderOutbox, TEMPORARY_NAME } from '../src/channels/folder-outbox.channel.ts';
import { removeStaleTemporaries, startOutboxSweeper } from '../src/channels/folder-outbox.sweeper.ts';
import { deliverResponses } from '../src/pipeline/deliver.stage.ts';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { dropFile, startTestGateway, testSettings, waitFor, type TestGateway } from './support/harness.ts';
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

  /** The name the outbox gives a temporary file in its work folder, caught while it writes one. */
  async function temporaryNameOf(outbox: FolderOutbox, work: string, fileName: string): Promise<string> {
    await mkdir(work, { recursive: true });
    const seen: string[] = [];
    const watcher = watch(work, (_, name) => name && seen.push(name));
    try {
      await outbox.deliver({ messageId: 'M1', counterpartyId: 'cp', documentType: 'PlanResponse', fileName, body: '<PlanResponse/>', requestMetadata: {} });
      await waitFor(() => seen.length > 0, 'the temporary file seen');
    } finally {
      watcher.close();
    }
    const temporary = seen.find((name) => name !== fileName);
    assert.ok(temporary, `a temporary name among ${seen.join(', ')}`);
    return temporary;
  }

  test('only our own temporary files older than the safe age are removed, from the work folder and the outbox', async () => {
    const root = join(folder, 'cp');
    const dir = join(root, 'outbox');
    const workRoot = join(folder, 'outbox-work');
    const work = join(workRoot, 'cp');
    await mkdir(dir, { recursive: true });
    const outbox = new FolderOutbox([{ id: 'cp', folder: root }], { workRoot });
    const ours = await temporaryNameOf(outbox, work, 'req.01ABC.PlanResponse.xml');
    assert.match(ours, TEMPORARY_NAME);
    expect(await readdir(work)).toEqual([]); // renamed into the outbox

    const old = [ours, '.other.xml.0a1b2c3d4f.tmp', '.upload.xml.part', 'notes.tmp', '.draft.tmp', '.x.ZZZZZZZZ1.tmp'];
    for (const name of old) {
      await writeFile(join(dir, name), 'left over');
      await utimes(join(dir, name), HOUR_AGO(), HOUR_AGO());
    }
    await writeFile(join(work, ours), 'left over');
    await utimes(join(work, ours), HOUR_AGO(), HOUR_AGO());
    await writeFile(join(work, '.fresh.xml.0a1b2c3d6.tmp'), 'being written');
    await writeFile(join(dir, '.fresh.xml.0a1b2c3d5.tmp'), 'being written');
    await utimes(join(dir, 'req.01ABC.PlanResponse.xml'), HOUR_AGO(), HOUR_AGO());

    const removed = await removeStaleTemporaries([{ id: 'cp', folder: root }, { id: 'gone', folder: join(folder, 'gone') }], 15 * 60_000, workRoot);
    assert.deepEqual(removed.sort(), [join(dir, '.other.xml.0a1b2c3d4f.tmp'), join(dir, ours), join(work, ours)].sort());
    expect((await readdir(dir)).sort()).toEqual([
      '.draft.tmp', '.fresh.xml.0a1b2c3d5.tmp', '.upload.xml.part', '.x.ZZZZZZZZ1.tmp', 'notes.tmp', 'req.01ABC.PlanResponse.xml',
    ]);
    expect(await readdir(work)).toEqual(['.fresh.xml.0a1b2c3d6.tmp']);
  });

  test('the sweeper removes them at start and again on its next round', async () => {
    const root = join(folder, 'periodic');
    const workRoot = join(folder, 'periodic-work');
    const dir = join(workRoot, 'periodic');
    await mkdir(dir, { recursive: true });
    const leftover = (name: string) => writeFile(join(dir, name), 'x').then(() => utimes(join(dir, name), HOUR_AGO(), HOUR_AGO()));
    await leftover('.a.xml.0a1b2c3d1.tmp');
    const stop = startOutboxSweeper({ counterparties: [{ id: 'periodic', folder: root }], workRoot, olderThanMs: 60_000, everyMs: 100, log: silent });
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

describe('what a counterparty sees in its outbox', () => {
  test('only complete answers: every name that appears in the outbox while a gateway answers is a final one', async () => {
    const gateway = await startTestGateway();
    try {
      const outbox = gateway.outbox('demo-employer');
      const seen = new Set<string>();
      const watcher = watch(outbox, (_, name) => name && seen.add(name));
      try {
        const documents = 20;
        for (let index = 0; index < documents; index += 1) {
          const document = salaryAdjustment({ messageId: `SEEN-${index}` }, [{ pin: PERSONS.anna, date: '2026-12-01', salary: `${500_000 + index}.00` }]);
          await dropFile(gateway.inbox('demo-employer'), `seen-${index}.xml`, document);
        }
        await waitFor(async () => (await readdir(outbox)).filter((name) => name.startsWith('seen-')).length === documents, 'every document answered', 30_000);
        await waitFor(() => [...seen].filter((name) => name.startsWith('seen-')).length >= documents, 'every answer seen');
      } finally {
        watcher.close();
      }
      // The month's invoice specifications, which the worker writes at start into the same
      // outbox, may land while the watcher runs: final names too.
      const final = /^(seen-\d+\.[0-9A-Z]{26}\.SalaryAdjustmentResponse|invoice-specification-[A-Z0-9-]+-\d{4}-\d{2}\.InvoiceSpecification)\.xml$/;
      expect([...seen].filter((name) => !final.test(name))).toEqual([]);
      expect((await readdir(join(gateway.dataDir, 'outbox-work', 'demo-employer')))).toEqual([]);
    } finally {
      await gateway.destroy();
    }
  });

  test('a delivery killed between writing and renaming leaves its temporary file in the work folder, never in the outbox', async () => {
    const root = await mkdtemp(join(tmpdir(), 'dg-outbox-kill-'));
    try {
      const folder = join(root, 'counterparties', 'cp');
      const workRoot = join(root, 'outbox-work');
      const outboxDir = join(folder, 'outbox');
      const body = `<Answer>${'x'.repeat(8 * 1024 * 1024)}</Answer>`;
      // A process delivering large answers one after the other, killed at some moment of one.
      const script = `
        import { FolderOutbox } from ${JSON.stringify(join(PROJECT_ROOT, 'src', 'channels', 'folder-outbox.channel.ts'))};
        const outbox = new FolderOutbox([{ id: 'cp', folder: ${JSON.stringify(folder)} }], { workRoot: ${JSON.stringify(workRoot)} });
        const body = '<Answer>' + 'x'.repeat(8 * 1024 * 1024) + '</Answer>';
        process.stdout.write('delivering\\n');
        for (let index = 0; ; index += 1) {
          await outbox.deliver({ messageId: 'M' + index, counterpartyId: 'cp', documentType: 'Answer', fileName: 'answer-' + index + '.xml', body, requestMetadata: {} });
        }`;
      let cutShort: string[] = [];
      for (let attempt = 0; attempt < 10 && cutShort.length === 0; attempt += 1) {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
        await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
        await waitFor(async () => (await readdir(outboxDir).catch((): string[] => [])).length > attempt, 'an answer delivered');
        await sleep(50 + 37 * attempt);
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
        cutShort = await readdir(join(workRoot, 'cp')).catch((): string[] => []);
      }
      assert.ok(cutShort.length > 0, 'a kill cut a delivery short');
      assert.ok(cutShort.every((name) => TEMPORARY_NAME.test(name)), cutShort.join(', '));
      const answers = await readdir(outboxDir);
      expect(answers.filter((name) => !/^answer-\d+\.xml$/.test(name))).toEqual([]);
      for (const name of answers) assert.equal((await stat(join(outboxDir, name))).size, Buffer.byteLength(body), `${name} is whole`);

      // The sweeper removes what the kill left, once old, from the work folder.
      for (const name of cutShort) await utimes(join(workRoot, 'cp', name), HOUR_AGO(), HOUR_AGO());
      const removed = await removeStaleTemporaries([{ id: 'cp', folder }], 15 * 60_000, workRoot);
      expect(removed.sort()).toEqual(cutShort.map((name) => join(workRoot, 'cp', name)).sort());
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
