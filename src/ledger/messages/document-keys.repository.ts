import { extractDocumentKeys, type DocumentKeyKind } from '../../core/document-keys.ts';
import type { Sql } from '../database.ts';

/**
 * The search index of what documents are about (migration 0026): written in the
 * transaction that applies the documents, read by the console's message browser.
 */

/**
 * Records the keys of applied documents (their typed documents), in one statement. Each
 * message's `seq` is looked up once, not once per key; the join is also what keeps a
 * key from naming a message that does not exist (the table has no foreign key: migration
 * 0050). A plain insert: the caller records a document's keys in the transaction that
 * moved it to its final status, which happens once (apply-candidates.ts checks every
 * move), and a document's keys are distinct (extractDocumentKeys) — a second recording
 * would be a fault, and fails the transaction rather than pass unseen.
 */
export async function recordDocumentKeys(sql: Sql, documents: readonly { readonly messageId: string; readonly document: unknown }[]): Promise<void> {
  const rows = documents.flatMap(({ messageId, document }) => extractDocumentKeys(document).map((key) => ({ k: key.kind, v: key.value, m: messageId })));
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO document_keys (kind, value, message_id, seq)
     SELECT i.k, i.v, i.m, m.seq FROM json_to_recordset($1::json) AS i(k text, v text, m text)
       JOIN (SELECT id, seq FROM messages WHERE id = ANY($2::text[])) m ON m.id = i.m`,
    [JSON.stringify(rows), [...new Set(rows.map((row) => row.m))]],
  );
}

/** The keys recorded for one message, by kind. */
export async function listDocumentKeys(sql: Sql, messageId: string): Promise<{ kind: DocumentKeyKind; value: string }[]> {
  const { rows } = await sql.query<{ kind: DocumentKeyKind; value: string }>(
    'SELECT kind, value FROM document_keys WHERE message_id = $1 ORDER BY kind, value',
    [messageId],
  );
  return rows;
}
