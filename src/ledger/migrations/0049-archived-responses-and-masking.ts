/**
 * Retention, second part (src/calendar/message-retention.job.ts):
 * - a delivered response's body leaves its row with its request's bytes, for the same
 *   archive file (`body_location` names its member, as `raw_location` does a document's);
 * - every archive file is recorded (`message_archive_files`): which messages it holds
 *   (by `seq`), the newest of them received, how many documents (requests and
 *   responses), and whether its personal identity numbers are masked. Past
 *   `retention.maskAfterDays` an archive file is written again with them masked; the
 *   unmasked file keeps its row, `replaced_at` set, until the next run has removed it
 *   (the run that replaced it removes it after its commit, the next one makes sure);
 * - each run records how many documents it masked, in how many files.
 * Archive files written before this version are recorded from the message rows.
 */
export const version = 49;
export const name = 'archived responses and masking';
export const sql = `
ALTER TABLE responses ALTER COLUMN body DROP NOT NULL;
ALTER TABLE responses ADD COLUMN body_location text;
ALTER TABLE responses ADD CONSTRAINT responses_body_kept CHECK (body IS NOT NULL OR body_location IS NOT NULL);

CREATE TABLE message_archive_files (
  file           text PRIMARY KEY,
  first_seq      bigint NOT NULL,
  last_seq       bigint NOT NULL,
  received_until timestamptz NOT NULL,
  documents      integer NOT NULL CHECK (documents >= 0),
  masked_at      timestamptz,
  replaced_at    timestamptz
);
CREATE INDEX message_archive_files_unmasked ON message_archive_files (received_until) WHERE masked_at IS NULL AND replaced_at IS NULL;
CREATE INDEX message_archive_files_replaced ON message_archive_files (file) WHERE replaced_at IS NOT NULL;

INSERT INTO message_archive_files (file, first_seq, last_seq, received_until, documents)
SELECT split_part(raw_location, '@', 1), min(seq), max(seq), max(received_at), count(*)::int
  FROM messages WHERE raw_location LIKE 'archive/%.gz@%' GROUP BY 1;

ALTER TABLE message_retention_runs ADD COLUMN responses integer NOT NULL DEFAULT 0 CHECK (responses >= 0);
ALTER TABLE message_retention_runs ADD COLUMN masked integer NOT NULL DEFAULT 0 CHECK (masked >= 0);
ALTER TABLE message_retention_runs ADD COLUMN masked_files integer NOT NULL DEFAULT 0 CHECK (masked_files >= 0);
`;
