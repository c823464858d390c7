/**
 * Less work for every message row written:
 *
 * - The look-up of a remote SFTP file's message by (counterparty, external id), which
 *   must find duplicates too, is indexed for messages of the `sftp` channel only: the
 *   documents of every other channel no longer pay for an index they never use.
 * - Received bytes and stored responses are compressed with lz4 where the server has
 *   it (PostgreSQL 14 and later, built with lz4): a document of a few kilobytes is
 *   compressed in the row, and lz4 does that several times faster than the default.
 *   Values written before keep their compression; both read alike.
 */
export const version = 10;
export const name = 'lighter message rows';
export const sql = `
DROP INDEX IF EXISTS messages_by_external_id;
CREATE INDEX messages_sftp_by_external_id ON messages (counterparty_id, external_id) WHERE channel = 'sftp';
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE messages ALTER COLUMN raw SET COMPRESSION lz4;
    ALTER TABLE responses ALTER COLUMN body SET COMPRESSION lz4;
  END IF;
END $$;
`;
