/**
 * Files intake recorded that are still in their sender's inbox. A folder inbox file
 * leaves the inbox (to archive/ or rejected/) only after intake has committed it, so a
 * stop in between — or a move that fails — leaves a recorded file behind, which the
 * watcher offers again. A row here says "this message's file has not left the inbox
 * yet": the same file offered again (same counterparty, name, size and content) is
 * that message, not a re-send, and is moved without a second message or answer. The
 * row is deleted once the move is recorded; a file that was sent again after its move
 * finds no row and is recorded and answered as a duplicate.
 *
 * `not_moved_at` and `not_moved_reason` note the first failed move, so that a file
 * that cannot be moved is reported once, however often the rescan finds it.
 */
export const version = 11;
export const name = 'inbox files';
export const sql = `
CREATE TABLE inbox_files (
  message_id        text PRIMARY KEY REFERENCES messages(id),
  counterparty_id   text NOT NULL,
  file_name         text NOT NULL,
  not_moved_at      timestamptz,
  not_moved_reason  text
);
CREATE INDEX inbox_files_by_name ON inbox_files (counterparty_id, file_name);
`;
