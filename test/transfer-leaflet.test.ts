/**
 * The transfer leaflet (flyttblad) end to end, on the embedded database and on
 * PostgreSQL, with the gateway's workers on Redis:
 * - out: the demo custodian's Holdings value Anna's custody account; staff record that her
 *   occupational pension INS-100001 moved to the demo insurer; the leaflet is written once,
 *   valid against its schema, with that value, and delivered once to the insurer's outbox —
 *   a delivery job run again and a second end change nothing; an end to an insurer with no
 *   custody value to state is refused whole;
 * - in: the demo insurer's leaflet registers a new insurance awaiting the money and is
 *   answered with its number, and is in force with a custody account once staff record
 *   the money arrived; a bad leaflet is answered with its code and registers nothing; the
 *   console lists both and gives each as a PDF.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { outgoingDeliveryKey } from '../src/pipeline/deliver-outgoing.ts';
import { consolePage, signInToConsole } from './support/console-session.ts';
import { startTestGateway, waitFor, type TestGateway, type TestGatewayOptions } from './support/harness.ts';

const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));
const FIXTURES = join(PROJECT_ROOT, 'fixtures');
const LEAFLET_FILE = 'TL-INS-100001.TransferLeaflet.xml';

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];

describe.each(ENGINES)('transfer leaflets on %s', (_engine, engine) => {
  let gateway: TestGateway;
  const sql = async <Row>(text: string, params: unknown[] = []) => (await gateway.deps.db.query<Row>(text, params)).rows;

  /** Sends a document through the staff API as `from`; gives its status and response once answered. */
  async function send(from: string, document: string, name: string): Promise<{ status: string; body: string; id: string }> {
    const posted = await gateway.http!.inject({
      method: 'POST', url: `/api/messages?from=${from}&name=${name}`, headers: { ...STAFF, 'content-type': 'application/xml' }, payload: document,
    });
    assert.equal(posted.statusCode, 202, posted.body);
    const id = (posted.json() as { messageId: string }).messageId;
    await waitFor(async () => ['applied', 'rejected'].includes((await sql<{ status: string }>('SELECT status FROM messages WHERE id = $1', [id]))[0]?.status ?? ''), `${name} answered`);
    const [row] = await sql<{ status: string; body: string }>('SELECT m.status, r.body FROM messages m JOIN responses r ON r.message_id = m.id WHERE m.id = $1', [id]);
    return { ...row!, id };
  }

  const end = (insurance: string, payload: Record<string, unknown>) =>
    gateway.http!.inject({ method: 'POST', url: `/api/insurances/${insurance}/end`, headers: STAFF, payload });
  const leafletFiles = async () => (await readdir(gateway.outbox('demo-insurer'))).filter((name) => name.endsWith('.TransferLeaflet.xml'));

  beforeAll(async () => {
    gateway = await startTestGateway({ ...engine, roles: ['api', 'worker'] });
    const holdings = await send('demo-custodian', await readFile(join(FIXTURES, 'Holdings', 'valid', 'all-accounts.xml'), 'utf8'), 'holdings.xml');
    assert.equal(holdings.status, 'applied', holdings.body);
  }, 120_000);
  afterAll(() => gateway?.destroy());

  test('an insurance ended transferred out to an insurer sends it one leaflet, schema-valid, with the custody value, delivered once', async () => {
    const ended = await end('INS-100001', { cause: 'transferred-out', date: '2026-11-20', receivingInsurer: 'demo-insurer' });
    assert.equal(ended.statusCode, 201, ended.body);
    assert.deepEqual((ended.json() as { transferLeaflet: unknown }).transferLeaflet, { documentId: 'TL-INS-100001', receivingInsurer: 'demo-insurer' });

    await waitFor(async () => (await leafletFiles()).includes(LEAFLET_FILE), 'the leaflet in the insurer\'s outbox');
    const xml = await readFile(join(gateway.outbox('demo-insurer'), LEAFLET_FILE), 'utf8');
    assert.deepEqual(schemas.validate(xml, 'TransferLeaflet'), [], 'valid against schemas/TransferLeaflet.xsd');
    const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
    // DEPA-100001 on 2026-11-19: cash 1 520.35 + 18 450.20 + 9 120.00 + 2 211.40.
    assert.deepEqual(
      ['ReleasingInsurer', 'ReceivingInsurer', 'ReleasingReference', 'InsuranceNumber', 'InsuranceType', 'TaxCategory', 'LastDayInForce', 'Policyholder', 'Insured', 'Amount', 'ValueDate',
        'PayoutRestriction', 'EarliestPayoutAge', 'MinimumPayoutMonths', 'RepaymentProtection'].map(field),
      ['5560360793', '5164012345', 'FLYTT-INS-100001', 'INS-100001', 'T', 'P', '2026-11-20', '5561234567', '197001011233', '31301.95', '2026-11-19', 'pension', '65', '60', 'false'],
    );

    await waitFor(async () => (await sql<{ delivered: boolean }>(`SELECT delivered_at IS NOT NULL AS delivered FROM outgoing_documents WHERE document_id = 'TL-INS-100001'`))[0]?.delivered === true, 'delivery recorded');
    // A delivery job run again (a retry, the reconciler) and a second end send nothing more.
    await gateway.deps.scheduler.enqueue('deliver', [outgoingDeliveryKey('TL-INS-100001')], { separately: true });
    const again = await end('INS-100001', { cause: 'transferred-out', date: '2026-11-20', receivingInsurer: 'demo-insurer' });
    assert.equal(again.statusCode, 409, again.body);
    assert.equal((again.json() as { code: string }).code, 'INSURANCE_ALREADY_ENDED');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(await sql(`SELECT outcome FROM outgoing_deliveries WHERE document_id = 'TL-INS-100001'`), [{ outcome: 'delivered' }], 'one delivery attempt');
    assert.deepEqual(await sql(`SELECT insurance_number, receiving_insurer, value::text AS value FROM transfer_leaflets_out`), [
      { insurance_number: 'INS-100001', receiving_insurer: 'demo-insurer', value: '31301.95' },
    ]);
    assert.deepEqual([...await leafletFiles()], [LEAFLET_FILE], 'one leaflet file');
  }, 60_000);

  test('an end to an insurer is refused whole when no custody value can be stated, and one to a counterparty that is no insurer', async () => {
    // INS-100006's account DEPA-100006 has no reported value.
    const refused = await end('INS-100006', { cause: 'transferred-out', date: '2026-11-20', receivingInsurer: 'demo-insurer' });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal((refused.json() as { code: string }).code, 'TRANSFER_VALUE_UNKNOWN');
    const notInsurer = await end('INS-100006', { cause: 'transferred-out', date: '2026-11-20', receivingInsurer: 'demo-custodian' });
    assert.equal(notInsurer.statusCode, 400, notInsurer.body);
    assert.match(notInsurer.body, /demo-custodian is not an insurer counterparty/);
    assert.deepEqual(await sql(`SELECT end_date FROM insurances WHERE insurance_number = 'INS-100006'`), [{ end_date: null }], 'not ended');
    assert.deepEqual(await sql(`SELECT document_id FROM outgoing_documents WHERE document_id = 'TL-INS-100006'`), []);
  });

  test("an insurer's leaflet registers a new insurance awaiting the money, answered with its number", async () => {
    const leaflet = await readFile(join(FIXTURES, 'TransferLeaflet', 'valid', 'private-pension-moves-in.xml'), 'utf8');
    const answer = await send('demo-insurer', leaflet, 'leaflet-in.xml');
    assert.equal(answer.status, 'applied', answer.body);
    assert.deepEqual(schemas.validate(answer.body, 'TransferLeafletResponse'), []);
    const number = /<ItemId>DLI-4471190<\/ItemId>\s*<Status>Accepted<\/Status>\s*<Reference>(INS-\d+)<\/Reference>/.exec(answer.body)?.[1];
    assert.ok(number, answer.body);
    const view = await gateway.http!.inject({ method: 'GET', url: `/api/insurances/${number}`, headers: STAFF });
    assert.equal(view.statusCode, 200, view.body);
    const insurance = view.json() as { status: string; startDate: string; product: { code: string } };
    assert.deepEqual([insurance.status, insurance.startDate, insurance.product.code], ['awaiting money', '2026-11-01', 'PPF-DEPA']);
    assert.deepEqual(await sql('SELECT insurance_number, value::text AS value, money_received_on FROM transfer_leaflets_in WHERE message_id = $1', [answer.id]), [
      { insurance_number: number, value: '184250.00', money_received_on: null },
    ]);
    await waitFor(async () => (await readdir(gateway.outbox('demo-insurer'))).some((name) => name.includes(answer.id) && name.endsWith('.TransferLeafletResponse.xml')), 'the answer delivered to the insurer');

    // The money arrives at the demo custodian: the insurance gets its custody account there and is in force; once only.
    const money = (payload: Record<string, unknown>) => gateway.http!.inject({ method: 'POST', url: `/api/insurances/${number}/transfer-money`, headers: STAFF, payload });
    const received = await money({ date: '2026-11-21', custodian: 'demo-custodian' });
    assert.equal(received.statusCode, 201, received.body);
    assert.deepEqual(received.json(), { insuranceNumber: number, receivedOn: '2026-11-21', custodyAccount: `DEPA-${number.slice(4)}`, custodianId: 'demo-custodian' });
    const after = (await gateway.http!.inject({ method: 'GET', url: `/api/insurances/${number}`, headers: STAFF })).json() as { status: string; custody: { accountNumber: string } };
    assert.deepEqual([after.status, after.custody.accountNumber], ['in force', `DEPA-${number.slice(4)}`]);
    const twice = await money({ date: '2026-11-21', custodian: 'demo-custodian' });
    assert.equal(twice.statusCode, 409, twice.body);
    assert.equal((twice.json() as { code: string }).code, 'TRANSFER_MONEY_ALREADY_RECORDED');
    assert.equal((await gateway.http!.inject({ method: 'POST', url: '/api/insurances/INS-100002/transfer-money', headers: STAFF, payload: { date: '2026-11-21', custodian: 'demo-custodian' } })).statusCode, 404);
  }, 60_000);

  test('a bad leaflet is answered with its code and registers nothing', async () => {
    const before = await sql<{ count: string }>('SELECT count(*)::text AS count FROM insurances');
    const bad = (await readFile(join(FIXTURES, 'TransferLeaflet', 'valid', 'private-pension-moves-in.xml'), 'utf8'))
      .replace('<MessageId>DLI-TL-2026-0042</MessageId>', '<MessageId>DLI-TL-BAD-1</MessageId>')
      .replace('<InsuranceNumber>DLI-4471190</InsuranceNumber>', '<InsuranceNumber>DLI-4471191</InsuranceNumber>')
      .replace('<EarliestPayoutAge>60</EarliestPayoutAge>', '<EarliestPayoutAge>50</EarliestPayoutAge>');
    const answer = await send('demo-insurer', bad, 'leaflet-bad.xml');
    assert.equal(answer.status, 'rejected');
    assert.match(answer.body, /<Status>Rejected<\/Status>\s*<\/Header>\s*<Error>\s*<Code>TRANSFER_CONDITIONS_INVALID<\/Code>/);
    assert.deepEqual(await sql('SELECT message_id FROM transfer_leaflets_in WHERE message_id = $1', [answer.id]), []);
    assert.deepEqual(await sql<{ count: string }>('SELECT count(*)::text AS count FROM insurances'), before, 'no insurance registered');
  }, 60_000);

  test('staff see the leaflets sent and received, each as a PDF', async () => {
    const session = await signInToConsole(gateway.http!, 'staff', 'test-password');
    const listed = await consolePage(gateway.http!, session, '/console/transfer-leaflets');
    assert.match(listed, /FLYTT-INS-100001/);
    assert.match(listed, /DLI-FLYTT-88123/);
    assert.match(listed, /money received/);
    const pdf = await gateway.http!.inject({ method: 'GET', url: '/console/transfer-leaflets/out/INS-100001.pdf', headers: { cookie: session.cookie } });
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
  });
});
