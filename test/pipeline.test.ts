/**
 * The spine end to end on real Redis and PostgreSQL: a file dropped in a counterparty's
 * inbox goes through intake, the validate/apply/deliver queues and comes back as a
 * response file in its outbox, with the ledger changed exactly once.
 */
import { describe, test, beforeAll, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { dropFile, startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { changeFee, salaryAdjustment, PERSONS } from './support/documents.ts';

const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));

describe('a document from a folder to its response', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ settings: { workers: { applyConcurrency: 8, backoffMs: 50, reconcileEveryMs: 500, reconcileAfterMs: 2000 } } });
  });
  afterAll(() => gateway.destroy());

  const outboxFiles = async (counterparty = 'demo-employer') => (await readdir(gateway.outbox(counterparty))).filter((name) => name.endsWith('.xml'));
  const responseFor = async (requestName: string) => {
    const stem = requestName.replace(/\.xml$/, '');
    const name = await waitFor(async () => (await outboxFiles()).find((file) => file.startsWith(`${stem}.`)), `response to ${requestName}`);
    return { name, body: await readFile(join(gateway.outbox('demo-employer'), name), 'utf8') };
  };
  const query = async <T>(sql: string, params: unknown[] = []) => (await gateway.deps.db.query<T>(sql, params)).rows;

  test('a valid ChangeFee changes the ledger and answers with a schema-valid ChangeFeeResponse', async () => {
    await dropFile(gateway.inbox('demo-employer'), 'fees-1.xml', changeFee({ messageId: 'FEES-1' }, [
      { pin: PERSONS.anna, insurance: 'INS-100001', date: '2026-12-01', type: 'CapitalCharge', value: '0.25' },
      { pin: PERSONS.bertil, insurance: 'INS-100002', date: '2026-12-01', type: 'FixedCharge', value: '480' },
    ]));
    const response = await responseFor('fees-1.xml');
    assert.match(response.name, /^fees-1\.[0-9A-Z]{26}\.ChangeFeeResponse\.xml$/);
    assert.deepEqual(schemas.validate(response.body, 'ChangeFeeResponse'), []);
    assert.match(response.body, /<InResponseTo>FEES-1<\/InResponseTo>/);
    assert.match(response.body, /<Status>Accepted<\/Status>\n {2}<\/Header>/);
    const fees = await query<{ insurance_number: string; fee_type: string; value: string; effective_date: string }>(
      `SELECT f.insurance_number, f.fee_type, f.value::text, f.effective_date::text FROM insurance_fees f
         JOIN messages m ON m.id = f.message_id WHERE m.external_id = 'fees-1.xml' ORDER BY f.insurance_number`,
    );
    assert.deepEqual(fees, [
      { insurance_number: 'INS-100001', fee_type: 'CapitalCharge', value: '0.2500', effective_date: '2026-12-01' },
      { insurance_number: 'INS-100002', fee_type: 'FixedCharge', value: '480.0000', effective_date: '2026-12-01' },
    ]);
    expect(await readdir(gateway.inbox('demo-employer'))).toEqual([]); // the inbox is empty once the file is recorded
  });

  test('a schema-invalid document is rejected with every error and leaves the ledger untouched', async () => {
    const before = await query<{ n: string }>('SELECT count(*)::text AS n FROM insurance_fees');
    const bad = changeFee({ messageId: 'FEES-BAD' }, [
      { pin: '7001011233', insurance: 'INS-100001', date: '2026-12-01', type: 'CapitalCharge', value: '0.25' },
      { pin: PERSONS.bertil, insurance: 'INS-100002', date: '2026-13-01', type: 'FixedCharge', value: '480' },
    ]);
    await dropFile(gateway.inbox('demo-employer'), 'fees-bad.xml', bad);
    const { body } = await responseFor('fees-bad.xml');
    assert.deepEqual(schemas.validate(body, 'ChangeFeeResponse'), []);
    assert.match(body, /<Status>Rejected<\/Status>/);
    assert.match(body, /<InResponseTo>FEES-BAD<\/InResponseTo>/);
    const errors = [...body.matchAll(/<Error>\s*<Code>(\w+)<\/Code>\s*<Text>([^<]*)<\/Text>\s*<Line>(\d+)<\/Line>\s*<Element>(\w+)<\/Element>/g)];
    assert.deepEqual(errors.map((m) => [m[1], m[3], m[4]]), [
      ['SCHEMA_VIOLATION', '11', 'PersonalIdentityNumber'],
      ['SCHEMA_VIOLATION', '21', 'EffectiveDate'],
    ]);
    assert.match(errors[0]![2]!, /7001011233/);
    assert.deepEqual(await query('SELECT count(*)::text AS n FROM insurance_fees'), before);
    const [message] = await query<{ status: string; error_code: string }>(`SELECT status, error_code FROM messages WHERE external_id = 'fees-bad.xml'`);
    assert.deepEqual(message, { status: 'rejected', error_code: 'SCHEMA_VIOLATION' });
  });

  test('the same document twice is applied once; the second is answered as a duplicate of the first', async () => {
    const document = salaryAdjustment({ messageId: 'SAL-DUP' }, [{ pin: PERSONS.cecilia, date: '2026-12-01', salary: '555000.00' }]);
    await dropFile(gateway.inbox('demo-employer'), 'salary-dup-a.xml', document);
    await responseFor('salary-dup-a.xml');
    await dropFile(gateway.inbox('demo-employer'), 'salary-dup-b.xml', document);
    const { body } = await responseFor('salary-dup-b.xml');
    const [original] = await query<{ id: string }>(`SELECT id FROM messages WHERE external_id = 'salary-dup-a.xml'`);
    assert.match(body, /<MessageRejected /);
    assert.match(body, new RegExp(`<Code>DUPLICATE_DOCUMENT</Code>\\s*<Text>Duplicate of ${original!.id} \\(same content\\)`));
    const salaries = await query(`SELECT 1 FROM salaries WHERE annual_salary = 555000`);
    assert.equal(salaries.length, 1, 'applied exactly once');
    const [duplicate] = await query<{ status: string; duplicate_of: string }>(`SELECT status, duplicate_of FROM messages WHERE external_id = 'salary-dup-b.xml'`);
    assert.deepEqual(duplicate, { status: 'duplicate', duplicate_of: original!.id });
  });

  test('a new file under a name already received is refused with FILE_NAME_REUSED, not taken for the first', async () => {
    await dropFile(gateway.inbox('demo-employer'), 'reused-name.xml', salaryAdjustment({ messageId: 'SAL-R1' }, [{ pin: PERSONS.cecilia, date: '2026-12-02', salary: '556000.00' }]));
    await waitFor(async () => (await query(`SELECT 1 FROM responses r JOIN messages m ON m.id = r.message_id WHERE m.external_id = 'reused-name.xml'`)).length === 1, 'first response');
    await dropFile(gateway.inbox('demo-employer'), 'reused-name.xml', salaryAdjustment({ messageId: 'SAL-R2' }, [{ pin: PERSONS.cecilia, date: '2026-12-03', salary: '557000.00' }]));
    const rows = await waitFor(async () => {
      const found = await query<{ status: string; error_code: string | null }>(`SELECT status, error_code FROM messages WHERE external_id = 'reused-name.xml' ORDER BY seq`);
      return found.length === 2 ? found : undefined;
    }, 'second message');
    assert.deepEqual(rows, [{ status: 'applied', error_code: null }, { status: 'rejected', error_code: 'FILE_NAME_REUSED' }]);
    assert.equal((await query(`SELECT 1 FROM salaries WHERE annual_salary = 557000`)).length, 0);
  });

  test('a file written slowly in chunks is taken once, complete, after the last chunk', async () => {
    const document = salaryAdjustment({ messageId: 'SAL-SLOW' }, [{ pin: PERSONS.bertil, date: '2026-12-01', salary: '601000.00' }]);
    const path = join(gateway.inbox('demo-employer'), 'slow.xml');
    const chunks = document.match(/[\s\S]{1,80}/g)!;
    await writeFile(path, chunks[0]!);
    for (const chunk of chunks.slice(1)) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      await appendFile(path, chunk);
    }
    const { body } = await responseFor('slow.xml');
    assert.match(body, /<Status>Accepted<\/Status>/);
    const messages = await query<{ size_bytes: string }>(`SELECT size_bytes::text FROM messages WHERE external_id = 'slow.xml'`);
    assert.deepEqual(messages, [{ size_bytes: String(Buffer.byteLength(document)) }]);
  });

  test('documents for one agreement are applied in arrival order with several apply workers', async () => {
    const count = 30;
    for (let index = 0; index < count; index += 1) {
      await dropFile(gateway.inbox('demo-employer'), `order-${String(index).padStart(2, '0')}.xml`,
        salaryAdjustment({ messageId: `ORDER-${index}` }, [{ pin: PERSONS.anna, date: '2026-12-15', salary: `${700000 + index}.00` }]));
    }
    await waitFor(async () => (await query(`SELECT 1 FROM messages WHERE external_id LIKE 'order-%' AND status = 'applied'`)).length === count, 'all applied', 30_000);
    const rows = await query<{ seq: string; salary_id: string }>(
      `SELECT m.seq::text, s.id::text AS salary_id FROM salaries s JOIN messages m ON m.id = s.message_id
        WHERE m.external_id LIKE 'order-%' ORDER BY m.seq`,
    );
    assert.equal(rows.length, count);
    const salaryIds = rows.map((row) => Number(row.salary_id));
    assert.deepEqual(salaryIds, [...salaryIds].sort((a, b) => a - b), 'ledger rows were written in arrival (seq) order');
  });

  test('documents handed over together are recorded in their order, and a duplicate among them is answered as one', async () => {
    const envelope = (name: string, xml: string) => ({
      channel: 'cli', counterpartyId: 'demo-employer', externalId: name, receivedAt: new Date(), content: { bytes: Buffer.from(xml) }, metadata: { fileName: name },
    });
    const first = salaryAdjustment({ messageId: 'BATCH-1' }, [{ pin: PERSONS.david, date: '2026-12-20', salary: '610001.00' }]);
    const outcomes = await gateway.intake.receiveMany!([
      envelope('batch-1.xml', first),
      envelope('batch-2.xml', salaryAdjustment({ messageId: 'BATCH-2' }, [{ pin: PERSONS.david, date: '2026-12-20', salary: '610002.00' }])),
      envelope('batch-1-again.xml', first),
      envelope('batch-3.xml', salaryAdjustment({ messageId: 'BATCH-3' }, [{ pin: PERSONS.david, date: '2026-12-20', salary: '610003.00' }])),
    ]);
    const receipts = outcomes.map((outcome) => ('receipt' in outcome ? outcome.receipt : assert.fail(String(outcome.error))));
    assert.deepEqual(receipts.map((receipt) => receipt.status), ['received', 'received', 'duplicate', 'received']);
    assert.equal(receipts[2]!.duplicateOf, receipts[0]!.messageId);
    const recorded = await query<{ external_id: string }>(
      `SELECT external_id FROM messages WHERE external_id LIKE 'batch-%' AND status <> 'duplicate' ORDER BY seq`,
    );
    assert.deepEqual(recorded.map((row) => row.external_id), ['batch-1.xml', 'batch-2.xml', 'batch-3.xml']);
    await waitFor(async () => (await query(`SELECT 1 FROM messages WHERE external_id LIKE 'batch-%' AND status IN ('applied', 'duplicate')`)).length === 4, 'all answered');
    const salaries = await query<{ annual_salary: string }>(
      `SELECT s.annual_salary::text FROM salaries s JOIN messages m ON m.id = s.message_id WHERE m.external_id LIKE 'batch-%' ORDER BY s.id`,
    );
    assert.deepEqual(salaries.map((row) => row.annual_salary), ['610001.00', '610002.00', '610003.00'], 'applied once each, in order');
  });

  test('a large document handed over among small ones keeps its place and its bytes', async () => {
    const envelope = (name: string, xml: string) => ({
      channel: 'cli', counterpartyId: 'demo-employer', externalId: name, receivedAt: new Date(), content: { bytes: Buffer.from(xml) }, metadata: { fileName: name },
    });
    // Over a megabyte: recorded in a statement of its own, between the two small ones.
    const items = Array.from({ length: 6000 }, (_, index) => ({ itemId: `L${index}`, pin: PERSONS.david, date: '2026-12-22', salary: `${630000 + index}.00` }));
    const large = salaryAdjustment({ messageId: 'LARGE-2' }, items);
    assert.ok(Buffer.byteLength(large) > 1024 * 1024, 'the large document is over a megabyte');
    const outcomes = await gateway.intake.receiveMany!([
      envelope('large-1.xml', salaryAdjustment({ messageId: 'LARGE-1' }, [{ pin: PERSONS.david, date: '2026-12-22', salary: '629999.00' }])),
      envelope('large-2.xml', large),
      envelope('large-3.xml', salaryAdjustment({ messageId: 'LARGE-3' }, [{ pin: PERSONS.david, date: '2026-12-22', salary: '636000.00' }])),
    ]);
    assert.deepEqual(outcomes.map((outcome) => ('receipt' in outcome ? outcome.receipt.status : String(outcome.error))), ['received', 'received', 'received']);
    const recorded = await query<{ external_id: string; size_bytes: string; sha256: string }>(
      `SELECT external_id, size_bytes::text, encode(sha256(raw), 'hex') AS sha256 FROM messages WHERE external_id LIKE 'large-_.xml' ORDER BY seq`,
    );
    assert.deepEqual(recorded.map((row) => row.external_id), ['large-1.xml', 'large-2.xml', 'large-3.xml']);
    assert.equal(recorded[1]!.size_bytes, String(Buffer.byteLength(large)));
    assert.equal(recorded[1]!.sha256, createHash('sha256').update(large).digest('hex'), 'the bytes are stored as sent');
    await waitFor(async () => (await query(`SELECT 1 FROM messages WHERE external_id LIKE 'large-_.xml' AND status IN ('applied', 'rejected')`)).length === 3, 'all answered', 30_000);
  });

  test('a document whose handler fails holds back only its own agreement\'s later documents, and all apply in order once it recovers', async () => {
    // A real PostgreSQL failure inside the apply transaction: a trigger refusing one salary.
    await query(`CREATE FUNCTION refuse_620002() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.annual_salary = 620002 THEN RAISE EXCEPTION 'salary store unavailable'; END IF; RETURN NEW; END $$`);
    await query(`CREATE TRIGGER refuse_620002 BEFORE INSERT ON salaries FOR EACH ROW EXECUTE FUNCTION refuse_620002()`);
    try {
      const envelope = (name: string, salary: string) => ({
        channel: 'cli', counterpartyId: 'demo-employer', externalId: name, receivedAt: new Date(), metadata: { fileName: name },
        content: { bytes: Buffer.from(salaryAdjustment({ messageId: name }, [{ pin: PERSONS.filip, date: '2026-12-21', salary }])) },
      });
      await gateway.intake.receiveMany!([envelope('fail-1.xml', '620001.00'), envelope('fail-2.xml', '620002.00'), envelope('fail-3.xml', '620003.00')]);
      await waitFor(async () => (await query(`SELECT 1 FROM messages WHERE external_id = 'fail-1.xml' AND status = 'applied'`)).length === 1, 'the first applied');
      await new Promise((resolve) => setTimeout(resolve, 500)); // a few failed attempts of the second
      const waiting = await query<{ external_id: string; status: string }>(
        `SELECT external_id, status FROM messages WHERE external_id IN ('fail-2.xml', 'fail-3.xml') ORDER BY external_id`,
      );
      assert.deepEqual(waiting, [{ external_id: 'fail-2.xml', status: 'validated' }, { external_id: 'fail-3.xml', status: 'validated' }], 'the third waits behind the failing second');
    } finally {
      await query(`DROP TRIGGER refuse_620002 ON salaries`);
      await query(`DROP FUNCTION refuse_620002()`);
    }
    await waitFor(async () => (await query(`SELECT 1 FROM messages WHERE external_id LIKE 'fail-_.xml' AND status = 'applied'`)).length === 3, 'all applied', 30_000);
    const salaries = await query<{ annual_salary: string }>(
      `SELECT s.annual_salary::text FROM salaries s JOIN messages m ON m.id = s.message_id WHERE m.external_id LIKE 'fail-_.xml' ORDER BY s.id`,
    );
    assert.deepEqual(salaries.map((row) => row.annual_salary), ['620001.00', '620002.00', '620003.00'], 'applied once each, in arrival order');
  });

  test('the administrator of the agreement may send; an unrelated employer may not', async () => {
    await dropFile(gateway.inbox('demo-administrator'), 'admin.xml', salaryAdjustment({ messageId: 'ADM-1' }, [{ pin: PERSONS.cecilia, date: '2026-12-05', salary: '560000.00' }]));
    await dropFile(gateway.inbox('other-employer'), 'intruder.xml', salaryAdjustment({ messageId: 'INTRUDER-1' }, [{ pin: PERSONS.cecilia, date: '2026-12-05', salary: '999999.00' }]));
    const read = (counterparty: string) =>
      waitFor(async () => {
        // Not the temporary file a response is written to before its rename.
        const file = (await readdir(gateway.outbox(counterparty))).find((name) => !name.startsWith('.'));
        return file && readFile(join(gateway.outbox(counterparty), file), 'utf8');
      }, `response for ${counterparty}`);
    assert.match(await read('demo-administrator'), /<Status>Accepted<\/Status>/);
    const refused = await read('other-employer');
    assert.match(refused, /<Code>SENDER_NOT_AUTHORISED<\/Code>/);
    await dropFile(gateway.inbox('demo-custodian'), 'wrong-type.xml', salaryAdjustment({ messageId: 'CUST-1' }, [{ pin: PERSONS.cecilia, date: '2026-12-05', salary: '999998.00' }]));
    const notAllowed = await read('demo-custodian');
    assert.match(notAllowed, /<SalaryAdjustmentResponse [\s\S]*<Code>MESSAGE_TYPE_NOT_ALLOWED<\/Code>\s*<Text>Counterparty demo-custodian may not send SalaryAdjustment\.<\/Text>/);
    assert.equal((await query(`SELECT 1 FROM salaries WHERE annual_salary IN (999999, 999998)`)).length, 0);
  });
});
