/**
 * A mail read again after a stop between intake and its move to the processed folder is
 * that mail: intake looks each attachment up by its external id (`<Message-ID>/<file
 * name>`, under a lock on it) among every mail message of its counterparty, originals,
 * duplicates and rejections alike, before it records one. The unique index on external
 * ids covers originals only, so mail messages get this one, as SSEK's do (0038); the
 * documents of other channels do not pay for it.
 */
export const version = 40;
export const name = 'mail messages by external id';
export const sql = `
CREATE INDEX messages_mail_by_external_id ON messages (counterparty_id, external_id) WHERE channel = 'mail';
`;
