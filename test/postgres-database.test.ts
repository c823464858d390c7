/**
 * The PostgreSQL adapter (src/ledger/postgres.database.ts) writes array parameters as
 * array literals itself and runs statements with parameters as named prepared
 * statements. Against the real server: arrays of awkward strings and of numbers come
 * back exactly as sent, and a statement run again on the same connection gives the
 * same answers.
 */
import { test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { arrayLiteral, openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import type { Database } from '../src/ledger/database.ts';
import { createTestDatabase, type TestDatabase } from './support/harness.ts';

const require = createRequire(import.meta.url);
const driver = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };

let database: TestDatabase;
let db: Database;
beforeAll(async () => {
  database = await createTestDatabase();
  db = openPostgresDatabase({ url: database.url, max: 2 });
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

const AWKWARD = ['plain', '', 'with "quotes"', 'back\\slash', 'comma, and {braces}', ' spaced ', 'NULL', 'åäö 😀', 'tab\tand\nnewline', '\\"'];

test('an array literal reads as the driver\'s own for strings, plain for numbers, and leaves the rest to the driver', () => {
  for (const values of [AWKWARD, ['a', 'b'], []]) assert.equal(arrayLiteral(values), driver.prepareValue(values), JSON.stringify(values));
  assert.equal(arrayLiteral([1, 2.5, -3]), '{1,2.5,-3}');
  assert.equal(arrayLiteral([10n, 20n]), '{10,20}');
  for (const values of [['a', null], [['nested']], [Buffer.from('x')], [1, 'mixed'], [Number.NaN], [new Date(0)]]) assert.equal(arrayLiteral(values), undefined);
});

test('arrays sent as literals come back as sent', async () => {
  const { rows } = await db.query<{ texts: string[]; numbers: string[]; ids: string[] }>(
    'SELECT $1::text[] AS texts, $2::numeric[]::text[] AS numbers, $3::bigint[]::text[] AS ids',
    [AWKWARD, [1, 2.5, -3], [10n, 9007199254740993n]],
  );
  assert.deepEqual(rows[0], { texts: AWKWARD, numbers: ['1', '2.5', '-3'], ids: ['10', '9007199254740993'] });
});

test('a named statement run again, in and out of transactions, answers each time', async () => {
  for (let round = 0; round < 8; round += 1) {
    const { rows } = await db.query<{ n: number }>('SELECT $1::int + 1 AS n', [round]);
    assert.equal(rows[0]?.n, round + 1);
    const inside = await db.transaction((tx) => tx.query<{ n: number }>('SELECT $1::int + 1 AS n', [round * 10]));
    assert.equal(inside.rows[0]?.n, round * 10 + 1);
  }
  // On the connection that ran it, the statement is prepared under its name.
  const prepared = await db.transaction(async (tx) => {
    await tx.query('SELECT $1::int + 1 AS n', [0]);
    return tx.query<{ statement: string }>(`SELECT statement FROM pg_prepared_statements WHERE name LIKE 'dg\\_%'`);
  });
  assert.ok(prepared.rows.some((row) => row.statement === 'SELECT $1::int + 1 AS n'), JSON.stringify(prepared.rows));
});
