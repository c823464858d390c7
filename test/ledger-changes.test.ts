/**
 * The console's message detail reads every ledger table with a `message_id` column for
 * the rows one message wrote (src/ledger/messages/ledger-changes.repository.ts): each of those
 * tables must find them by an index, or opening a message reads the table whole. A
 * table added later without one fails here. Real PostgreSQL, migrated as a gateway does.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { openDatabase } from '../src/app.ts';
import { parseConfig } from '../src/config/load-config.ts';
import type { Database } from '../src/ledger/database.ts';
import { ledgerTablesWithMessageId } from '../src/ledger/messages/ledger-changes.repository.ts';
import { migrate } from '../src/ledger/migrate.ts';
import { createTestDatabase, type TestDatabase } from './support/harness.ts';

describe('ledger rows by message', () => {
  let database: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openDatabase(parseConfig({ databaseUrl: database.url }), '/tmp');
    await migrate(db);
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  test('every ledger table the message detail reads has an index that starts with message_id', async () => {
    const tables = await ledgerTablesWithMessageId(db);
    assert.ok(tables.includes('salaries') && tables.includes('custody_positions'), `the plan and custody ledgers are read: ${tables.join(', ')}`);
    const { rows } = await db.query<{ table_name: string; method: string }>(
      `SELECT t.relname AS table_name, am.amname AS method
         FROM pg_index i
         JOIN pg_class t ON t.oid = i.indrelid
         JOIN pg_class ix ON ix.oid = i.indexrelid
         JOIN pg_am am ON am.oid = ix.relam
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
        WHERE a.attname = 'message_id' AND t.relnamespace = current_schema()::regnamespace`,
    );
    const indexed = new Map(rows.map((row) => [row.table_name, row.method]));
    assert.deepEqual(tables.filter((table) => !indexed.has(table)), [], 'tables read whole for each message opened');
    for (const table of ['custody_positions', 'custody_valuations', 'custody_transactions', 'custody_costs']) assert.equal(indexed.get(table), 'brin', table);
    assert.equal(indexed.get('salaries'), 'btree');
  });
});
