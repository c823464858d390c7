/**
 * The records of a streamed report are read with their namespaces: ours under any
 * prefix the sender binds to it, on the root or on the record, and never an element of
 * another namespace by its local name — whether the record is read by patterns (plain)
 * or by saxes.
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { RecordReader } from './record-reader.ts';
import { readHoldingsAccount } from './holdings.message.ts';
import { readTransactionsAccount } from './transactions.message.ts';

const NS = 'urn:se:depot-gateway:v1';
const LOAD = { report: { messageId: 'H-1', custodianOrganisationNumber: '5560000001', asOfDate: '2026-11-19' }, messageId: 'm-1' };

function holdings(rootStartTag: string, text: string, line = 10) {
  const reader = RecordReader.forRoot(rootStartTag, /^<([^\s>]+)/.exec(rootStartTag)?.[1] ?? '');
  return { plain: reader.plain(text), result: readHoldingsAccount({ text, line }, reader, LOAD) };
}

/** The COPY rows and value an account of these positions must give. */
function expected(account: string, positions: readonly [string, string, string, string?][], cash: string) {
  const rows = positions.map(([isin, quantity, value, currency]) => `${account}\t2026-11-19\t${isin}\t${quantity}\t${value}\t${currency ?? 'SEK'}\tm-1\n`).join('');
  const ore = (amount: string) => BigInt(Math.round(Number(amount) * 100));
  return {
    rows: { rows, count: positions.length },
    facts: { cashOre: ore(cash), positionsOre: positions.reduce((sum, [, , value]) => sum + ore(value), 0n), positions: positions.length },
  };
}

const TWO: [string, string, string, string?][] = [['SE0000000001', '3.5', '100.25'], ['SE0000000002', '1', '50.00', 'EUR']];

test('an account whose prefix, bound on the root, is not the default is read whole, by patterns', () => {
  const text = `<h:Account>
    <h:AccountNumber>DEPA-1</h:AccountNumber><h:Cash currency="SEK">12.50</h:Cash>
    <h:Position><h:Isin>SE0000000001</h:Isin><h:Quantity>3.5</h:Quantity><h:MarketValue currency="SEK">100.25</h:MarketValue></h:Position>
    <h:Position><h:Isin>SE0000000002</h:Isin><h:Quantity>1</h:Quantity><h:MarketValue>50.00</h:MarketValue><h:InstrumentCurrency>EUR</h:InstrumentCurrency></h:Position>
  </h:Account>`;
  const read = holdings(`<h:Holdings xmlns:h="${NS}">`, text);
  assert.equal(read.plain, true);
  assert.deepEqual(read.result, expected('DEPA-1', TWO, '12.50'));
});

test('an account that binds its own prefix is read whole, by saxes', () => {
  const text = `<h:Account xmlns:h="${NS}">
    <h:AccountNumber>DEPA-1</h:AccountNumber><h:Cash>12.50</h:Cash>
    <h:Position><h:Isin>SE0000000001</h:Isin><h:Quantity>3.5</h:Quantity><h:MarketValue>100.25</h:MarketValue></h:Position>
    <h:Position><h:Isin>SE0000000002</h:Isin><h:Quantity>1</h:Quantity><h:MarketValue>50.00</h:MarketValue><h:InstrumentCurrency>EUR</h:InstrumentCurrency></h:Position>
  </h:Account>`;
  const read = holdings(`<Holdings xmlns="${NS}">`, text);
  assert.equal(read.plain, false);
  assert.deepEqual(read.result, expected('DEPA-1', TWO, '12.50'));
});

test('a Position of another namespace is not taken for ours, by patterns or by saxes', () => {
  const foreign = '<x:Position><x:Isin>SE0000000009</x:Isin><x:Quantity>9</x:Quantity><x:MarketValue>999.00</x:MarketValue></x:Position>';
  const ours = '<Position><Isin>SE0000000001</Isin><Quantity>3.5</Quantity><MarketValue>100.25</MarketValue></Position>';
  const account = (inner: string, declare = '') => `<Account${declare}><AccountNumber>DEPA-1</AccountNumber><Cash>1.00</Cash>${inner}</Account>`;
  const cases = [
    // x bound on the root: the record is plain.
    holdings(`<Holdings xmlns="${NS}" xmlns:x="urn:example:other">`, account(`${ours}${foreign}`)),
    // x bound on the record: saxes.
    holdings(`<Holdings xmlns="${NS}">`, account(`${foreign}${ours}`, ' xmlns:x="urn:example:other"')),
    // The same local names unprefixed, in a default namespace the record redeclares.
    holdings(`<Holdings xmlns="${NS}">`, account(`${ours}<Position xmlns="urn:example:other"><Isin>SE0000000009</Isin><Quantity>9</Quantity><MarketValue>999.00</MarketValue></Position>`)),
  ];
  assert.deepEqual(cases.map((c) => c.plain), [true, false, false]);
  for (const { result } of cases) assert.deepEqual(result, expected('DEPA-1', [['SE0000000001', '3.5', '100.25']], '1.00'));
});

test('where the default namespace is another one, unprefixed elements are not ours', () => {
  const text = '<h:Account><h:AccountNumber>DEPA-1</h:AccountNumber><h:Cash>1.00</h:Cash>'
    + '<Position><Isin>SE0000000009</Isin><Quantity>9</Quantity><MarketValue>999.00</MarketValue></Position>'
    + '<h:Position><h:Isin>SE0000000001</h:Isin><h:Quantity>3.5</h:Quantity><h:MarketValue>100.25</h:MarketValue></h:Position></h:Account>';
  const read = holdings(`<h:Holdings xmlns:h="${NS}" xmlns="urn:example:other">`, text);
  assert.equal(read.plain, true);
  assert.deepEqual(read.result, expected('DEPA-1', [['SE0000000001', '3.5', '100.25']], '1.00'));
});

test('references, CDATA and comments are read by saxes, with the lines of the sender\'s file', () => {
  const text = `<Account>
    <AccountNumber>DEPA-&#x31;</AccountNumber><Cash><![CDATA[1.00]]></Cash>
    <Position><!-- first --><Isin>SE0000000001</Isin><Quantity>3.5</Quantity><MarketValue>100.25</MarketValue></Position>
    <Position><Isin>SE0000000001</Isin><Quantity>1</Quantity><MarketValue>1.00</MarketValue></Position>
  </Account>`;
  const read = holdings(`<Holdings xmlns="${NS}">`, text, 40);
  assert.equal(read.plain, false);
  assert.deepEqual(read.result, { rejection: { code: 'POSITION_DUPLICATE', text: 'Account DEPA-1 reports SE0000000001 more than once (again on line 43).' } });
  const plain = holdings(`<Holdings xmlns="${NS}">`, text.replace('&#x31;', '1').replace('<![CDATA[1.00]]>', '1.00').replace('<!-- first -->', ''), 40);
  assert.equal(plain.plain, true);
  assert.deepEqual(plain.result, read.result);
});

test('Transactions are read with their namespaces: a foreign Amount is not the amount', () => {
  const reader = RecordReader.forRoot(`<t:Transactions xmlns:t="${NS}" xmlns:x="urn:example:other">`, 't:Transactions');
  const text = `<t:Account><t:AccountNumber>DEPA-1</t:AccountNumber>
    <t:Transaction><t:TransactionId>T1</t:TransactionId><t:Type>Buy</t:Type><t:TradeDate>2026-11-18</t:TradeDate><t:SettlementDate>2026-11-20</t:SettlementDate>
      <t:Isin>SE0000000001</t:Isin><t:Quantity>2</t:Quantity><x:Amount currency="USD">7.00</x:Amount><t:Amount currency="EUR">-200.00</t:Amount></t:Transaction>
    <t:Transaction><t:TransactionId>T1</t:TransactionId><t:Type>Fee</t:Type><t:TradeDate>2026-11-18</t:TradeDate><t:SettlementDate>2026-11-18</t:SettlementDate><t:Amount>-5.00</t:Amount></t:Transaction>
  </t:Account>`;
  const first = text.slice(0, text.lastIndexOf('<t:Transaction>')) + '</t:Account>';
  assert.deepEqual(readTransactionsAccount({ text: first, line: 5 }, reader, LOAD), {
    rows: { rows: 'DEPA-1\tT1\tBuy\t2026-11-18\t2026-11-20\tSE0000000001\t2\t-200.00\tEUR\tm-1\n', count: 1 },
    facts: null,
  });
  assert.deepEqual(readTransactionsAccount({ text, line: 5 }, reader, LOAD), {
    rejection: { code: 'TRANSACTION_ID_DUPLICATE', text: 'Account DEPA-1 has TransactionId T1 more than once (again on line 8).' },
  });
});
