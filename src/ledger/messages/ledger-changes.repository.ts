import type { Sql } from '../database.ts';

/**
 * What a received document changed in the ledger, where the ledger records it: every
 * ledger table with a `message_id` column (the plan history, the custody ledger, the
 * report arrivals …) holds the rows that message wrote. The tables are found in the
 * catalogue, so a table added later is listed without a change here; the message
 * store's own tables (events, response, deliveries, keys, transport records) are left
 * out — the message view shows them already. One statement reads every table, at most
 * `cap` rows of each, with each table's full count.
 *
 * Rows written by the gateway itself (runs, notices) carry no message id and are not
 * listed. Every such table has an index on message_id (migration 0030; a test keeps it so).
 */
const MESSAGE_STORE_TABLES: ReadonlySet<string> = new Set([
  'messages', 'message_events', 'responses', 'deliveries', 'document_keys', 'inbox_files', 'remote_files', 'ssek_transactions', 'staff_audit',
]);

export interface LedgerTableChanges {
  readonly table: string;
  /** Every row of the table with the message's id. */
  readonly total: number;
  /** At most `cap` of them, without the message_id column. */
  readonly rows: readonly Record<string, unknown>[];
}

/** The ledger tables holding rows of the message, by table name; tables without any are left out. */
export async function listLedgerChanges(sql: Sql, messageId: string, cap: number): Promise<LedgerTableChanges[]> {
  const tables = await ledgerTablesWithMessageId(sql);
  if (tables.length === 0) return [];
  const selects = tables.map((table, index) =>
    `(SELECT ${index} AS t, to_jsonb(x) - 'message_id' AS row, count(*) OVER () AS total FROM ${quoteIdentifier(table)} x WHERE x.message_id::text = $1 LIMIT $2)`);
  const { rows } = await sql.query<{ t: number; row: Record<string, unknown>; total: string | number }>(selects.join('\nUNION ALL\n'), [messageId, cap]);
  const byTable = new Map<number, { total: number; rows: Record<string, unknown>[] }>();
  for (const row of rows) {
    const entry = byTable.get(row.t) ?? { total: Number(row.total), rows: [] };
    entry.rows.push(row.row);
    byTable.set(row.t, entry);
  }
  return [...byTable.entries()].sort(([a], [b]) => a - b).map(([index, entry]) => ({ table: tables[index]!, ...entry }));
}

/** The tables listLedgerChanges reads: every base table with a `message_id` column but the message store's own. */
export async function ledgerTablesWithMessageId(sql: Sql): Promise<string[]> {
  const { rows } = await sql.query<{ table_name: string }>(
    `SELECT c.table_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.column_name = 'message_id' AND c.table_schema = current_schema() ORDER BY c.table_name`,
  );
  return rows.map((row) => row.table_name).filter((name) => !MESSAGE_STORE_TABLES.has(name));
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
