/**
 * CostAndCharges end to end on the real PostgreSQL: a custodian's yearly cost report
 * goes through intake, validation and apply like any document; an account whose
 * categories do not sum is rejected with the difference stated while the others are
 * recorded; a re-sent report replaces the account's row for that year; another
 * custodian's account is answered exactly like an account that does not exist and
 * is left untouched; an employer may not send the report at all.
 */
import { describe, test, beforeAll, afterAll, beforeEach, afterEach } from '@jest/globals';
import assert from 'node:assert/strict';
import { createDemoLedgerTemplate, createTestDatabase, startTestGateway, type TestDatabase, type TestGateway } from './support/harness.ts';
import { reportHead } from './support/custodian-reports.ts';

interface Account {
  readonly number: string;
  readonly services: string;
  readonly thirdParty: string;
  readonly product: string;
  readonly refund?: string;
  readonly total: string;
}

function report(messageId: string, year: number, accounts: readonly Account[]): string {
  const body = accounts.map((a) => [
    '  <Account>',
    `    <AccountNumber>${a.number}</AccountNumber>`,
    `    <InvestmentServices>${a.services}</InvestmentServices>`,
    `    <ThirdPartyPayments>${a.thirdParty}</ThirdPartyPayments>`,
    `    <InvestmentProductCost>${a.product}</InvestmentProductCost>`,
    ...(a.refund === undefined ? [] : [`    <Refund>${a.refund}</Refund>`]),
    `    <TotalCosts>${a.total}</TotalCosts>`,
    '  </Account>',
  ].join('\n'));
  return [reportHead('CostAndCharges', messageId, ['Year', year], { createdAt: '2026-03-16T09:00:00+01:00' }), ...body, '</CostAndCharges>', ''].join('\n');
}

interface Answer {
  readonly messageId: string;
  readonly outcome: string;
  readonly documentType: string;
  readonly body: string;
}

async function send(gateway: TestGateway, from: string, xml: string, externalId: string): Promise<Answer> {
  const receipt = await gateway.intake.receive({
    channel: 'cli', counterpartyId: from, externalId, receivedAt: new Date(),
    content: { bytes: Buffer.from(xml) }, metadata: { fileName: `${externalId}.xml` },
  });
  const { rows } = await gateway.deps.db.query<{ outcome: string; document_type: string; body: string }>(
    `SELECT m.outcome, r.document_type, r.body FROM messages m JOIN responses r ON r.message_id = m.id WHERE m.id = $1`,
    [receipt.messageId],
  );
  const row = rows[0];
  assert.ok(row, 'the report has a response');
  return { messageId: receipt.messageId, outcome: row.outcome, documentType: row.document_type, body: row.body };
}

interface CostRow {
  account_number: string;
  year: number;
  investment_services: string;
  third_party_payments: string;
  investment_product_cost: string;
  refund: string;
  total_costs: string;
  message_id: string;
}

async function costRows(gateway: TestGateway): Promise<CostRow[]> {
  const { rows } = await gateway.deps.db.query<CostRow>(
    `SELECT account_number, year, investment_services::text, third_party_payments::text, investment_product_cost::text,
            refund::text, total_costs::text, message_id
       FROM custody_costs ORDER BY account_number, year`,
  );
  return rows;
}

/** The <Item> of the response about one account, as text. */
function itemOf(body: string, accountNumber: string): string {
  const item = [...body.matchAll(/<Item>[\s\S]*?<\/Item>/g)].map((m) => m[0]).find((text) => text.includes(`<ItemId>${accountNumber}</ItemId>`));
  assert.ok(item, `the response answers ${accountNumber}`);
  return item;
}

let template: TestDatabase;
let database: TestDatabase;
let gateway: TestGateway;

beforeAll(async () => {
  template = await createDemoLedgerTemplate();
});
afterAll(() => template?.drop());
beforeEach(async () => {
  database = await createTestDatabase(template.name);
  gateway = await startTestGateway({ roles: [], inline: true, database });
});
afterEach(async () => {
  await gateway.destroy();
  await database.drop();
});

describe('CostAndCharges', () => {
  test('an account whose categories do not sum is rejected with the difference; the others are recorded', async () => {
    const answer = await send(gateway, 'demo-custodian', report('CC-T-1', 2025, [
      { number: 'DEPA-100001', services: '120.00', thirdParty: '30.00', product: '810.00', refund: '40.00', total: '1000.00' },
      { number: 'DEPA-100002', services: '120.00', thirdParty: '30.00', product: '800.00', refund: '40.00', total: '1000.00' },
    ]), 'cc-t-1');

    assert.equal(answer.outcome, 'partially_accepted');
    assert.equal(answer.documentType, 'CostAndChargesResponse');
    assert.match(answer.body, /<InResponseTo>CC-T-1<\/InResponseTo>/);
    assert.match(itemOf(answer.body, 'DEPA-100001'), /<Status>Accepted<\/Status>/);
    const rejected = itemOf(answer.body, 'DEPA-100002');
    assert.match(rejected, /<Code>COST_CATEGORIES_MISMATCH<\/Code>/);
    assert.match(
      rejected,
      /<Text>InvestmentServices 120\.00 \+ ThirdPartyPayments 30\.00 \+ InvestmentProductCost 800\.00 = 950\.00, but TotalCosts 1000\.00 − Refund 40\.00 = 960\.00: the categories are 10\.00 short\.<\/Text>/,
    );
    assert.deepEqual(await costRows(gateway), [{
      account_number: 'DEPA-100001', year: 2025, investment_services: '120.00', third_party_payments: '30.00',
      investment_product_cost: '810.00', refund: '40.00', total_costs: '1000.00', message_id: answer.messageId,
    }]);
  });

  test('a re-sent report for the same account and year replaces the row; another year is kept beside it', async () => {
    const first = await send(gateway, 'demo-custodian', report('CC-T-2a', 2025, [
      { number: 'DEPA-100001', services: '100.00', thirdParty: '0', product: '900.00', total: '1000.00' },
      { number: 'DEPA-100002', services: '50.00', thirdParty: '0', product: '50.00', total: '100.00' },
    ]), 'cc-t-2a');
    const earlierYear = await send(gateway, 'demo-custodian', report('CC-T-2b', 2024, [
      { number: 'DEPA-100001', services: '80.00', thirdParty: '0', product: '700.00', total: '780.00' },
    ]), 'cc-t-2b');
    const correction = await send(gateway, 'demo-custodian', report('CC-T-2c', 2025, [
      { number: 'DEPA-100001', services: '110.00', thirdParty: '5.00', product: '900.00', refund: '15.00', total: '1030.00' },
    ]), 'cc-t-2c');
    for (const answer of [first, earlierYear, correction]) assert.equal(answer.outcome, 'accepted', answer.body);

    const rows = await costRows(gateway);
    assert.deepEqual(rows.map((r) => [r.account_number, r.year, r.total_costs, r.refund, r.message_id]), [
      ['DEPA-100001', 2024, '780.00', '0.00', earlierYear.messageId],
      ['DEPA-100001', 2025, '1030.00', '15.00', correction.messageId],
      ['DEPA-100002', 2025, '100.00', '0.00', first.messageId],
    ]);
  });

  test("another custodian's account is answered like an unknown one and left untouched", async () => {
    await gateway.deps.db.query(`INSERT INTO custody_accounts (account_number, custodian_id, opened_on) VALUES ('OTHER-1', 'other-custodian', '2020-01-01')`);
    await gateway.deps.db.query(
      `INSERT INTO custody_costs (account_number, year, investment_services, third_party_payments, investment_product_cost, refund, total_costs, message_id)
       VALUES ('OTHER-1', 2025, 1, 2, 3, 0, 6, 'seeded')`,
    );
    const answer = await send(gateway, 'demo-custodian', report('CC-T-3', 2025, [
      { number: 'OTHER-1', services: '10.00', thirdParty: '0', product: '0', total: '10.00' },
      { number: 'NOSUCH-1', services: '10.00', thirdParty: '0', product: '0', total: '10.00' },
    ]), 'cc-t-3');

    assert.equal(answer.outcome, 'rejected');
    const texts = ['OTHER-1', 'NOSUCH-1'].map((number) => {
      const item = itemOf(answer.body, number);
      assert.match(item, /<Code>CUSTODY_ACCOUNT_UNKNOWN<\/Code>/);
      return /<Text>(.*)<\/Text>/.exec(item)?.[1]?.replace(number, '<account>');
    });
    assert.equal(texts[0], texts[1], 'the answer does not tell a foreign account from a missing one');
    assert.deepEqual((await costRows(gateway)).map((r) => [r.account_number, r.total_costs, r.message_id]), [['OTHER-1', '6.00', 'seeded']]);
  });

  test('an employer may not send a CostAndCharges report', async () => {
    const answer = await send(gateway, 'demo-employer', report('CC-T-4', 2025, [
      { number: 'DEPA-100001', services: '10.00', thirdParty: '0', product: '0', total: '10.00' },
    ]), 'cc-t-4');
    assert.equal(answer.outcome, 'rejected');
    assert.equal(answer.documentType, 'CostAndChargesResponse');
    assert.match(answer.body, /<Code>MESSAGE_TYPE_NOT_ALLOWED<\/Code>/);
    assert.deepEqual(await costRows(gateway), []);
  });
});
