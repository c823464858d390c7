/**
 * `document_keys` without its foreign key to `messages`. The keys of a document are
 * written in the transaction that applies it, joined to its message row for its `seq`
 * (src/ledger/messages/document-keys.repository.ts), so a key can only name a message
 * that exists; and message rows are never deleted (retention empties their bytes, the
 * rows stay). The constraint's check — one lookup of `messages` per key, some nine keys
 * a plan document — was a third of what writing the keys cost (docs/performance.md).
 */
export const version = 50;
export const name = 'document keys without foreign key';
export const sql = `
ALTER TABLE document_keys DROP CONSTRAINT IF EXISTS document_keys_message_id_fkey;
`;
