/**
 * What identifies a document: its own header MessageId, per counterparty — not the
 * name of the file it came in. The file name stays a transport key on the folder
 * channel: the same file listed again is not taken twice, and another document under a
 * name already used is refused with FILE_NAME_REUSED. On PostgreSQL and on the embedded
 * PGlite; the CLI as a child process.
 */
import { describe, test, beforeAll, afterAll, afterEach } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import type { Envelope } from '../src/channels/envelope.ts';
import { createTestDatabase, deleteQueues, dropFile, startTestGateway, testSettings, waitFor, type TestGateway } from './support/harness.ts';
import { runCliToEnd, writeConfigFile } from './support/processes.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const salary = (messageId: string, amount: string, date = '2026-12-01') => salaryAdjustment({ messageId }, [{ pin: PERSONS.cecilia, date, salary: amount }]);

/** What the tests outside the describe leave to undo, undone as each ends. */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('on the folder channel, with PostgreSQL', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // A cut-off document is taken as it is once unchanged past its grace: a short one here.
    gateway = await startTestGateway({ settings: { folders: { stableMs: 100, pollIntervalMs: 25, incompleteGraceMs: 300 } } });
  });
  afterAll(() => gateway.destroy());

  const query = async <T>(sql: string, params: unknown[] = []) => (await gateway.deps.db.query<T>(sql, params)).rows;
  /** The response to a request file, leaving out those in `earlier` (answers to an earlier file of that name). */
  const responseFor = async (counterparty: string, requestName: string, earlier: readonly string[] = []) => {
    const stem = requestName.replace(/\.xml$/, '');
    const outbox = gateway.outbox(counterparty);
    const name = await waitFor(
      async () => (await readdir(outbox)).find((file) => file.startsWith(`${stem}.`) && file.endsWith('.xml') && !earlier.includes(file)),
      `response to ${requestName}`,
    );
    return readFile(join(outbox, name), 'utf8');
  };
  const messageOf = async (externalId: string) =>
    (await query<{ id: string; status: string; error_code: string | null; duplicate_of: string | null }>(
      `SELECT id, status, error_code, duplicate_of FROM messages WHERE external_id = $1`, [externalId],
    ))[0];

  test('a second document with a MessageId already received is a duplicate, whatever its file name and content', async () => {
    await dropFile(gateway.inbox('demo-employer'), 'same-id-a.xml', salary('SAME-ID', '571000.00'));
    assert.match(await responseFor('demo-employer', 'same-id-a.xml'), /<Status>Accepted<\/Status>/);
    await dropFile(gateway.inbox('demo-employer'), 'same-id-b.xml', salary('SAME-ID', '572000.00'));
    const answer = await responseFor('demo-employer', 'same-id-b.xml');
    const original = await messageOf('same-id-a.xml');
    assert.match(answer, /<MessageRejected /);
    assert.match(answer, /<InResponseTo>SAME-ID<\/InResponseTo>/);
    assert.match(answer, new RegExp(`<Code>DUPLICATE_DOCUMENT</Code>\\s*<Text>Duplicate of ${original!.id} \\(same MessageId\\)`));
    const second = (await messageOf('same-id-b.xml'))!;
    assert.deepEqual([second.status, second.error_code, second.duplicate_of], ['duplicate', 'DUPLICATE_DOCUMENT', original!.id]);
    assert.equal((await query(`SELECT 1 FROM salaries WHERE annual_salary = 572000`)).length, 0, 'the second is not applied');
  });

  test('another document under a file name already used is refused with FILE_NAME_REUSED; under a new name it is applied', async () => {
    await dropFile(gateway.inbox('demo-employer'), 'corrected.xml', salary('FIRST-TRY', '573000.00', '2026-12-02'));
    await responseFor('demo-employer', 'corrected.xml');
    const first = await messageOf('corrected.xml');
    await waitFor(async () => (await readdir(gateway.inbox('demo-employer'))).length === 0, 'the first file archived');
    const earlier = await readdir(gateway.outbox('demo-employer'));

    await dropFile(gateway.inbox('demo-employer'), 'corrected.xml', salary('SECOND-TRY', '574000.00', '2026-12-02'));
    const answer = await responseFor('demo-employer', 'corrected.xml', earlier);
    assert.match(answer, /<MessageRejected /);
    assert.match(answer, new RegExp(`<Code>FILE_NAME_REUSED</Code>\\s*<Text>The name corrected\\.xml was used before for another document \\(message ${first!.id}\\)`));
    const rows = await query<{ status: string; error_code: string | null }>(`SELECT status, error_code FROM messages WHERE external_id = 'corrected.xml' ORDER BY seq`);
    assert.deepEqual(rows, [{ status: 'applied', error_code: null }, { status: 'rejected', error_code: 'FILE_NAME_REUSED' }]);
    assert.equal((await query(`SELECT 1 FROM salaries WHERE annual_salary = 574000`)).length, 0, 'the refused document is not applied');

    // The refusal took neither its MessageId nor its content: sent under a new name, it is applied.
    await dropFile(gateway.inbox('demo-employer'), 'corrected-2.xml', salary('SECOND-TRY', '574000.00', '2026-12-02'));
    assert.match(await responseFor('demo-employer', 'corrected-2.xml'), /<Status>Accepted<\/Status>/);
    assert.equal((await query(`SELECT 1 FROM salaries WHERE annual_salary = 574000`)).length, 1);
  });

  test('a file taken before its upload was complete claims nothing: the same cut-off bytes again are refused again as malformed, and the whole file re-sent under its name is applied', async () => {
    const whole = salary('CUT-OFF', '577000.00', '2026-12-05');
    const cut = whole.slice(0, Math.floor(whole.length * 0.8));
    await dropFile(gateway.inbox('demo-employer'), 'cut-off.xml', cut);
    assert.match(await responseFor('demo-employer', 'cut-off.xml'), /<Code>XML_MALFORMED<\/Code>/);
    await waitFor(async () => (await readdir(gateway.inbox('demo-employer'))).length === 0, 'the cut-off file archived');
    const earlier = await readdir(gateway.outbox('demo-employer'));

    await dropFile(gateway.inbox('demo-employer'), 'cut-off-again.xml', cut);
    assert.match(await responseFor('demo-employer', 'cut-off-again.xml'), /<Code>XML_MALFORMED<\/Code>/);
    await dropFile(gateway.inbox('demo-employer'), 'cut-off.xml', whole);
    assert.match(await responseFor('demo-employer', 'cut-off.xml', earlier), /<Status>Accepted<\/Status>/);
    const rows = await query<{ external_id: string; status: string; error_code: string | null; duplicate_of: string | null }>(
      `SELECT external_id, status, error_code, duplicate_of FROM messages WHERE external_id LIKE 'cut-off%' ORDER BY seq`);
    assert.deepEqual(rows, [
      { external_id: 'cut-off.xml', status: 'rejected', error_code: 'XML_MALFORMED', duplicate_of: null },
      { external_id: 'cut-off-again.xml', status: 'rejected', error_code: 'XML_MALFORMED', duplicate_of: null },
      { external_id: 'cut-off.xml', status: 'applied', error_code: null, duplicate_of: null },
    ]);
  });

  test('the same MessageId from two counterparties is two documents', async () => {
    await dropFile(gateway.inbox('demo-employer'), 'shared-id.xml', salary('SHARED-ID', '575000.00', '2026-12-03'));
    assert.match(await responseFor('demo-employer', 'shared-id.xml'), /<Status>Accepted<\/Status>/);
    await dropFile(gateway.inbox('demo-administrator'), 'shared-id.xml', salary('SHARED-ID', '576000.00', '2026-12-04'));
    assert.match(await responseFor('demo-administrator', 'shared-id.xml'), /<Status>Accepted<\/Status>/);
    assert.equal((await query(`SELECT 1 FROM salaries WHERE annual_salary IN (575000, 576000)`)).length, 2);
  });
});

test('on the embedded PGlite: a MessageId already received is a duplicate, and another document under a used name FILE_NAME_REUSED', async () => {
  const gateway = await startTestGateway({ embedded: true, roles: [], inline: true });
  cleanups.push(() => gateway.destroy());
  assert.equal(gateway.deps.db.kind, 'pglite');
  const envelope = (name: string, bytes: string): Envelope => ({
    channel: 'folder', counterpartyId: 'demo-employer', externalId: name, receivedAt: new Date(), content: { bytes: Buffer.from(bytes) }, metadata: { fileName: name },
  });
  const [first, sameId, reusedName] = await gateway.intake.receiveMany!([
    envelope('p-1.xml', salary('PG-1', '581000.00')),
    envelope('p-2.xml', salary('PG-1', '582000.00')),
    envelope('p-1.xml', salary('PG-2', '583000.00')),
  ]);
  const [fresh] = await gateway.intake.receiveMany!([envelope('p-3.xml', salary('PG-2', '583000.00'))]);
  const receipt = (outcome: typeof first) => (outcome && 'receipt' in outcome ? outcome.receipt : assert.fail(`no receipt: ${String(outcome && 'error' in outcome ? outcome.error : outcome)}`));
  assert.equal(receipt(first).status, 'received');
  assert.deepEqual(receipt(sameId), { messageId: receipt(sameId).messageId, status: 'duplicate', duplicateOf: receipt(first).messageId, errorCode: 'DUPLICATE_DOCUMENT' });
  assert.deepEqual(receipt(reusedName), { messageId: receipt(reusedName).messageId, status: 'rejected', errorCode: 'FILE_NAME_REUSED' });
  assert.equal(receipt(fresh).status, 'received', 'the refused document took neither its MessageId nor its content');
  const { rows } = await gateway.deps.db.query<{ external_id: string; header_message_id: string }>(
    `SELECT external_id, header_message_id FROM messages WHERE duplicate_of IS NULL ORDER BY seq`,
  );
  assert.deepEqual(rows, [{ external_id: 'p-1.xml', header_message_id: 'PG-1' }, { external_id: 'p-3.xml', header_message_id: 'PG-2' }]);
});

test('the CLI does not take a file\'s base name for its identity: two types\' multi-item.xml are two documents, the same file twice a duplicate', async () => {
  const database = await createTestDatabase();
  const folder = await mkdtemp(join(tmpdir(), 'dg-identity-cli-'));
  const settings = testSettings(join(folder, 'data'), { databaseUrl: database.url, logLevel: 'warn' });
  cleanups.push(async () => {
    await database.drop();
    await deleteQueues(settings.queuePrefix as string);
    await rm(folder, { recursive: true, force: true });
  });
  const config = await writeConfigFile(folder, settings);
  const submit = (fixture: string) => runCliToEnd(['submit', join(PROJECT_ROOT, 'fixtures', fixture), '--from', 'demo-employer', '--config', config]);

  const changeFee = await submit('ChangeFee/valid/multi-item.xml');
  assert.match(changeFee.stdout, /<ChangeFeeResponse /, changeFee.stderr);
  const extraPremium = await submit('ExtraPremium/valid/multi-item.xml');
  assert.match(extraPremium.stdout, /<ExtraPremiumResponse /, extraPremium.stderr);
  assert.doesNotMatch(extraPremium.stdout, /DUPLICATE_DOCUMENT/);
  const again = await submit('ChangeFee/valid/multi-item.xml');
  assert.match(again.stdout, /<Code>DUPLICATE_DOCUMENT<\/Code>\s*<Text>Duplicate of [0-9A-Z]{26} \(same content\)/);
});
