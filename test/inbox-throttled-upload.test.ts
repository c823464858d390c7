/**
 * A throttled upload into a local inbox, as a counterparty makes it: OpenSSH's `sftp -l
 * 256` (256 kbit/s) puts a 1 MB document straight under its final name, through a
 * private OpenSSH sshd (internal-sftp) on loopback whose served folder holds the
 * counterparty's folder, into a gateway with the default folder settings (stableMs 3 s).
 * That client writes bursts of about 255 KB with gaps of about 8 s, longer than the
 * stability window: the document, which does not end before its last burst, must wait,
 * and be recorded once, whole, and applied — not taken at the first gap and answered
 * XML_MALFORMED. Real sftp, sshd, folders, PostgreSQL and Redis.
 */
import { test, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestGateway, testSettings, waitFor } from './support/harness.ts';
import { startSshd } from './support/sshd.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const run = promisify(execFile);
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

test('a 1 MB document uploaded with sftp -l 256 is taken once, whole, after its last burst, and applied', async () => {
  const sshd = await startSshd();
  cleanups.push(() => sshd.destroy());
  const folder = join(sshd.root, 'demo-employer');
  const counterparties = (testSettings('unused').counterparties as { id: string }[]).map((c) => (c.id === 'demo-employer' ? { ...c, folder } : c));
  // The defaults: stableMs 3 s, incompleteGraceMs 2 minutes.
  const gateway = await startTestGateway({ settings: { counterparties, folders: {} } });
  cleanups.push(() => gateway.destroy());
  const query = async <T>(sql: string, params: unknown[] = []) => (await gateway.deps.db.query<T>(sql, params)).rows;

  // A plain SalaryAdjustment made 1 MB by a comment inside its root.
  const plain = salaryAdjustment({ messageId: 'THROTTLED-1' }, [{ pin: PERSONS.anna, date: '2026-12-01', salary: '531000.00' }]);
  const end = plain.lastIndexOf('</SalaryAdjustment>');
  const padding = `<!-- ${'padding '.repeat(Math.ceil((1024 * 1024 - plain.length) / 8))}-->\n`;
  const document = plain.slice(0, end) + padding + plain.slice(end);
  assert.ok(Buffer.byteLength(document) > 1024 * 1024);
  const local = await mkdtemp(join(tmpdir(), 'dg-sftp-client-'));
  cleanups.push(() => rm(local, { recursive: true, force: true }));
  await writeFile(join(local, 'throttled.xml'), document);
  await writeFile(join(local, 'batch'), `put ${join(local, 'throttled.xml')} ${join(folder, 'inbox', 'throttled.xml')}\n`);

  const startedAt = Date.now();
  const upload = run('sftp', [
    '-l', '256', '-b', join(local, 'batch'), '-i', sshd.clientKeyPath, '-P', String(sshd.port),
    '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR',
    `${sshd.username}@${sshd.host}`,
  ], { timeout: 120_000 });
  // While it runs: the file grows in the inbox, and nothing is recorded for it.
  let takenEarly = 0;
  let seenPartial = false;
  const watching = (async () => {
    for (let done = false; !done; ) {
      done = await Promise.race([upload.then(() => true, () => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 500))]);
      if (done) break;
      takenEarly += (await query(`SELECT 1 FROM messages WHERE external_id = 'throttled.xml'`)).length;
      seenPartial ||= (await readdir(join(folder, 'inbox'))).includes('throttled.xml');
    }
  })();
  await upload;
  await watching;
  const uploadMs = Date.now() - startedAt;
  assert.ok(uploadMs > 20_000, `the upload was throttled (${uploadMs} ms)`);
  assert.ok(seenPartial, 'the upload was seen in the inbox while it ran');
  assert.equal(takenEarly, 0, 'nothing was recorded while the upload ran');

  const [message] = await waitFor(async () => {
    const rows = await query<{ id: string; status: string; error_code: string | null; size_bytes: number }>(
      `SELECT id, status, error_code, size_bytes FROM messages WHERE external_id = 'throttled.xml'`);
    return rows[0] && rows[0].status !== 'received' && rows[0].status !== 'validated' && rows;
  }, 'the upload to be taken and answered', 30_000);
  assert.deepEqual({ ...message, size_bytes: Number(message!.size_bytes) }, { id: message!.id, status: 'applied', error_code: null, size_bytes: Buffer.byteLength(document) });
  assert.equal((await query(`SELECT 1 FROM messages WHERE external_id = 'throttled.xml'`)).length, 1, 'recorded once');
  const answers = await waitFor(async () => {
    const names = (await readdir(gateway.outbox('demo-employer'))).filter((name) => name.startsWith('throttled.'));
    return names.length > 0 && names;
  }, 'the answer in the outbox');
  expect(answers).toEqual([`throttled.${message!.id}.SalaryAdjustmentResponse.xml`]);
});
