/**
 * SSEK transactions: one row per SOAP request the SSEK endpoint recorded, beside its
 * message. It keeps what the message row does not: the flow the sender asked for and
 * whether the request was answered on the spot (a replayed TxId, a duplicate), so the
 * deliver stage pushes only answers the sender is still waiting for. Rows are only
 * ever added.
 */
export const version = 7;
export const name = 'ssek transactions';
export const sql = `
CREATE TABLE ssek_transactions (
  message_id       text PRIMARY KEY REFERENCES messages(id),
  counterparty_id  text NOT NULL,
  tx_id            text NOT NULL,
  sender_id        text NOT NULL,
  flow             text NOT NULL CHECK (flow IN ('sync', 'pull', 'push')),
  answered_inline  boolean NOT NULL,
  recorded_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ssek_transactions_by_tx ON ssek_transactions (counterparty_id, tx_id);
`;
