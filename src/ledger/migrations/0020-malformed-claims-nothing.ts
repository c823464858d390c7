/**
 * A document rejected as not well-formed XML claims none of its keys. Such a document
 * is usually a file taken before its upload was complete: its sender re-sends the whole
 * file under the same name, with the same MessageId, or — for another document that
 * shared the cut-off prefix — with the same truncated bytes. None of these is a
 * duplicate of something the gateway could not read. So the unique indexes that make a
 * counterparty's external id, content and header MessageId name one original leave out
 * originals rejected with XML_MALFORMED (an original leaves them when it is rejected).
 */
export const version = 20;
export const name = 'malformed claims nothing';
export const sql = `
DROP INDEX messages_original_by_external_id;
DROP INDEX messages_original_by_content;
DROP INDEX messages_original_by_header_message_id;
CREATE UNIQUE INDEX messages_original_by_external_id ON messages (counterparty_id, external_id)
  WHERE duplicate_of IS NULL AND error_code IS DISTINCT FROM 'XML_MALFORMED';
CREATE UNIQUE INDEX messages_original_by_content ON messages (counterparty_id, sha256)
  WHERE duplicate_of IS NULL AND error_code IS DISTINCT FROM 'XML_MALFORMED';
CREATE UNIQUE INDEX messages_original_by_header_message_id ON messages (counterparty_id, header_message_id)
  WHERE duplicate_of IS NULL AND header_message_id IS NOT NULL AND error_code IS DISTINCT FROM 'XML_MALFORMED';
`;
