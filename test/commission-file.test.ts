/**
 * The commission file end to end, on the embedded database and on PostgreSQL: the demo
 * advisor firm drops CommissionFiles in its inbox folder and is answered item by item in
 * its outbox (a bad line with its code, leaving no row; a file for another firm rejected
 * whole), and sends one by SSEK (signed) answered in the SOAP body; the Q4 2026 debit run debits the accepted fees as AdvisorFee lines of the
 * DebitAccounts file, once (a repeat and the next quarter's run take none again); the
 * custodian's Transactions show the debits (one Fee of the fee alone, one of the
 * account's whole debit); the March 2027 commission payment pays the firm what was
 * debited in one pain.001 payment order and a CommissionStatement in its outbox, valid
 * against their schemas; the fee not yet shown debited waits for April's.
 *
 * The ledger: the demo firm 5565555553 gets an intermediation power on the demo employer
 * 5561234567, policyholder of the demo insurances. Caps (demo): 1 % and 6 000 SEK a year.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { PaymentOrderSchema } from '../src/messages/payment-order.schema.ts';
import { commissionPaymentJob } from '../src/calendar/commission-payments.job.ts';
import { runDuePeriods } from '../src/calendar/calendar.scheduler.ts';
import { makeRun, runDebitRun, runDepsFrom } from '../src/calendar/debit-run.ts';
import { consolePage, signInToConsole } from './support/console-session.ts';
import { makeTestCertificates, type TestCertificates } from './support/certificates.ts';
import { envelope, signEnvelope } from './support/ssek-envelopes.ts';
import { dropFile, startTestGateway, testSettings, waitFor, type TestGateway, type TestGatewayOptions } from './support/harness.ts';

const FIRM = 'demo-advisor-firm';
/** The gateway's clock: its calendar catch-up at start runs the runs due by then, none of those tested here. */
const NOW = new Date('2026-11-27T10:00:00Z');
/** When the March 2027 commission payment is due. */
const PAY_DAY = new Date('2027-03-05T06:15:00Z');
const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));
const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];

function commissionFile(messageId: string, items: readonly string[], firm = '5565555553'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<CommissionFile xmlns="urn:se:depot-gateway:v1">
  <Header><MessageId>${messageId}</MessageId><CreatedAt>2026-11-26T09:00:00+01:00</CreatedAt><AdvisorFirmOrganisationNumber>${firm}</AdvisorFirmOrganisationNumber></Header>
${items.join('\n')}
</CommissionFile>
`;
}

const item = (itemId: string, insurance: string, from: string, to: string, fee: string) =>
  `  <Item><ItemId>${itemId}</ItemId><InsuranceNumber>${insurance}</InsuranceNumber><PeriodFrom>${from}</PeriodFrom><PeriodTo>${to}</PeriodTo>${fee}</Item>`;

describe.each(ENGINES)('the commission file on %s', (_engine, engine) => {
  let gateway: TestGateway;
  let certificates: TestCertificates;
  let firmKey: string;

  beforeAll(async () => {
    certificates = await makeTestCertificates();
    const firmSigning = await certificates.signing('firm-signing');
    firmKey = await readFile(firmSigning.key, 'utf8');
    gateway = await startTestGateway({
      ...engine, roles: ['api', 'worker', 'watch'], clock: () => NOW,
      settings: {
        insurerAccount: { name: 'Demo Försäkring AB', iban: 'SE4550000000058398257466', bic: 'ESSESESS' },
        // The firm may also send by SSEK (SenderId ORGNR 5565555553).
        counterparties: (testSettings('unused').counterparties as { id: string }[])
          .map((c) => (c.id === FIRM ? { ...c, ssek: { signingCertificatePath: firmSigning.cert } } : c)),
      },
    });
    const { db } = gateway.deps;
    await db.query(`INSERT INTO powers_of_attorney (holder_organisation_number, customer_id, kind, valid_from, valid_to, created_at, created_by)
      VALUES ('5565555553', '5561234567', 'intermediation', '2026-01-01', NULL, now(), 'test')`);
    await db.query(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
      SELECT account_number, as_of::date, cash, total_value - cash, total_value, 1, 'test' FROM (VALUES
        ('DEPA-100001', '2026-09-30', 0.00, 400000.00), ('DEPA-100001', '2026-12-31', 100.00, 405000.00), ('DEPA-100001', '2027-03-31', 50000.00, 410000.00),
        ('DEPA-100002', '2026-09-30', 0.00, 200000.00), ('DEPA-100002', '2026-12-31', 50000.00, 210000.00), ('DEPA-100002', '2027-03-31', 50000.00, 215000.00),
        ('DEPA-100006', '2026-09-30', 0.00, 90000.00), ('DEPA-100006', '2026-12-31', 0.00, 98000.00), ('DEPA-100006', '2027-03-31', 50000.00, 99000.00)
      ) AS v(account_number, as_of, cash, total_value)`);
  }, 120_000);
  afterAll(async () => {
    await gateway?.destroy();
    await certificates?.remove();
  });

  const outboxFiles = async (counterparty: string) => (await readdir(gateway.outbox(counterparty))).filter((name) => name.endsWith('.xml')).sort();
  async function answerTo(stem: string): Promise<string> {
    const name = await waitFor(async () => (await outboxFiles(FIRM)).find((file) => file.startsWith(`${stem}.`) && file.endsWith('.CommissionFileResponse.xml')), `the answer to ${stem}`, 60_000);
    const body = await readFile(join(gateway.outbox(FIRM), name), 'utf8');
    assert.deepEqual(schemas.validate(body, 'CommissionFileResponse'), []);
    return body;
  }
  const lines = async () => (await gateway.deps.db.query<{ item_id: string; insurance_number: string; run_key: string | null; amount: string | null; debited_on: string | null; statement_id: string | null }>(
    `SELECT item_id, insurance_number, run_key, amount::text, debited_on::text, statement_id FROM commission_lines ORDER BY insurance_number, period_from`)).rows;

  test('files in: each line answered, a bad line with its code and nothing of it written, another firm\'s file rejected whole', async () => {
    await dropFile(gateway.inbox(FIRM), 'q4.xml', commissionFile('CF-Q4', [
      item('1', 'INS-100006', '2026-10-01', '2026-12-31', '<Amount>1200.00</Amount>'),
      item('2', 'INS-100001', '2026-10-01', '2026-12-31', '<Percent>0.25</Percent>'),
    ]));
    const first = await answerTo('q4');
    assert.match(first, /<Status>Accepted<\/Status>\n {2}<\/Header>/);
    assert.equal((first.match(/<Status>Accepted<\/Status>/g) ?? []).length, 3);

    await dropFile(gateway.inbox(FIRM), 'more.xml', commissionFile('CF-MORE', [
      item('a', 'INS-100002', '2026-10-01', '2026-12-31', '<Amount>300</Amount>'),
      item('b', 'INS-100001', '2026-11-01', '2026-11-30', '<Amount>100</Amount>'),
      item('c', 'INS-100002', '2027-01-01', '2027-03-31', '<Amount>1500.01</Amount>'),
    ]));
    const second = await answerTo('more');
    assert.match(second, /<Status>PartiallyAccepted<\/Status>/);
    assert.match(second, /<ItemId>b<\/ItemId>\n {4}<Status>Rejected<\/Status>\n {4}<Code>COMMISSION_PERIOD_ALREADY_CHARGED<\/Code>\n {4}<Text>Insurance INS-100001 is already charged for 2026-10-01–2026-12-31/);
    assert.match(second, /<ItemId>c<\/ItemId>\n {4}<Status>Rejected<\/Status>\n {4}<Code>COMMISSION_ABOVE_CAP<\/Code>/);

    await dropFile(gateway.inbox(FIRM), 'other.xml', commissionFile('CF-OTHER', [item('1', 'INS-100003', '2026-10-01', '2026-12-31', '<Amount>10</Amount>')], '5567777775'));
    const third = await answerTo('other');
    assert.match(third, /<Status>Rejected<\/Status>[\s\S]*<Code>ADVISOR_FIRM_UNKNOWN<\/Code>/);

    assert.deepEqual((await lines()).map((line) => `${line.insurance_number} ${line.item_id}`), ['INS-100001 2', 'INS-100002 a', 'INS-100006 1']);
  }, 120_000);

  test('a commission file by SSEK is answered in the SOAP body, item by item', async () => {
    const answer = await gateway.http!.inject({
      method: 'POST', url: '/ssek', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '"CommissionFile"' },
      payload: signEnvelope(envelope(commissionFile('CF-SSEK', [
        item('s1', 'INS-100003', '2026-10-01', '2026-12-31', '<Percent>0.1</Percent>'),
        item('s2', 'INS-100006', '2026-12-01', '2026-12-31', '<Amount>50</Amount>'),
      ]), { sender: '5565555553' }), { key: firmKey }),
    });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.match(answer.body, /<CommissionFileResponse xmlns="urn:se:depot-gateway:v1">[\s\S]*<InResponseTo>CF-SSEK<\/InResponseTo>[\s\S]*<Status>PartiallyAccepted<\/Status>/);
    assert.match(answer.body, /<ItemId>s2<\/ItemId>\s*<Status>Rejected<\/Status>\s*<Code>COMMISSION_PERIOD_ALREADY_CHARGED<\/Code>/);
    // Cecilia's insurance is charged by the debit run below like the others: remove it again so the figures there stay the folder's.
    await gateway.deps.db.query(`DELETE FROM commission_lines WHERE item_id = 's1' AND insurance_number = 'INS-100003'`);
  }, 60_000);

  test('the next debit run debits each fee once, as an AdvisorFee line of the DebitAccounts file', async () => {
    const { db } = gateway.deps;
    const deps = runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log);
    await makeRun(db, deps, (tx) => runDebitRun(tx, deps, { year: 2026, quarter: 4 }, new Date('2027-02-26T07:00:00Z')));
    const file = await waitFor(async () => (await outboxFiles('demo-custodian')).find((name) => name.startsWith('debit-run-2026-Q4')), 'the Q4 DebitAccounts file', 60_000);
    const body = await readFile(join(gateway.outbox('demo-custodian'), file), 'utf8');
    assert.deepEqual(schemas.validate(body, 'DebitAccounts'), []);
    // 0.25 % of INS-100001's 405 000.00 on 2026-12-31; the amounts as reported for the others.
    for (const [account, amount] of [['DEPA-100001', '1012.50'], ['DEPA-100002', '300.00'], ['DEPA-100006', '1200.00']] as const) {
      assert.match(body, new RegExp(`<AccountNumber>${account}</AccountNumber>[\\s\\S]*?<Charge>AdvisorFee</Charge>\\n\\s*<Amount>${amount.replace('.', '\\.')}</Amount>\\n\\s*<PeriodFrom>2026-10-01</PeriodFrom>\\n\\s*<PeriodTo>2026-12-31</PeriodTo>`), account);
    }
    assert.deepEqual((await lines()).map((line) => [line.run_key, line.amount]), [['2026-Q4', '1012.50'], ['2026-Q4', '300.00'], ['2026-Q4', '1200.00']]);

    await makeRun(db, deps, (tx) => runDebitRun(tx, deps, { year: 2026, quarter: 4 }, new Date('2027-02-26T07:00:00Z')));
    await makeRun(db, deps, (tx) => runDebitRun(tx, deps, { year: 2027, quarter: 1 }, new Date('2027-04-30T07:00:00Z')));
    const { rows } = await db.query<{ run_key: string; n: string }>(`SELECT run_key, count(*)::text AS n FROM debit_lines WHERE charge = 'AdvisorFee' GROUP BY run_key`);
    assert.deepEqual(rows, [{ run_key: '2026-Q4', n: '3' }]);
  }, 120_000);

  test("the custodian's Transactions show the debits; the month's payment order and statement pay the firm what was debited", async () => {
    const { db } = gateway.deps;
    const { rows: [total] } = await db.query<{ sum: string }>(
      `SELECT sum(amount)::text AS sum FROM debit_lines WHERE run_key = '2026-Q4' AND account_number = 'DEPA-100006' AND charge <> 'SellOrder'`);
    await dropFile(gateway.inbox('demo-custodian'), 'transactions-2027-02-26.xml', `<?xml version="1.0" encoding="UTF-8"?>
<Transactions xmlns="urn:se:depot-gateway:v1">
  <Header><MessageId>TRANS-2027-02-26</MessageId><CreatedAt>2027-02-27T06:10:00+01:00</CreatedAt><CustodianOrganisationNumber>5560000001</CustodianOrganisationNumber></Header>
  <AsOfDate>2027-02-26</AsOfDate>
  <Account><AccountNumber>DEPA-100001</AccountNumber>
    <Transaction><TransactionId>FEE-1</TransactionId><Type>Fee</Type><TradeDate>2027-02-26</TradeDate><SettlementDate>2027-02-26</SettlementDate><Amount>-1012.50</Amount></Transaction>
  </Account>
  <Account><AccountNumber>DEPA-100006</AccountNumber>
    <Transaction><TransactionId>FEE-6</TransactionId><Type>Fee</Type><TradeDate>2027-02-26</TradeDate><SettlementDate>2027-02-26</SettlementDate><Amount>-${total!.sum}</Amount></Transaction>
  </Account>
</Transactions>
`);
    await waitFor(async () => (await outboxFiles('demo-custodian')).find((name) => name.startsWith('transactions-2027-02-26.')), 'the Transactions answer', 60_000);

    const deps = { ...runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log), advisorFirms: runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log).advisorFirms! };
    const job = commissionPaymentJob(deps);
    assert.deepEqual(job.duePeriods(PAY_DAY), ['2027-02', '2027-03']);
    assert.deepEqual(await runDuePeriods(db, job, PAY_DAY, gateway.log), ['2027-02', '2027-03']);
    assert.deepEqual(await runDuePeriods(db, job, PAY_DAY, gateway.log), [], 'a month runs once');

    const name = await waitFor(async () => (await outboxFiles(FIRM)).find((file) => file.endsWith('.CommissionStatement.xml')), 'the statement', 60_000);
    assert.equal(name, 'CS-2027-03-5565555553.CommissionStatement.xml');
    const statement = await readFile(join(gateway.outbox(FIRM), name), 'utf8');
    assert.deepEqual(schemas.validate(statement, 'CommissionStatement'), []);
    assert.match(statement, /<Total>2212\.50<\/Total>/);
    assert.deepEqual([...statement.matchAll(/<InsuranceNumber>(.*)<\/InsuranceNumber>[\s\S]*?<Debited>(.*)<\/Debited>\n\s*<DebitedOn>2027-02-26<\/DebitedOn>[\s\S]*?<Paid>(.*)<\/Paid>/g)].map((m) => m.slice(1)),
      [['INS-100001', '1012.50', '1012.50'], ['INS-100006', '1200.00', '1200.00']]);

    const { rows: orders } = await db.query<{ payment_order_id: string; purpose: string; control_sum: string; body: Uint8Array }>(
      'SELECT payment_order_id, purpose, control_sum::text, body FROM payment_orders');
    assert.deepEqual(orders.map((order) => [order.payment_order_id, order.purpose, order.control_sum]), [['PO-COMMISSION-2027-03', 'advisor-commission', '2212.50']]);
    const pain = Buffer.from(orders[0]!.body).toString('utf8');
    const painSchema = PaymentOrderSchema.load(PaymentOrderSchema.fileIn(join(PROJECT_ROOT, 'schemas')));
    try {
      assert.deepEqual(painSchema.validate(pain), []);
    } finally {
      painSchema.dispose();
    }
    assert.match(pain, /<EndToEndId>CS-2027-03-5565555553<\/EndToEndId>[\s\S]*<InstdAmt Ccy="SEK">2212\.50<\/InstdAmt>[\s\S]*<IBAN>SE9880000832790000012345<\/IBAN>/);
    assert.equal((pain.match(/<CdtTrfTxInf>/g) ?? []).length, 1, 'one aggregated payment per firm');

    // INS-100002's fee is not shown debited yet: it waits, unpaid.
    assert.deepEqual((await lines()).map((line) => [line.insurance_number, line.debited_on, line.statement_id]), [
      ['INS-100001', '2027-02-26', 'CS-2027-03-5565555553'], ['INS-100002', null, null], ['INS-100006', '2027-02-26', 'CS-2027-03-5565555553'],
    ]);

    // April's payment pays the fee the custodian shows debited in March, and nothing paid before again.
    await dropFile(gateway.inbox('demo-custodian'), 'transactions-2027-03-10.xml', `<?xml version="1.0" encoding="UTF-8"?>
<Transactions xmlns="urn:se:depot-gateway:v1">
  <Header><MessageId>TRANS-2027-03-10</MessageId><CreatedAt>2027-03-11T06:10:00+01:00</CreatedAt><CustodianOrganisationNumber>5560000001</CustodianOrganisationNumber></Header>
  <AsOfDate>2027-03-10</AsOfDate>
  <Account><AccountNumber>DEPA-100002</AccountNumber>
    <Transaction><TransactionId>FEE-2</TransactionId><Type>Fee</Type><TradeDate>2027-03-10</TradeDate><SettlementDate>2027-03-10</SettlementDate><Amount>-300.00</Amount></Transaction>
  </Account>
</Transactions>
`);
    await waitFor(async () => (await outboxFiles('demo-custodian')).find((name) => name.startsWith('transactions-2027-03-10.')), 'the March Transactions answer', 60_000);
    assert.deepEqual(await runDuePeriods(db, job, new Date('2027-04-06T06:15:00Z'), gateway.log), ['2027-04']);
    const april = await readFile(join(await waitFor(async () => (await outboxFiles(FIRM)).includes('CS-2027-04-5565555553.CommissionStatement.xml') && gateway.outbox(FIRM), 'April\'s statement', 60_000), 'CS-2027-04-5565555553.CommissionStatement.xml'), 'utf8');
    assert.deepEqual([...april.matchAll(/<InsuranceNumber>(.*)<\/InsuranceNumber>/g)].map((m) => m[1]), ['INS-100002']);
    assert.match(april, /<Total>300\.00<\/Total>/);

    // Staff see the lines and the statement in the console.
    const session = await signInToConsole(gateway.http!, 'staff', 'test-password');
    const shown = await consolePage(gateway.http!, session, '/console/commission');
    assert.match(shown, /CS-2027-03-5565555553[\s\S]*2212\.50 SEK[\s\S]*PO-COMMISSION-2027-03/);
    assert.match(shown, /INS-100002[\s\S]*?2026-Q4: 300\.00 SEK[\s\S]*?2027-03-10[\s\S]*?CS-2027-04-5565555553/);
  }, 180_000);
});
