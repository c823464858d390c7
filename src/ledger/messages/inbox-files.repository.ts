import type { Sql } from '../database.ts';
import type { MessageStatus } from './messages.repository.ts';

/** A recorded inbox file not yet recorded as moved out of its inbox. */
export interface UnmovedInboxFile {
  readonly messageId: string;
  readonly counterpartyId: string;
  readonly fileName: string;
}

/**
 * Recorded files still in their sender's inbox (table `inbox_files`, migration 0011).
 * Intake writes a row with the message of an inbox file (messages.repository, in the
 * same statement); the channel deletes it once it has moved the file out, and deletes
 * those whose file it finds gone from the inbox (a stop lost the move's record). Plain
 * functions taking the database first.
 */

export interface RecordedInboxFile {
  readonly messageId: string;
  readonly status: MessageStatus;
  readonly errorCode: string | null;
}

/**
 * The message this very file was recorded as, when its move out of the inbox was
 * never recorded: same counterparty and name, same size and content.
 */
export async function findRecordedInboxFile(
  sql: Sql,
  file: { counterpartyId: string; fileName: string; sha256: string; sizeBytes: number },
): Promise<RecordedInboxFile | undefined> {
  const { rows } = await sql.query<{ id: string; status: MessageStatus; error_code: string | null }>(
    `SELECT m.id, m.status, m.error_code FROM inbox_files f JOIN messages m ON m.id = f.message_id
      WHERE f.counterparty_id = $1 AND f.file_name = $2 AND m.sha256 = $3 AND m.size_bytes = $4
      ORDER BY m.seq LIMIT 1`,
    [file.counterpartyId, file.fileName, file.sha256, file.sizeBytes],
  );
  const row = rows[0];
  return row ? { messageId: row.id, status: row.status, errorCode: row.error_code } : undefined;
}

/**
 * `findRecordedInboxFile` for many files in one statement: the recorded file of each,
 * by its position in `files` (a watcher that takes an inbox over offers again, in one
 * turn, every file its former holder recorded and did not move).
 */
export async function findRecordedInboxFiles(
  sql: Sql,
  files: readonly { counterpartyId: string; fileName: string; sha256: string; sizeBytes: number }[],
): Promise<Map<number, RecordedInboxFile>> {
  if (files.length === 0) return new Map();
  const { rows } = await sql.query<{ ord: string; id: string; status: MessageStatus; error_code: string | null }>(
    `SELECT DISTINCT ON (w.ord) w.ord::text AS ord, m.id, m.status, m.error_code
       FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS w(counterparty_id, file_name, sha256, size_bytes, ord)
       JOIN inbox_files f ON f.counterparty_id = w.counterparty_id AND f.file_name = w.file_name
       JOIN messages m ON m.id = f.message_id AND m.sha256 = w.sha256 AND m.size_bytes = w.size_bytes
      ORDER BY w.ord, m.seq`,
    [files.map((f) => f.counterpartyId), files.map((f) => f.fileName), files.map((f) => f.sha256), files.map((f) => f.sizeBytes)],
  );
  return new Map(rows.map((row) => [Number(row.ord) - 1, { messageId: row.id, status: row.status, errorCode: row.error_code }]));
}

/** The recorded files of these counterparties not yet recorded as moved out of their inbox (few: those with intake or stuck). */
export async function findUnmovedInboxFiles(sql: Sql, counterpartyIds: readonly string[]): Promise<UnmovedInboxFile[]> {
  if (counterpartyIds.length === 0) return [];
  const { rows } = await sql.query<{ message_id: string; counterparty_id: string; file_name: string }>(
    'SELECT message_id, counterparty_id, file_name FROM inbox_files WHERE counterparty_id = ANY($1::text[])',
    [counterpartyIds],
  );
  return rows.map((row) => ({ messageId: row.message_id, counterpartyId: row.counterparty_id, fileName: row.file_name }));
}

/** The files of these messages have left the inbox. */
export async function recordInboxFilesMoved(sql: Sql, messageIds: readonly string[]): Promise<void> {
  if (messageIds.length === 0) return;
  await sql.query('DELETE FROM inbox_files WHERE message_id = ANY($1::text[])', [messageIds]);
}

/**
 * Notes that the message's file could not be moved out of the inbox, with an event on
 * the message for staff. True only the first time, so the failure is reported once.
 */
export async function recordInboxFileNotMoved(sql: Sql, messageId: string, reason: string): Promise<boolean> {
  const { rows } = await sql.query(
    `WITH noted AS (
       UPDATE inbox_files SET not_moved_at = now(), not_moved_reason = $2
        WHERE message_id = $1 AND not_moved_at IS NULL RETURNING message_id)
     INSERT INTO message_events (message_id, status, reason, detail)
     SELECT n.message_id, m.status, 'not_moved', jsonb_build_object('error', $2::text)
       FROM noted n JOIN messages m ON m.id = n.message_id
     RETURNING message_id`,
    [messageId, reason],
  );
  return rows.length > 0;
}

/**
 * The file of this message grew after it was taken: its sender was still writing it, so
 * the document recorded is the part read. A `grew_after_taken` event for staff, with
 * both sizes.
 */
export async function recordInboxFileGrew(sql: Sql, messageId: string, sizes: { readonly bytesRead: number; readonly sizeNow: number }): Promise<void> {
  await sql.query(
    `INSERT INTO message_events (message_id, status, reason, detail)
     SELECT m.id, m.status, 'grew_after_taken', jsonb_build_object('bytesRead', $2::bigint, 'sizeNow', $3::bigint)
       FROM messages m WHERE m.id = $1`,
    [messageId, sizes.bytesRead, sizes.sizeNow],
  );
}
