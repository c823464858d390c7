import type { Sql } from '../../ledger/database.ts';
import { streamedReportType, type ReportKind, type ReportLoad } from './report-ingestion.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import { childOf, childrenOf, optionalTextOf } from '../xml-element.ts';
import type { RecordReader } from './record-reader.ts';
import type { ReportRecord } from './report-splitter.ts';

/**
 * Transactions: a custodian's daily report of what happened in each custody account.
 * Streamed like Holdings. The rows go to a staging table by COPY and then into
 * `custody_transactions` in one statement that skips transactions already recorded
 * (same account and TransactionId): a re-sent or overlapping report records each
 * transaction once. The acknowledgement counts the transactions new to the ledger.
 */
const transactionsKind: ReportKind<null> = {
  name: 'Transactions',
  async prepare(tx: Sql) {
    await tx.exec(`DROP TABLE IF EXISTS transactions_staging;
      CREATE TEMP TABLE transactions_staging (
        account_number text, transaction_id text, transaction_type text, trade_date date, settlement_date date,
        isin text, quantity numeric(24,6), amount numeric(18,2), currency text, message_id text
      ) ON COMMIT DROP`);
  },
  copyStatement: 'COPY transactions_staging FROM STDIN',
  readAccount: readTransactionsAccount,
  finish: insertNewTransactions,
};

/** Read with saxes: a day's transactions of an account are few, so no pattern is needed. */
export function readTransactionsAccount({ text, line }: ReportRecord, reader: RecordReader, { messageId }: ReportLoad) {
  const account = reader.tree(text, line);
  if (!account) throw new GatewayError('INTERNAL_ERROR', `The record on line ${line} is not an account of the report's namespace, though the schema accepted it.`);
  const accountNumber = optionalTextOf(account, 'AccountNumber') ?? '';
  const seen = new Set<string>();
  let rows = '';
  const transactions = childrenOf(account, 'Transaction');
  for (const transaction of transactions) {
    const id = optionalTextOf(transaction, 'TransactionId') ?? '';
    if (seen.has(id)) {
      return { rejection: { code: 'TRANSACTION_ID_DUPLICATE' as const, text: `Account ${accountNumber} has TransactionId ${id} more than once (again on line ${transaction.line}).` } };
    }
    seen.add(id);
    const value = (name: string) => optionalTextOf(transaction, name);
    rows += [
      accountNumber, id, value('Type'), value('TradeDate'), value('SettlementDate'),
      value('Isin') ?? '\\N', value('Quantity') ?? '\\N',
      value('Amount') ?? '0', childOf(transaction, 'Amount')?.attrs.currency ?? 'SEK', messageId,
    ].join('\t') + '\n';
  }
  return { rows: { rows, count: transactions.length }, facts: null };
}

async function insertNewTransactions(tx: Sql): Promise<number> {
  const { rows } = await tx.query<{ inserted: string }>(
    `WITH inserted AS (
       INSERT INTO custody_transactions (account_number, transaction_id, transaction_type, trade_date, settlement_date, isin, quantity, amount, currency, message_id)
       SELECT account_number, transaction_id, transaction_type, trade_date, settlement_date, isin, quantity, amount, currency, message_id
         FROM transactions_staging
       ON CONFLICT (account_number, transaction_id) DO NOTHING
       RETURNING 1)
     SELECT count(*) AS inserted FROM inserted`,
  );
  return Number(rows[0]?.inserted ?? 0);
}

export const transactions = streamedReportType(transactionsKind);
