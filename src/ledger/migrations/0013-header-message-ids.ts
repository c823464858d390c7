/**
 * A document's identity is its sender's own header MessageId, per counterparty (as
 * SSEK's TxId is a transaction's): a second original with the same MessageId from the
 * same counterparty cannot be recorded, so intake records it as a duplicate, whatever
 * its file name. The unique indexes on external id (a transport key: a file name, a
 * mail's Message-ID and attachment, a TxId) and on content stay.
 *
 * Messages received before this version have no MessageId recorded; a document that
 * repeats one of them is still caught by its content or its file name.
 */
export const version = 13;
export const name = 'header message ids';
export const sql = `
ALTER TABLE messages ADD COLUMN header_message_id text;
CREATE UNIQUE INDEX messages_original_by_header_message_id ON messages (counterparty_id, header_message_id)
  WHERE duplicate_of IS NULL AND header_message_id IS NOT NULL;
`;
