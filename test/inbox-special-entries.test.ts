/**
 * A folder inbox takes regular files only. Whoever can write to an inbox (a
 * counterparty's SFTP account) could otherwise drop a symbolic link and have the gateway
 * ingest any file it can read, or a FIFO that blocks whoever opens it. Against a running
 * gateway with real folders, PostgreSQL and Redis: such entries go to rejected/
 * untouched, nothing is recorded for them, and the files after them are taken as usual.
 */
import { test, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropFile, startTestGateway, waitFor } from './support/harness.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

test('a symbolic link, a FIFO and a folder in the inbox are not taken; a document dropped after them is', async () => {
  const gateway = await startTestGateway();
  cleanups.push(() => gateway.destroy());
  const outside = await mkdtemp(join(tmpdir(), 'dg-outside-'));
  cleanups.push(() => rm(outside, { recursive: true, force: true }));
  // A valid document the gateway would apply, were it ever read through the link.
  const secret = join(outside, 'secret.xml');
  const secretBody = salaryAdjustment({ messageId: 'THROUGH-A-LINK' }, [{ pin: PERSONS.anna, date: '2026-12-01', salary: '499000.00' }]);
  await writeFile(secret, secretBody);
  const secretBefore = await stat(secret);

  const inbox = gateway.inbox('demo-employer');
  const rejected = join(gateway.folders.get('demo-employer')!, 'rejected');
  await symlink(secret, join(inbox, 'link.xml'));
  execFileSync('mkfifo', [join(inbox, 'pipe.xml')]);
  await mkdir(join(inbox, 'folder.xml'));
  await dropFile(inbox, 'after.xml', salaryAdjustment({ messageId: 'AFTER-THEM' }, [{ pin: PERSONS.bertil, date: '2026-12-01', salary: '421000.00' }]));

  const query = async <T>(sql: string, params: unknown[] = []) => (await gateway.deps.db.query<T>(sql, params)).rows;
  await waitFor(async () => {
    const rows = await query<{ status: string }>(`SELECT status FROM messages WHERE external_id = 'after.xml'`);
    return rows[0]?.status === 'applied';
  }, 'the document dropped after them to be applied');
  await waitFor(async () => (await readdir(inbox)).length === 0, 'the inbox to empty');

  const named = await query<{ external_id: string }>(`SELECT external_id FROM messages WHERE external_id = ANY($1) OR header_message_id = 'THROUGH-A-LINK'`, [['link.xml', 'pipe.xml', 'folder.xml']]);
  assert.deepEqual(named, [], 'nothing recorded for the link, the FIFO or the folder');

  expect((await readdir(rejected)).sort()).toEqual(['folder.xml', 'link.xml', 'pipe.xml']);
  assert.equal(await readlink(join(rejected, 'link.xml')), secret, 'the link moved as it is');
  assert.equal((await lstat(join(rejected, 'pipe.xml'))).isFIFO(), true);
  assert.equal((await lstat(join(rejected, 'folder.xml'))).isDirectory(), true);
  assert.equal(await readFile(secret, 'utf8'), secretBody, 'the target untouched');
  const secretAfter = await stat(secret);
  assert.equal(secretAfter.mtimeMs, secretBefore.mtimeMs);
  assert.equal(secretAfter.ino, secretBefore.ino);
});
