import type { Sql } from '../database.ts';

/**
 * What was fetched from counterparties' own SFTP servers (table `remote_files`,
 * migration 0005). A file version — counterparty, remote path, size, mtime — is
 * recorded once its message is committed, and marked removed once it has left the
 * remote outbox. Plain functions taking the database first.
 */

/** One version of a remote file: the same path with another size or mtime is another file. */
export interface RemoteFileVersion {
  readonly counterpartyId: string;
  readonly remotePath: string;
  readonly size: number;
  /** Modification time in ms since the epoch, as listed. */
  readonly mtime: number;
}

export interface FetchedRemoteFile {
  readonly messageId: string;
  readonly removed: boolean;
}

interface RemoteFileRow {
  message_id: string;
  removed: boolean;
}

/**
 * The message a file version was recorded as, if any: from `remote_files`, or else a
 * message of the 'sftp' channel carrying this version in its metadata (intake
 * committed, but the gateway stopped before the row was written).
 */
export async function findFetchedRemoteFile(db: Sql, file: RemoteFileVersion, externalId: string): Promise<FetchedRemoteFile | undefined> {
  const recorded = await db.query<RemoteFileRow>(
    `SELECT message_id, removed_at IS NOT NULL AS removed FROM remote_files
      WHERE counterparty_id = $1 AND remote_path = $2 AND size_bytes = $3 AND mtime = $4`,
    [file.counterpartyId, file.remotePath, file.size, file.mtime],
  );
  const row = recorded.rows[0];
  if (row) return { messageId: row.message_id, removed: row.removed };
  const taken = await db.query<{ id: string }>(
    `SELECT id FROM messages
      WHERE counterparty_id = $1 AND external_id = $2 AND channel = 'sftp'
        AND metadata->>'remotePath' = $3 AND metadata->>'size' = $4 AND metadata->>'mtime' = $5
      ORDER BY seq LIMIT 1`,
    [file.counterpartyId, externalId, file.remotePath, String(file.size), String(file.mtime)],
  );
  const message = taken.rows[0];
  return message ? { messageId: message.id, removed: false } : undefined;
}

/** Records that a file version became message `messageId`; recording it twice keeps the first. */
export async function recordFetchedRemoteFile(db: Sql, file: RemoteFileVersion, messageId: string): Promise<void> {
  await db.query(
    `INSERT INTO remote_files (counterparty_id, remote_path, size_bytes, mtime, message_id)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (counterparty_id, remote_path, size_bytes, mtime) DO NOTHING`,
    [file.counterpartyId, file.remotePath, file.size, file.mtime, messageId],
  );
}

/** Marks a recorded file version as moved to the remote archive or deleted. */
export async function markRemoteFileRemoved(db: Sql, file: RemoteFileVersion): Promise<void> {
  await db.query(
    `UPDATE remote_files SET removed_at = now()
      WHERE counterparty_id = $1 AND remote_path = $2 AND size_bytes = $3 AND mtime = $4 AND removed_at IS NULL`,
    [file.counterpartyId, file.remotePath, file.size, file.mtime],
  );
}

/** The three functions above bound to one database: the shape the remote SFTP poller asks for. */
export function remoteFilesOf(db: Sql) {
  return {
    findFetched: (file: RemoteFileVersion, externalId: string) => findFetchedRemoteFile(db, file, externalId),
    recordFetched: (file: RemoteFileVersion, messageId: string) => recordFetchedRemoteFile(db, file, messageId),
    markRemoved: (file: RemoteFileVersion) => markRemoteFileRemoved(db, file),
  };
}
