import { GatewayError } from '../../core/gateway-error.ts';
import type { Sql } from '../../ledger/database.ts';
import { formatOre, oreOf, toOre } from './custodian-report.ts';
import { streamedReportType, type AcceptedAccount, type ReportKind, type ReportLoad } from './report-ingestion.ts';
import type { RecordReader } from './record-reader.ts';
import type { ReportRecord } from './report-splitter.ts';
import { childrenOf, optionalTextOf, textOf } from '../xml-element.ts';

/**
 * Holdings: a custodian's daily report of each custody account's positions and cash.
 * Streamed (a day can hold a million positions): the positions of accepted accounts
 * are copied straight into `custody_positions` while the file is read; each account's
 * value for the day goes to `custody_valuations` in one set-based statement afterwards.
 * A second report for the same day replaces the first account by account: its
 * valuation row, and its positions (the earlier report's rows of that account and day
 * are deleted).
 */
interface AccountValue {
  readonly cashOre: bigint;
  readonly positionsOre: bigint;
  readonly positions: number;
}

const holdingsKind: ReportKind<AccountValue> = {
  name: 'Holdings',
  prepare: async () => undefined,
  copyStatement: 'COPY custody_positions (account_number, as_of, isin, quantity, market_value, instrument_currency, message_id) FROM STDIN',
  readAccount: readHoldingsAccount,
  finish: storeValuations,
};

/**
 * Reads a schema-valid account's positions. A plain record (nearly every one) is read
 * with one pattern per position — the schema fixes the order Isin, Quantity,
 * MarketValue, InstrumentCurrency? — that accepts only our namespace's prefixes;
 * anything else, or a plain record the pattern does not read whole, is read with saxes.
 */
export function readHoldingsAccount(record: ReportRecord, reader: RecordReader, load: ReportLoad) {
  if (reader.plain(record.text)) {
    const read = readPlainAccount(record, reader, load);
    if (read) return read;
  }
  return readAccountTree(record, reader, load);
}

function readPlainAccount({ text, line }: ReportRecord, reader: RecordReader, load: ReportLoad) {
  const field = (name: string) => `${reader.tagPattern(name)}(?:\\s[^>]*)?>([^<]*)</[^>]*>\\s*`;
  const position = reader.pattern('holdings:position', () => new RegExp(
    `${reader.tagPattern('Position')}(?:\\s[^>]*)?>\\s*${field('Isin')}${field('Quantity')}${field('MarketValue')}(?:${field('InstrumentCurrency')})?</[^>]*>`,
    'g',
  ));
  const account = new AccountPositions(reader.plainValue(text, 'AccountNumber') ?? '', load);
  for (let match = position.exec(text); match; match = position.exec(text)) {
    const at = () => line + countNewlines(text, match.index);
    const duplicate = account.add(match[1] ?? '', match[2] ?? '', match[3] ?? '', match[4], at);
    if (duplicate) return duplicate;
  }
  // Every position must have been read; fewer would load part of an account silently.
  const expected = text.match(reader.pattern('holdings:start', () => new RegExp(`${reader.tagPattern('Position')}[\\s>/]`, 'g')))?.length ?? 0;
  return account.count === expected ? account.result(reader.plainValue(text, 'Cash')) : undefined;
}

function readAccountTree({ text, line }: ReportRecord, reader: RecordReader, load: ReportLoad) {
  const tree = reader.tree(text, line);
  if (!tree) throw new GatewayError('INTERNAL_ERROR', `The record on line ${line} is not an account of the report's namespace, though the schema accepted it.`);
  const account = new AccountPositions(optionalTextOf(tree, 'AccountNumber') ?? '', load);
  for (const position of childrenOf(tree, 'Position')) {
    const duplicate = account.add(textOf(position, 'Isin'), textOf(position, 'Quantity'), textOf(position, 'MarketValue'), optionalTextOf(position, 'InstrumentCurrency'), () => position.line);
    if (duplicate) return duplicate;
  }
  return account.result(optionalTextOf(tree, 'Cash'));
}

/** One account's positions as COPY rows, with their sum. */
class AccountPositions {
  rows = '';
  count = 0;
  readonly #seen = new Set<string>();
  // Summed as a number while that is exact (below 2^53 öre), as a bigint beyond: BigInt per position is slow.
  #sumOre = 0;
  #bigSumOre: bigint | undefined;

  constructor(readonly accountNumber: string, readonly load: ReportLoad) {}

  /** Adds a position; gives the account's rejection when its ISIN came before. */
  add(isinText: string, quantity: string, marketValueText: string, currency: string | undefined, line: () => number) {
    const isin = isinText.trim();
    if (this.#seen.has(isin)) {
      return { rejection: { code: 'POSITION_DUPLICATE' as const, text: `Account ${this.accountNumber} reports ${isin} more than once (again on line ${line()}).` } };
    }
    this.#seen.add(isin);
    const marketValue = marketValueText.trim();
    if (this.#bigSumOre === undefined) {
      const next = this.#sumOre + oreOf(marketValue);
      if (Number.isSafeInteger(next)) this.#sumOre = next;
      else this.#bigSumOre = BigInt(this.#sumOre) + toOre(marketValue);
    } else {
      this.#bigSumOre += toOre(marketValue);
    }
    const { report, messageId } = this.load;
    this.rows += `${this.accountNumber}\t${report.asOfDate}\t${isin}\t${quantity.trim()}\t${marketValue}\t${currency?.trim() || 'SEK'}\t${messageId}\n`;
    this.count += 1;
    return undefined;
  }

  result(cash: string | undefined) {
    return {
      rows: { rows: this.rows, count: this.count },
      facts: { cashOre: toOre(cash?.trim() || '0'), positionsOre: this.#bigSumOre ?? BigInt(this.#sumOre), positions: this.count },
    };
  }
}

function countNewlines(text: string, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) count += 1;
  return count;
}

async function storeValuations(tx: Sql, { report, messageId }: ReportLoad, accounts: readonly AcceptedAccount<AccountValue>[], copied: number): Promise<number> {
  if (accounts.length === 0) return 0;
  const numbers = accounts.map((a) => a.accountNumber);
  await tx.query(
    `DELETE FROM custody_positions p USING unnest($1::text[]) AS a(account_number)
      WHERE p.account_number = a.account_number AND p.as_of = $2 AND p.message_id <> $3`,
    [numbers, report.asOfDate, messageId],
  );
  await tx.query(
    `INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
     SELECT a.account_number, $2, a.cash, a.positions_value, a.cash + a.positions_value, a.position_count, $3
       FROM unnest($1::text[], $4::numeric[], $5::numeric[], $6::int[]) AS a(account_number, cash, positions_value, position_count)
     ON CONFLICT (account_number, as_of) DO UPDATE
       SET cash = EXCLUDED.cash, positions_value = EXCLUDED.positions_value, total_value = EXCLUDED.total_value,
           position_count = EXCLUDED.position_count, message_id = EXCLUDED.message_id`,
    [
      numbers, report.asOfDate, messageId,
      accounts.map((a) => formatOre(a.facts.cashOre)),
      accounts.map((a) => formatOre(a.facts.positionsOre)),
      accounts.map((a) => a.facts.positions),
    ],
  );
  return copied;
}

export const holdings = streamedReportType(holdingsKind);
