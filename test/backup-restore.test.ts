/**
 * A backup taken mid-run restores into a gateway that answers each document once and
 * applies none twice, as docs/operations.md describes: `pg_dump --format=custom` of the
 * ledger while a burst is being applied, the gateway going on to finish the burst, then
 * `pg_restore` into a new database and a gateway started on it with Redis emptied (its
 * queues are not part of the backup). What the backup holds unfinished the restored
 * gateway finishes from the message store; the senders offer their documents again,
 * and each is answered once — the documents the backup did not know are applied and
 * answered, the ones it knew are answered as duplicates of their originals. Real
 * PostgreSQL and its client programs, real Redis.
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { createTestDatabase, startTestGateway, waitFor } from './support/harness.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';
import type { IntakeReceipt } from '../src/channels/envelope.ts';

const run = promisify(execFile);
const DOCUMENTS = 200;
const people = [PERSONS.anna, PERSONS.bertil, PERSONS.cecilia];
const documentOf = (index: number) => ({
  name: `backup-${index}.xml`,
  bytes: Buffer.from(salaryAdjustment({ messageId: `BACKUP-${index}` }, [{ pin: people[index % people.length]!, date: '2026-12-04', salary: `${500_000 + index}.00` }])),
});

test(`a backup taken mid-run restores into a gateway that answers each of ${DOCUMENTS} re-offered documents once and applies none twice`, async () => {
  const folder = await mkdtemp(join(tmpdir(), 'dg-backup-'));
  const source = await createTestDatabase();
  const restored = await createTestDatabase();
  const sourceDb = openPostgresDatabase({ url: source.url, max: 2 });
  const restoredDb = openPostgresDatabase({ url: restored.url, max: 2 });
  const count = async (db: typeof sourceDb, sql: string, params: unknown[] = []) => Number((await db.query<{ n: string }>(sql, params)).rows[0]!.n);
  const salaries = `SELECT count(*)::text AS n FROM salaries WHERE effective_date = '2026-12-04'`;
  try {
    // The running gateway, slowed to about 100 documents/s so the backup falls mid-run.
    const first = await startTestGateway({ roles: ['worker'], database: source, keepDatabase: true, settings: { workers: { applyConcurrency: 2, backoffMs: 50, attempts: 5, reconcileEveryMs: 500, reconcileAfterMs: 2000 } } });
    await sourceDb.query(`CREATE FUNCTION backup_test_pace() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.01); RETURN NEW; END $$`);
    await sourceDb.query('CREATE TRIGGER backup_test_pace BEFORE INSERT ON salaries FOR EACH ROW EXECUTE FUNCTION backup_test_pace()');
    const offer = (gateway: typeof first, index: number): Promise<IntakeReceipt> => {
      const { name, bytes } = documentOf(index);
      return gateway.intake.receive({ channel: 'folder', counterpartyId: 'demo-employer', externalId: name, receivedAt: new Date(), content: { bytes }, metadata: { fileName: name } });
    };
    // Half the burst is received before the backup, the rest while it is taken and after.
    for (let index = 0; index < DOCUMENTS / 2; index += 1) await offer(first, index);
    await waitFor(async () => (await count(sourceDb, salaries)) >= 20, 'the burst under way');
    const dump = join(folder, 'ledger.dump');
    const later = (async () => {
      for (let index = DOCUMENTS / 2; index < DOCUMENTS; index += 1) await offer(first, index);
    })();
    await run('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, source.url]);
    await later;
    await waitFor(async () => (await count(sourceDb, `SELECT count(*)::text AS n FROM responses WHERE delivered_at IS NOT NULL`)) >= DOCUMENTS, 'the burst answered', 120_000);
    await first.destroy();

    // The restore: a new database, the pacing trigger dropped with its function.
    await run('pg_restore', ['--no-owner', `--dbname=${restored.url}`, dump]);
    await restoredDb.query('DROP TRIGGER backup_test_pace ON salaries');
    const inBackup = await count(restoredDb, `SELECT count(*)::text AS n FROM messages WHERE external_id LIKE 'backup-%'`);
    const appliedInBackup = await count(restoredDb, salaries);
    assert.ok(appliedInBackup > 0 && appliedInBackup < inBackup, `taken mid-run (${appliedInBackup} applied of ${inBackup} received)`);
    assert.ok(inBackup < DOCUMENTS, `documents came after the backup (${inBackup} in it)`);

    const second = await startTestGateway({ roles: ['worker'], database: restored, keepDatabase: true });
    try {
      // What the backup held unfinished is finished from the message store (new, empty queues).
      await waitFor(async () => (await count(restoredDb, salaries)) === inBackup, 'the backup\'s received documents applied', 60_000);
      // Every sender offers its document again.
      const receipts = await Promise.all(Array.from({ length: DOCUMENTS }, (_, index) => offer(second, index)));
      const statuses = receipts.reduce<Record<string, number>>((all, receipt) => ({ ...all, [receipt.status]: (all[receipt.status] ?? 0) + 1 }), {});
      assert.deepEqual(statuses, { duplicate: inBackup, received: DOCUMENTS - inBackup }, 'the backup\'s documents are duplicates; the later ones are new');
      await waitFor(
        async () => (await count(restoredDb, `SELECT count(*)::text AS n FROM responses r WHERE r.message_id = ANY($1::text[]) AND r.delivered_at IS NOT NULL`, [receipts.map((r) => r.messageId)])) === DOCUMENTS,
        'an answer to every offer', 60_000,
      );
      process.stdout.write(`# backup mid-run: ${inBackup} documents received in it, ${appliedInBackup} applied; after the restore ${DOCUMENTS - inBackup} offered again were new, ${inBackup} duplicates\n`);

      const ledger = (await restoredDb.query<{ n: string; messages: string }>(`SELECT count(*)::text AS n, count(DISTINCT message_id)::text AS messages FROM salaries WHERE effective_date = '2026-12-04'`)).rows[0]!;
      assert.deepEqual(ledger, { n: String(DOCUMENTS), messages: String(DOCUMENTS) }, 'each document applied once');
      const answers = await restoredDb.query<{ message_id: string; n: string }>(
        `SELECT message_id, count(*)::text AS n FROM deliveries WHERE outcome = 'delivered' AND message_id = ANY($1::text[]) GROUP BY message_id`, [receipts.map((r) => r.messageId)],
      );
      assert.equal(answers.rows.length, DOCUMENTS, 'every offer answered');
      assert.deepEqual(answers.rows.filter((row) => row.n !== '1'), [], 'each offer answered once');
      const duplicates = await restoredDb.query<{ error_code: string }>(
        `SELECT m.error_code FROM messages m WHERE m.id = ANY($1::text[]) AND m.status = 'duplicate'`,
        [receipts.filter((r) => r.status === 'duplicate').map((r) => r.messageId)],
      );
      assert.deepEqual([...new Set(duplicates.rows.map((row) => row.error_code))], ['DUPLICATE_DOCUMENT']);
    } finally {
      await second.destroy();
    }
  } finally {
    await sourceDb.close();
    await restoredDb.close();
    await source.drop();
    await restored.drop();
    await rm(folder, { recursive: true, force: true });
  }
}, 300_000);
