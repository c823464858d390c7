/**
 * An SSEK TxId answers the same way every time: a resent envelope and GetResponse find
 * the first message recorded under the TxId, whether it is an original, a duplicate or
 * rejected, and intake looks there (under a lock on the TxId) before it records a
 * document sent under one. The unique index on external ids covers originals only, so
 * every SSEK message gets this one; the documents of other channels do not pay for it.
 */
export const version = 38;
export const name = 'ssek messages by tx id';
export const sql = `
CREATE INDEX messages_ssek_by_tx_id ON messages (counterparty_id, external_id) WHERE channel = 'ssek';
`;
