import { GatewayError } from '../../core/gateway-error.ts';
import type { Sql } from '../../ledger/database.ts';
import { formatOre, oreOf, toOre } from './custodian-report.ts';
import { streamedReportType, type AcceptedAccount, type ReportKind, type ReportLoad } from './report-ingestion.ts';
import { decodeReferences, type RecordView } from './record-view.ts';

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
 * One pass over a schema-valid account: the schema fixes the order Isin, Quantity,
 * MarketValue, InstrumentCurrency?, so one pattern reads a whole position.
 */
const P = '(?:[A-Za-z_][\\w.-]*:)?';
const field = (name: string) => `<${P}${name}(?:\\s[^>]*)?>([^<]*)</${P}${name}\\s*>\\s*`;
const POSITION = new RegExp(
  `<${P}Position(?:\\s[^>]*)?>\\s*${field('Isin')}${field('Quantity')}${field('MarketValue')}(?:${field('InstrumentCurrency')})?</${P}Position\\s*>`,
  'g',
);

function readHoldingsAccount(account: RecordView, { report, messageId }: ReportLoad) {
  const accountNumber = account.value('AccountNumber') ?? '';
  const seen = new Set<string>();
  // Summed as a number while that is exact (below 2^53 öre), as a bigint beyond: BigInt per position is slow.
  let sumOre = 0;
  let bigSumOre: bigint | undefined;
  let rows = '';
  let count = 0;
  const text = account.text;
  POSITION.lastIndex = 0;
  for (let match = POSITION.exec(text); match; match = POSITION.exec(text)) {
    const isin = clean(match[1]);
    if (seen.has(isin)) {
      const line = account.line + (text.slice(0, match.index).match(/\n/g)?.length ?? 0);
      return { rejection: { code: 'POSITION_DUPLICATE' as const, text: `Account ${accountNumber} reports ${isin} more than once (again on line ${line}).` } };
    }
    seen.add(isin);
    const marketValue = clean(match[3]);
    if (bigSumOre === undefined) {
      const next = sumOre + oreOf(marketValue);
      if (Number.isSafeInteger(next)) sumOre = next;
      else bigSumOre = BigInt(sumOre) + toOre(marketValue);
    } else {
      bigSumOre += toOre(marketValue);
    }
    rows += `${accountNumber}\t${report.asOfDate}\t${isin}\t${clean(match[2])}\t${marketValue}\t${match[4] === undefined ? 'SEK' : clean(match[4])}\t${messageId}\n`;
    count += 1;
  }
  // The record is schema-valid, so every position must have been read; fewer would load
  // part of an account silently. Fail loudly instead: the message goes dead for staff to see.
  const expected = text.match(POSITION_START)?.length ?? 0;
  if (count !== expected) {
    throw new GatewayError('INTERNAL_ERROR', `Read ${count} of the ${expected} positions of account ${accountNumber} (line ${account.line}); the layout is not one the reader knows.`);
  }
  return {
    rows: { rows, count },
    facts: { cashOre: toOre(account.value('Cash') ?? '0'), positionsOre: bigSumOre ?? BigInt(sumOre), positions: count },
  };
}

const POSITION_START = new RegExp(`<${P}Position[\\s>]`, 'g');

/** A field's text: trimmed, and character references decoded (rare in these fields). */
function clean(value: string | undefined): string {
  const text = (value ?? '').trim();
  return text.includes('&') ? decodeReferences(text) : text;
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
