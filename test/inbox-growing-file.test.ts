/**
 * An upload taken half written — its sender paused longer than folders.incompleteGraceMs
 * and then went on writing — against a running gateway with real folders, PostgreSQL and Redis:
 * the part read is answered XML_MALFORMED, the growth of the archived file is noted on
 * the message (`grew_after_taken`, both sizes), and the whole file sent again under the
 * same name and MessageId is applied.
 */
import { test, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { appendFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dropFile, startTestGateway, waitFor } from './support/harness.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

test('a file that grew after it was taken is noted on its message, and the whole file sent again is applied', async () => {
  // Its sender stalls past the grace for a document that does not end yet: a short one here.
  const gateway = await startTestGateway({ settings: { folders: { stableMs: 100, pollIntervalMs: 25, incompleteGraceMs: 300 } } });
  cleanups.push(() => gateway.destroy());
  const document = salaryAdjustment({ messageId: 'SLOW-LINK-1' }, [{ pin: PERSONS.anna, date: '2026-12-01', salary: '512000.00' }]);
  const cut = Math.floor(document.length / 2);
  const inbox = gateway.inbox('demo-employer');
  const query = async <T>(sql: string, params: unknown[] = []) => (await gateway.deps.db.query<T>(sql, params)).rows;

  await writeFile(join(inbox, 'salaries.xml'), document.slice(0, cut));
  const [first] = await waitFor(async () => {
    const rows = await query<{ id: string; status: string; error_code: string | null }>(`SELECT id, status, error_code FROM messages WHERE external_id = 'salaries.xml'`);
    return rows[0]?.status === 'rejected' && rows;
  }, 'the half-written file to be taken and answered');
  assert.equal(first!.error_code, 'XML_MALFORMED');

  // The sender still has the file open: the rest of its upload lands in the archived file.
  const archiveDay = join(gateway.folders.get('demo-employer')!, 'archive');
  const [day] = await readdir(archiveDay);
  await appendFile(join(archiveDay, day!, `${first!.id}-salaries.xml`), document.slice(cut));

  const [event] = await waitFor(async () => {
    const rows = await query<{ detail: { bytesRead: number; sizeNow: number } }>(`SELECT detail FROM message_events WHERE message_id = $1 AND reason = 'grew_after_taken'`, [first!.id]);
    return rows.length > 0 && rows;
  }, 'the growth to be noted on the message', 20_000);
  assert.deepEqual(event!.detail, { bytesRead: Buffer.byteLength(document.slice(0, cut)), sizeNow: Buffer.byteLength(document) });

  await dropFile(inbox, 'salaries.xml', document);
  await waitFor(async () => {
    const rows = await query<{ status: string }>(`SELECT status FROM messages WHERE external_id = 'salaries.xml' ORDER BY seq`);
    return rows.length === 2 && rows[1]!.status === 'applied';
  }, 'the whole file, sent again, to be applied');
  const events = await query(`SELECT 1 FROM message_events WHERE reason = 'grew_after_taken'`);
  assert.equal(events.length, 1, 'noted once');
});
