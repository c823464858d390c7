/**
 * What the gateway fetched from counterparties' own SFTP servers. A row is written
 * only after intake has committed the file's message, and `removed_at` once the file
 * was moved to the remote archive or deleted. A file listed again with the same size
 * and mtime is that same file: it is never handed to intake twice, only its removal is
 * finished — across restarts, since the row is in PostgreSQL.
 *
 * The index on messages (counterparty, external id) lets the poller find a message
 * recorded for a file whose row was never written (a stop between intake's commit and
 * the row) without scanning the counterparty's messages; the existing index covers
 * originals only, and that message may be a duplicate. (Migration 10 narrows it to the
 * `sftp` channel's messages.)
 */
export const version = 5;
export const name = 'remote sftp fetches';
export const sql = `
CREATE TABLE remote_files (
  id               bigserial PRIMARY KEY,
  counterparty_id  text NOT NULL,
  remote_path      text NOT NULL,
  size_bytes       bigint NOT NULL,
  mtime            bigint NOT NULL,
  message_id       text NOT NULL REFERENCES messages(id),
  fetched_at       timestamptz NOT NULL DEFAULT now(),
  removed_at       timestamptz,
  UNIQUE (counterparty_id, remote_path, size_bytes, mtime)
);
CREATE INDEX remote_files_not_removed ON remote_files (counterparty_id) WHERE removed_at IS NULL;
CREATE INDEX messages_by_external_id ON messages (counterparty_id, external_id);
`;
