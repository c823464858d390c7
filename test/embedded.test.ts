/**
 * The embedded default: with no DATABASE_URL the ledger and message store run on
 * PGlite in the data folder, with the same migrations, and a document still goes
 * from the folder to its response through the real Redis queues.
 */
import { test, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dropFile, startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { changeFee, PERSONS } from './support/documents.ts';
import { holdingsReport } from './support/custodian-reports.ts';

let gateway: TestGateway | undefined;
afterAll(() => gateway?.destroy());

test('a document is applied on the embedded PostgreSQL and answered', async () => {
  gateway = await startTestGateway({ embedded: true });
  assert.equal(gateway.deps.db.kind, 'pglite');
  assert.ok(existsSync(join(gateway.dataDir, 'pglite')), 'the database lives in the data folder');
  await dropFile(gateway.inbox('demo-employer'), 'embedded.xml', changeFee({ messageId: 'EMB-1' }, [
    { pin: PERSONS.cecilia, insurance: 'INS-100003', date: '2026-12-01', type: 'FixedCharge', value: '300' },
  ]));
  const outbox = gateway.outbox('demo-employer');
  const name = await waitFor(async () => (await readdir(outbox)).find((file) => file.startsWith('embedded.')), 'the response');
  assert.match(await readFile(join(outbox, name), 'utf8'), /<Status>Accepted<\/Status>/);
  const { rows } = await gateway.deps.db.query<{ value: string }>(
    `SELECT value::text FROM insurance_fees WHERE insurance_number = 'INS-100003' AND message_id <> 'demo-seed'`,
  );
  assert.deepEqual(rows, [{ value: '300.0000' }]);
});

test('documents handed over together are recorded in one statement on the embedded PostgreSQL too', async () => {
  assert.ok(gateway, 'the first test started the gateway');
  const envelope = (name: string, pin: string, value: string) => ({
    channel: 'cli', counterpartyId: 'demo-employer', externalId: name, receivedAt: new Date(), metadata: { fileName: name },
    content: { bytes: Buffer.from(changeFee({ messageId: name }, [{ pin, insurance: 'INS-100003', date: '2026-12-02', type: 'FixedCharge', value }])) },
  });
  const outcomes = await gateway.intake.receiveMany!([envelope('embedded-a.xml', PERSONS.cecilia, '310'), envelope('embedded-b.xml', PERSONS.cecilia, '320')]);
  assert.deepEqual(outcomes.map((outcome) => ('receipt' in outcome ? outcome.receipt.status : String(outcome.error))), ['received', 'received']);
  const { rows } = await gateway.deps.db.query<{ external_id: string; raw: Uint8Array }>(
    `SELECT external_id, raw FROM messages WHERE external_id LIKE 'embedded-_.xml' ORDER BY seq`,
  );
  assert.deepEqual(rows.map((row) => row.external_id), ['embedded-a.xml', 'embedded-b.xml']);
  assert.match(Buffer.from(rows[0]!.raw).toString('utf8'), /<Value>310<\/Value>/, 'the bytes are stored as sent');
});

test('a Holdings report is loaded by COPY on the embedded PostgreSQL too', async () => {
  assert.ok(gateway, 'the first test started the gateway');
  await dropFile(gateway.inbox('demo-custodian'), 'embedded-holdings.xml', holdingsReport('EMB-H-1', '2026-11-19', [
    { accountNumber: 'DEPA-100001', cash: '10.00', positions: [{ isin: 'SE000DEPA010', quantity: '2', marketValue: '150.25' }, { isin: 'SE000DEPA028', quantity: '1', marketValue: '49.75' }] },
  ]));
  const outbox = gateway.outbox('demo-custodian');
  const name = await waitFor(async () => (await readdir(outbox)).find((file) => file.startsWith('embedded-holdings.')), 'the acknowledgement');
  assert.match(await readFile(join(outbox, name), 'utf8'), /<Status>Accepted<\/Status>[\s\S]*<RecordsLoaded>2<\/RecordsLoaded>/);
  const { rows } = await gateway.deps.db.query<{ total_value: string; positions: string }>(
    `SELECT v.total_value::text, (SELECT count(*) FROM custody_positions p WHERE p.message_id = v.message_id)::text AS positions
       FROM custody_valuations v WHERE v.account_number = 'DEPA-100001' AND v.as_of = '2026-11-19'`,
  );
  assert.deepEqual(rows, [{ total_value: '210.00', positions: '2' }]);
});
