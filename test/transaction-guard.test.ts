/**
 * Inside db.transaction(work) only the transaction's own handle may be used
 * (src/ledger/transaction-guard.ts). On both databases: a call on the outer handle from
 * the transaction's flow is refused at once with OUTER_HANDLE_IN_TRANSACTION (on the
 * embedded database it used to hang the process, on PostgreSQL to hold a second
 * connection), nothing of the transaction is committed, another flow's calls go on
 * meanwhile, and work the transaction left running may use the database once it ended.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Database } from '../src/ledger/database.ts';
import { openPgliteDatabase } from '../src/ledger/pglite.database.ts';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { isGatewayError } from '../src/core/gateway-error.ts';
import { createTestDatabase, type TestDatabase } from './support/harness.ts';

const engines: Array<[string, () => Promise<{ db: Database; done: () => Promise<void> }>]> = [
  ['embedded (PGlite)', async () => {
    const db = await openPgliteDatabase();
    return { db, done: () => db.close() };
  }],
  ['PostgreSQL', async () => {
    const database: TestDatabase = await createTestDatabase();
    const db = openPostgresDatabase({ url: database.url, max: 3 });
    return { db, done: async () => { await db.close(); await database.drop(); } };
  }],
];

describe.each(engines)('%s', (_name, open) => {
  let db: Database;
  let done: () => Promise<void>;
  beforeAll(async () => {
    ({ db, done } = await open());
    await db.exec('CREATE TABLE guarded (id int PRIMARY KEY)');
  });
  afterAll(async () => done());

  const refused = (error: unknown) => isGatewayError(error) && error.code === 'OUTER_HANDLE_IN_TRANSACTION';

  test('the outer handle inside a transaction is refused at once and the transaction rolls back', async () => {
    for (const misuse of [
      () => db.query('SELECT 1'),
      () => db.exec('SELECT 1'),
      () => db.transaction((inner) => inner.query('SELECT 1')),
      () => db.copyFrom('COPY guarded FROM STDIN', (async function* () { yield '9\n'; })()),
    ]) {
      const started = Date.now();
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO guarded VALUES (1)');
          await Promise.resolve(); // the outer call comes later in the same flow, after an await
          await misuse();
        }),
        refused,
      );
      assert.ok(Date.now() - started < 2000, 'refused at once, not after a wait');
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM guarded');
      assert.equal(rows[0]!.n, 0, 'nothing of the refused transaction is committed');
    }
  });

  test('a helper closed over the outer handle is caught the same way', async () => {
    const isKnown = async (id: number) => (await db.query('SELECT 1 FROM guarded WHERE id = $1', [id])).rows.length > 0;
    await assert.rejects(db.transaction(async (tx) => (await isKnown(1)) || tx.query('SELECT 1')), refused);
  });

  test('other flows use the outer handle while a transaction is open, and work left running may after it ends', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let ended!: () => void;
    const afterEnd = new Promise<void>((resolve) => (ended = resolve));
    let later: Promise<unknown> | undefined;
    const transaction = db.transaction(async (tx) => {
      await tx.query('INSERT INTO guarded VALUES (2)');
      later = afterEnd.then(() => db.query<{ n: number }>('SELECT count(*)::int AS n FROM guarded'));
      await held;
    });
    const outside = db.kind === 'postgres' ? await db.query<{ n: number }>('SELECT count(*)::int AS n FROM guarded') : undefined;
    if (outside) assert.equal(outside.rows[0]!.n, 0, 'another flow reads outside the open transaction');
    release();
    await transaction;
    ended();
    const { rows } = (await later) as { rows: Array<{ n: number }> };
    assert.equal(rows[0]!.n, 1, 'the work the transaction left running read after the commit');
  });
});
