import type { Sql } from '../database.ts';

/**
 * Queries of the SSEK endpoint: its transaction rows, and the message a sender's TxId
 * names (the message store's external id of an SSEK message is its TxId).
 */
export type SsekFlowName = 'sync' | 'pull' | 'push';

export interface SsekTransaction {
  readonly messageId: string;
  readonly counterpartyId: string;
  readonly txId: string;
  readonly senderId: string;
  readonly flow: SsekFlowName;
  /** True when the request was answered at once (a replay or a duplicate) and nothing is to be pushed. */
  readonly answeredInline: boolean;
}

interface TransactionRow {
  message_id: string;
  counterparty_id: string;
  tx_id: string;
  sender_id: string;
  flow: SsekFlowName;
  answered_inline: boolean;
}

/** Records a transaction; a second call for the same message changes nothing. */
export async function recordSsekTransaction(sql: Sql, transaction: SsekTransaction): Promise<void> {
  await sql.query(
    `INSERT INTO ssek_transactions (message_id, counterparty_id, tx_id, sender_id, flow, answered_inline)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (message_id) DO NOTHING`,
    [transaction.messageId, transaction.counterpartyId, transaction.txId, transaction.senderId, transaction.flow, transaction.answeredInline],
  );
}

export async function getSsekTransaction(sql: Sql, messageId: string): Promise<SsekTransaction | undefined> {
  const { rows } = await sql.query<TransactionRow>(
    'SELECT message_id, counterparty_id, tx_id, sender_id, flow, answered_inline FROM ssek_transactions WHERE message_id = $1',
    [messageId],
  );
  const row = rows[0];
  return row && {
    messageId: row.message_id, counterpartyId: row.counterparty_id, txId: row.tx_id,
    senderId: row.sender_id, flow: row.flow, answeredInline: row.answered_inline,
  };
}

/**
 * The first message a counterparty sent by SSEK under a TxId — an original, a duplicate
 * or a rejection: what the TxId answers (looked up by migration 0038's index).
 */
export async function findMessageByTxId(sql: Sql, counterpartyId: string, txId: string): Promise<{ id: string } | undefined> {
  const { rows } = await sql.query<{ id: string }>(
    `SELECT id FROM messages
      WHERE counterparty_id = $1 AND channel = 'ssek' AND external_id = $2
      ORDER BY seq LIMIT 1`,
    [counterpartyId, txId],
  );
  return rows[0];
}
