/**
 * Retention of received documents' bytes (src/calendar/message-retention.job.ts): each
 * daily run moves the bytes of finished messages received before its cutoff out of the
 * message rows into a compressed archive file of the document store, and records here
 * what it moved — how many, how many bytes, into which file, and how far it came
 * (`last_seq`, where the next run goes on). The message rows, their status history and
 * their ledger effects stay.
 */
export const version = 48;
export const name = 'message retention';
export const sql = `
CREATE TABLE message_retention_runs (
  period        text PRIMARY KEY,
  ran_at        timestamptz NOT NULL,
  cutoff        timestamptz NOT NULL,
  archived      integer NOT NULL CHECK (archived >= 0),
  bytes         bigint NOT NULL CHECK (bytes >= 0),
  archive_files integer NOT NULL CHECK (archive_files >= 0),
  last_seq      bigint NOT NULL
);
`;
