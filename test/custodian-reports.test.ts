/**
 * Streamed custodian reports end to end on the real PostgreSQL and Redis: a day's
 * Holdings and Transactions of two custodians arrive by folder and by REST, are loaded
 * and reconcile with the ledger's custody accounts; a bad record or an unknown account
 * rejects only its account; a document that breaks half-way loads nothing; a report
 * over the database size limit is kept in the document store and streamed; a re-sent
 * day replaces the earlier one; arrivals are recorded against the 08:30 deadline.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { createDemoLedgerTemplate, createTestDatabase, dropFile, startTestGateway, testSettings, waitFor, type TestDatabase, type TestGateway } from './support/harness.ts';
import { holdingsAccount, holdingsHead, holdingsReport, transactionsReport, type PositionSpec } from './support/custodian-reports.ts';

const NORDIC = { id: 'nordic-custodian', organisationNumber: '5566778899' };
const REST_PASSWORD = 'rest-password-for-tests';

function positions(count: number, seed = 1): PositionSpec[] {
  return Array.from({ length: count }, (_, i) => ({
    isin: `SE${String(1_000_000_000 + i * 7 + seed).padStart(10, '0')}`,
    quantity: `${(i % 50) + 1}.125`,
    marketValue: `${(i * 13 + seed) % 5000}.25`,
  }));
}

/** The value of positions as the ledger should hold it, in öre. */
function valueOre(cash: string, list: readonly PositionSpec[]): bigint {
  const ore = (s: string) => BigInt(Math.round(Number(s) * 100));
  return list.reduce((sum, p) => sum + ore(p.marketValue), ore(cash));
}

interface Acknowledgement {
  readonly status: string;
  readonly body: string;
}

describe('custodian reports', () => {
  let template: TestDatabase;
  let database: TestDatabase;
  let gateway: TestGateway;
  let baseUrl: string;

  beforeAll(async () => {
    template = await createDemoLedgerTemplate();
    database = await createTestDatabase(template.name);
    const defaults = testSettings('unused').counterparties as Record<string, unknown>[];
    gateway = await startTestGateway({
      database,
      roles: ['api', 'worker', 'watch'],
      settings: {
        limits: { maxDocumentBytes: 64 * 1024 },
        counterparties: [
          ...defaults.map((c) => (c.id === 'demo-custodian' ? { ...c, rest: { password: REST_PASSWORD } } : c)),
          { ...NORDIC, name: 'Nordic Custody AB', role: 'custodian', messageTypes: ['custodian-reporting'], rest: { password: REST_PASSWORD } },
        ],
      },
    });
    const address = gateway.http?.server.address();
    assert.ok(address && typeof address === 'object');
    baseUrl = `http://127.0.0.1:${address.port}`;
    await gateway.deps.db.query(
      `INSERT INTO custody_accounts (account_number, custodian_id, opened_on) VALUES ('NC-200001', $1, '2024-01-01'), ('NC-200002', $1, '2024-01-01')`,
      [NORDIC.id],
    );
  });

  afterAll(async () => {
    await gateway.destroy();
    await database.drop();
    await template.drop();
  });

  async function acknowledgementOf(counterpartyId: string, externalId: string): Promise<Acknowledgement> {
    return waitFor(async () => {
      const { rows } = await gateway.deps.db.query<{ status: string; body: string }>(
        `SELECT m.status, r.body FROM messages m JOIN responses r ON r.message_id = m.id
          WHERE m.counterparty_id = $1 AND m.external_id = $2 AND m.status IN ('applied', 'rejected')`,
        [counterpartyId, externalId],
      );
      return rows[0];
    }, `acknowledgement of ${externalId}`, 60_000);
  }

  function post(path: string, body: string, user = 'demo-custodian', password = REST_PASSWORD, query = '') {
    return fetch(`${baseUrl}${path}${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml', authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
      body,
    });
  }

  async function valuation(account: string, asOf: string) {
    const { rows } = await gateway.deps.db.query<{ total_value: string; position_count: number; message_id: string }>(
      'SELECT total_value, position_count, message_id FROM custody_valuations WHERE account_number = $1 AND as_of = $2',
      [account, asOf],
    );
    return rows[0];
  }

  async function positionCount(account: string, asOf: string): Promise<number> {
    const { rows } = await gateway.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM custody_positions WHERE account_number = $1 AND as_of = $2', [account, asOf]);
    return Number(rows[0]?.n);
  }

  test("a day's Holdings of two custodians, by folder and by REST, reconcile with the custody accounts", async () => {
    const demo = [
      { accountNumber: 'DEPA-100001', cash: '1500.00', positions: positions(12, 1) },
      { accountNumber: 'DEPA-100002', cash: '-20.50', positions: positions(3, 2) },
      { accountNumber: 'DEPA-100003', cash: '0', positions: [] },
    ];
    await dropFile(gateway.inbox('demo-custodian'), 'holdings-2026-11-19.xml', holdingsReport('H-DEMO-1', '2026-11-19', demo));
    const nordic = [
      { accountNumber: 'NC-200001', cash: '10.00', positions: positions(5, 3) },
      { accountNumber: 'NC-200002', cash: '99.99', positions: positions(1, 4) },
    ];
    const response = await post('/Holdings', holdingsReport('H-NORDIC-1', '2026-11-19', nordic, NORDIC.organisationNumber), NORDIC.id, REST_PASSWORD, '?wait=30');
    assert.equal(response.status, 200);
    const restBody = await response.text();
    assert.match(restBody, /<HoldingsResponse[\s\S]*<InResponseTo>H-NORDIC-1<\/InResponseTo>[\s\S]*<Status>Accepted<\/Status>/);
    assert.match(restBody, /<AccountsAccepted>2<\/AccountsAccepted>[\s\S]*<RecordsLoaded>6<\/RecordsLoaded>/);

    const folder = await acknowledgementOf('demo-custodian', 'holdings-2026-11-19.xml');
    assert.equal(folder.status, 'applied');
    assert.match(folder.body, /<Status>Accepted<\/Status>[\s\S]*<AccountsReceived>3<\/AccountsReceived>[\s\S]*<AccountsAccepted>3<\/AccountsAccepted>[\s\S]*<RecordsLoaded>15<\/RecordsLoaded>/);

    for (const account of [...demo, ...nordic]) {
      const row = await valuation(account.accountNumber, '2026-11-19');
      assert.ok(row, `valuation of ${account.accountNumber}`);
      assert.equal(BigInt(Math.round(Number(row.total_value) * 100)), valueOre(account.cash, account.positions), account.accountNumber);
      assert.equal(row.position_count, account.positions.length);
      assert.equal(await positionCount(account.accountNumber, '2026-11-19'), account.positions.length);
    }
    // The acknowledgement also waits in the custodian's outbox, and the arrival is on record.
    const { rows } = await gateway.deps.db.query<{ custodian_id: string; status: string }>(
      `SELECT custodian_id, status FROM custodian_report_deadlines WHERE kind = 'Holdings' AND due_day = '2026-11-20' ORDER BY custodian_id`,
    );
    assert.deepEqual(rows.map((r) => r.custodian_id), ['demo-custodian', NORDIC.id]);
  });

  test('a bad position, an unknown or foreign account and a repeated ISIN reject only their accounts', async () => {
    const good = { accountNumber: 'DEPA-100004', cash: '5.00', positions: positions(4, 5) };
    const badIsin = holdingsAccount({ accountNumber: 'DEPA-100005', cash: '1.00', positions: [{ isin: 'SE-NOT-AN-ISIN', quantity: '1', marketValue: '1.00' }] });
    const xml = holdingsReport('H-MIXED', '2026-11-18', [
      good,
      badIsin,
      { accountNumber: 'DEPA-999999', cash: '1.00', positions: [] },
      { accountNumber: 'NC-200001', cash: '1.00', positions: [] },
      { accountNumber: 'DEPA-100006', cash: '1.00', positions: [...positions(2, 6), positions(1, 6)[0] as PositionSpec] },
    ]);
    await dropFile(gateway.inbox('demo-custodian'), 'holdings-mixed.xml', xml);
    const ack = await acknowledgementOf('demo-custodian', 'holdings-mixed.xml');
    assert.equal(ack.status, 'applied');
    assert.match(ack.body, /<Status>PartiallyAccepted<\/Status>/);
    assert.match(ack.body, /<AccountsReceived>5<\/AccountsReceived>\s*<AccountsAccepted>1<\/AccountsAccepted>\s*<AccountsRejected>4<\/AccountsRejected>\s*<RecordsLoaded>4<\/RecordsLoaded>/);
    const rejected = [...ack.body.matchAll(/<RejectedAccount>\s*<AccountNumber>([^<]+)<\/AccountNumber>\s*<Code>([^<]+)<\/Code>\s*<Text>([^<]+)<\/Text>\s*<Line>(\d+)<\/Line>/g)]
      .map((m) => ({ account: m[1], code: m[2], text: m[3], line: Number(m[4]) }));
    assert.deepEqual(rejected.map((r) => [r.account, r.code]), [
      ['DEPA-100005', 'ACCOUNT_SCHEMA_VIOLATION'],
      ['DEPA-999999', 'CUSTODY_ACCOUNT_UNKNOWN'],
      ['NC-200001', 'CUSTODY_ACCOUNT_UNKNOWN'],
      ['DEPA-100006', 'POSITION_DUPLICATE'],
    ]);
    const isinLine = xml.split('\n').findIndex((line) => line.includes('SE-NOT-AN-ISIN')) + 1;
    assert.match(rejected[0]?.text ?? '', new RegExp(`line ${isinLine}: .*Isin`));
    assert.equal(rejected[0]?.line, xml.split('\n').findIndex((line) => line.includes('DEPA-100005')));
    assert.ok(await valuation('DEPA-100004', '2026-11-18'));
    for (const account of ['DEPA-100005', 'DEPA-100006', 'NC-200001']) {
      assert.equal(await valuation(account, '2026-11-18'), undefined, account);
      assert.equal(await positionCount(account, '2026-11-18'), 0, account);
    }
  });

  test('a report larger than the database limit is kept in the document store and read as a stream', async () => {
    const many = positions(1200, 7);
    const xml = holdingsReport('H-LARGE', '2026-11-17', [{ accountNumber: 'DEPA-100001', cash: '0.00', positions: many }, { accountNumber: 'DEPA-100002', cash: '1.00', positions: positions(800, 8) }]);
    assert.ok(Buffer.byteLength(xml) > 64 * 1024);
    await dropFile(gateway.inbox('demo-custodian'), 'holdings-large.xml', xml);
    const ack = await acknowledgementOf('demo-custodian', 'holdings-large.xml');
    assert.match(ack.body, /<Status>Accepted<\/Status>[\s\S]*<RecordsLoaded>2000<\/RecordsLoaded>/);
    const { rows } = await gateway.deps.db.query<{ raw: Buffer | null; raw_location: string | null }>(
      `SELECT raw, raw_location FROM messages WHERE external_id = 'holdings-large.xml'`,
    );
    assert.equal(rows[0]?.raw, null);
    assert.match(rows[0]?.raw_location ?? '', /\.xml$/);
    assert.equal(await positionCount('DEPA-100001', '2026-11-17'), 1200);
    assert.equal(BigInt(Math.round(Number((await valuation('DEPA-100001', '2026-11-17'))?.total_value) * 100)), valueOre('0.00', many));
  });

  test('a large report handed over in memory (not as a file) is kept in the document store too', async () => {
    const many = positions(1500, 12);
    const xml = holdingsReport('H-LARGE-BYTES', '2026-11-11', [{ accountNumber: 'DEPA-100005', cash: '0.00', positions: many }]);
    assert.ok(Buffer.byteLength(xml) > 64 * 1024);
    await gateway.intake.receive({
      channel: 'cli', counterpartyId: 'demo-custodian', externalId: 'holdings-large-bytes.xml', receivedAt: new Date(),
      content: { bytes: Buffer.from(xml) }, metadata: { fileName: 'holdings-large-bytes.xml' },
    });
    const ack = await acknowledgementOf('demo-custodian', 'holdings-large-bytes.xml');
    assert.match(ack.body, /<Status>Accepted<\/Status>[\s\S]*<RecordsLoaded>1500<\/RecordsLoaded>/);
    const { rows } = await gateway.deps.db.query<{ raw: Buffer | null; raw_location: string | null }>(
      `SELECT raw, raw_location FROM messages WHERE external_id = 'holdings-large-bytes.xml'`,
    );
    assert.equal(rows[0]?.raw, null);
    assert.ok(rows[0]?.raw_location);
    assert.equal(await positionCount('DEPA-100005', '2026-11-11'), 1500);
  });

  test('a report that breaks half-way, or names another custodian, is rejected whole and loads nothing', async () => {
    const accounts = Array.from({ length: 6 }, (_, i) => holdingsAccount({ accountNumber: `DEPA-10000${i + 1}`, cash: '1.00', positions: positions(400, i) }));
    const broken = `${holdingsHead('H-BROKEN', '2026-11-16')}${accounts.join('')}  <Account><AccountNumber>DEPA-100001</Oops>\n</Holdings>\n`;
    await dropFile(gateway.inbox('demo-custodian'), 'holdings-broken.xml', broken);
    const ack = await acknowledgementOf('demo-custodian', 'holdings-broken.xml');
    assert.equal(ack.status, 'rejected');
    assert.match(ack.body, /<Status>Rejected<\/Status>[\s\S]*<Code>XML_MALFORMED<\/Code>/);
    const { rows } = await gateway.deps.db.query<{ n: string }>(`SELECT count(*) AS n FROM custody_positions WHERE as_of = '2026-11-16'`);
    assert.equal(Number(rows[0]?.n), 0);

    await dropFile(gateway.inbox('demo-custodian'), 'holdings-foreign.xml', holdingsReport('H-FOREIGN', '2026-11-16', [{ accountNumber: 'DEPA-100001', cash: '1.00', positions: [] }], NORDIC.organisationNumber));
    const foreign = await acknowledgementOf('demo-custodian', 'holdings-foreign.xml');
    assert.match(foreign.body, /<Code>CUSTODIAN_MISMATCH<\/Code>/);
    assert.equal(await valuation('DEPA-100001', '2026-11-16'), undefined);
  });

  test('a re-sent day replaces the earlier report account by account', async () => {
    await dropFile(gateway.inbox('demo-custodian'), 'holdings-first.xml', holdingsReport('H-FIRST', '2026-11-13', [{ accountNumber: 'DEPA-100003', cash: '1.00', positions: positions(6, 9) }]));
    await acknowledgementOf('demo-custodian', 'holdings-first.xml');
    const corrected = positions(2, 10);
    await dropFile(gateway.inbox('demo-custodian'), 'holdings-corrected.xml', holdingsReport('H-CORRECTED', '2026-11-13', [{ accountNumber: 'DEPA-100003', cash: '2.00', positions: corrected }]));
    await acknowledgementOf('demo-custodian', 'holdings-corrected.xml');
    assert.equal(await positionCount('DEPA-100003', '2026-11-13'), 2);
    assert.equal(BigInt(Math.round(Number((await valuation('DEPA-100003', '2026-11-13'))?.total_value) * 100)), valueOre('2.00', corrected));
  });

  test('Transactions by REST and by folder: each transaction recorded once, however often reported', async () => {
    const day = [
      { id: 'T-1', type: 'Deposit', tradeDate: '2026-11-19', amount: '1800.00' },
      { id: 'T-2', type: 'Buy', tradeDate: '2026-11-19', settlementDate: '2026-11-21', isin: 'SE0000000012', quantity: '10.5', amount: '-1750.00' },
      { id: 'T-3', type: 'Fee', tradeDate: '2026-11-19', amount: '-90.00' },
    ];
    const response = await post('/Transactions', transactionsReport('T-REST-1', '2026-11-19', [{ accountNumber: 'DEPA-100001', transactions: day }]), 'demo-custodian', REST_PASSWORD, '?wait=30');
    assert.equal(response.status, 200);
    assert.match(await response.text(), /<TransactionsResponse[\s\S]*<Status>Accepted<\/Status>[\s\S]*<RecordsLoaded>3<\/RecordsLoaded>/);

    // The same transactions again with one new one, and an account with an id used twice.
    const again = transactionsReport('T-FOLDER-1', '2026-11-19', [
      { accountNumber: 'DEPA-100001', transactions: [...day, { id: 'T-4', type: 'Dividend', tradeDate: '2026-11-19', isin: 'SE0000000012', amount: '12.00' }] },
      { accountNumber: 'DEPA-100002', transactions: [day[0] as never, day[0] as never] },
    ]);
    await dropFile(gateway.inbox('demo-custodian'), 'transactions-again.xml', again);
    const ack = await acknowledgementOf('demo-custodian', 'transactions-again.xml');
    assert.match(ack.body, /<Status>PartiallyAccepted<\/Status>[\s\S]*<RecordsLoaded>1<\/RecordsLoaded>[\s\S]*<Code>TRANSACTION_ID_DUPLICATE<\/Code>/);
    const { rows } = await gateway.deps.db.query<{ transaction_id: string; amount: string }>(
      `SELECT transaction_id, amount FROM custody_transactions WHERE account_number = 'DEPA-100001' ORDER BY transaction_id`,
    );
    assert.deepEqual(rows.map((r) => [r.transaction_id, Number(r.amount)]), [['T-1', 1800], ['T-2', -1750], ['T-3', -90], ['T-4', 12]]);
  });

  test('the REST door: credentials, duplicates and fetching the acknowledgement later', async () => {
    const xml = holdingsReport('H-REST-LATER', '2026-11-12', [{ accountNumber: 'DEPA-100002', cash: '3.00', positions: positions(2, 11) }]);
    assert.equal((await post('/Holdings', xml, 'demo-custodian', 'wrong-password-here')).status, 401);
    const wrongUser = await post('/Holdings', xml, 'demo-employer', REST_PASSWORD);
    assert.equal(wrongUser.status, 401);
    assert.equal(((await wrongUser.json()) as { code: string }).code, 'COUNTERPARTY_AUTHENTICATION_REQUIRED');

    const accepted = await post('/Holdings', xml);
    assert.equal(accepted.status, 202);
    const receipt = (await accepted.json()) as { messageId: string; acknowledgement: string };
    const later = await waitFor(async () => {
      const response = await fetch(`${baseUrl}${receipt.acknowledgement}`, { headers: { authorization: `Basic ${Buffer.from(`demo-custodian:${REST_PASSWORD}`).toString('base64')}` } });
      return response.status === 200 ? response.text() : undefined;
    }, 'acknowledgement over REST');
    assert.match(later, /<InResponseTo>H-REST-LATER<\/InResponseTo>/);
    const foreign = await fetch(`${baseUrl}${receipt.acknowledgement}`, { headers: { authorization: `Basic ${Buffer.from(`${NORDIC.id}:${REST_PASSWORD}`).toString('base64')}` } });
    assert.equal(foreign.status, 404);

    const duplicate = await post('/Holdings', xml);
    assert.equal(duplicate.status, 409);
    assert.match(((await duplicate.json()) as { message: string }).message, new RegExp(receipt.messageId));
  });
});
