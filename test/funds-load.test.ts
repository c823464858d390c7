/**
 * Loading funds into the catalogue checks every ISIN first: the demo funds load, and a
 * list with a mistyped ISIN is refused whole with ISIN_INVALID naming it. Real PostgreSQL.
 */
import { afterAll, beforeAll, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { migrate } from '../src/ledger/migrate.ts';
import { seedDemoData } from '../src/demo/demo-data.ts';
import { loadFunds } from '../src/ledger/custody/funds.repository.ts';
import type { Database } from '../src/ledger/database.ts';
import { createTestDatabase, type TestDatabase } from './support/harness.ts';

let database: TestDatabase;
let db: Database;

beforeAll(async () => {
  database = await createTestDatabase();
  db = await openPostgresDatabase({ url: database.url });
  await migrate(db);
  await seedDemoData(db);
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

test('the demo funds are loaded with their products', async () => {
  const { rows } = await db.query<{ isin: string; products: string }>(
    `SELECT f.isin, string_agg(pf.product_code, ',' ORDER BY pf.product_code) AS products
       FROM funds f JOIN product_funds pf ON pf.isin = f.isin GROUP BY f.isin ORDER BY f.isin`,
  );
  assert.deepEqual(rows.find((row) => row.isin === 'SE000DEPA044')?.products, 'KF-DEPA,PPF-DEPA,TJP-DEPA,TJP-DEPA-ESG');
  assert.equal(rows.length, 6);
});

test('a list with a wrong check digit is refused whole, naming each bad ISIN', async () => {
  const funds = [
    { isin: 'SE0000108656', name: 'Good Fund', productCodes: ['KF-DEPA'] },
    { isin: 'SE0000108657', name: 'Mistyped Fund', productCodes: ['KF-DEPA'] },
  ];
  await assert.rejects(db.transaction((tx) => loadFunds(tx, funds)), (error: { code?: string; message: string }) => {
    assert.equal(error.code, 'ISIN_INVALID');
    assert.match(error.message, /SE0000108657 \(Mistyped Fund\)/);
    assert.doesNotMatch(error.message, /SE0000108656/);
    return true;
  });
  const { rows } = await db.query(`SELECT 1 FROM funds WHERE isin IN ('SE0000108656', 'SE0000108657')`);
  assert.equal(rows.length, 0);
  await db.transaction((tx) => loadFunds(tx, [funds[0]!]));
  const loaded = await db.query(`SELECT 1 FROM product_funds WHERE isin = 'SE0000108656' AND product_code = 'KF-DEPA'`);
  assert.equal(loaded.rows.length, 1);
});
