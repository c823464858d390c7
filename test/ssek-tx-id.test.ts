/**
 * An SSEK TxId answers the same way every time, on the embedded database and on
 * PostgreSQL: a sender that did not get its answer sends the same envelope again, under
 * the same TxId, and gets the first answer — the response of an original, the
 * MessageRejected of a duplicate, the rejection of an invalid document — with nothing
 * new recorded; GetResponse of the TxId answers the same. Ten copies of one envelope
 * sent at once are recorded once. Real HTTP, workers, Redis and database; signed
 * envelopes as in test/ssek.test.ts.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './support/harness.ts';
import { baseUrl, counterparties, envelope, feeDocument, signEnvelope } from './support/ssek-envelopes.ts';
import { makeTestCertificates, type TestCertificates } from './support/certificates.ts';

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];

/** What the database holds of one sender's SSEK traffic: every row a request could leave. */
interface Recorded {
  readonly messages: number;
  readonly transactions: number;
  readonly responses: number;
  readonly events: number;
}

describe.each(ENGINES)('an SSEK TxId answers the same way every time, on %s', (_engine, engineOptions) => {
  let certificates: TestCertificates;
  let gateway: TestGateway;
  let url: string;
  let key: string;

  beforeAll(async () => {
    certificates = await makeTestCertificates();
    const signing = await certificates.signing('employer-signing');
    key = await readFile(signing.key, 'utf8');
    gateway = await startTestGateway({
      ...engineOptions,
      roles: ['api', 'worker'],
      settings: { counterparties: counterparties({ 'demo-employer': { signingCertificatePath: signing.cert } }) },
    });
    url = `${baseUrl(gateway)}/ssek`;
  });
  afterAll(async () => {
    await gateway?.destroy();
    await certificates?.remove();
  });

  /** Each send is signed anew (a new timestamp), as a sender's WS-Security stack does: the document and TxId are what repeat. */
  const post = async (document: string, txId: string) => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8' }, body: signEnvelope(envelope(document, { txId }), { key }) });
    return { status: response.status, body: await response.text() };
  };
  const getResponse = (txId: string) => post(`<GetResponse xmlns="urn:se:depot-gateway:v1"><TxId>${txId}</TxId></GetResponse>`, randomUUID());
  const recorded = async (): Promise<Recorded> => {
    const { rows } = await gateway.deps.db.query<{ messages: number; transactions: number; responses: number; events: number }>(
      `SELECT (SELECT count(*)::int FROM messages WHERE channel = 'ssek') AS messages,
              (SELECT count(*)::int FROM ssek_transactions) AS transactions,
              (SELECT count(*)::int FROM responses r JOIN messages m ON m.id = r.message_id WHERE m.channel = 'ssek') AS responses,
              (SELECT count(*)::int FROM message_events e JOIN messages m ON m.id = e.message_id WHERE m.channel = 'ssek') AS events`,
    );
    return rows[0]!;
  };
  const messagesUnder = async (txId: string) =>
    (await gateway.deps.db.query<{ status: string; error_code: string | null }>(`SELECT status, error_code FROM messages WHERE external_id = $1 ORDER BY seq`, [txId])).rows
      .map((row) => [row.status, row.error_code]);
  const bodyOf = (answer: string) => /<soap:Body>\s*([\s\S]*?)\s*<\/soap:Body>/.exec(answer)?.[1];
  const faultcodeOf = (answer: string) => /<faultcode>([^<]*)<\/faultcode>/.exec(answer)?.[1];

  test('a resent TxId of an original, of a duplicate and of a rejected document gets its first answer, and nothing new is recorded; GetResponse answers the same', async () => {
    const original = randomUUID();
    const duplicate = randomUUID();
    const rejected = randomUUID();
    const accepted = feeDocument(`TXID-ORIGINAL-${original}`, '410');
    const invalid = feeDocument(`TXID-REJECTED-${rejected}`, 'four hundred');
    const firsts = {
      [original]: await post(accepted, original),
      // The same document under another TxId: a duplicate of the first.
      [duplicate]: await post(accepted, duplicate),
      [rejected]: await post(invalid, rejected),
    };
    assert.match(firsts[original]!.body, /<ChangeFeeResponse[\s\S]*<Status>Accepted<\/Status>/);
    assert.match(firsts[duplicate]!.body, /<MessageRejected[\s\S]*<Code>DUPLICATE_DOCUMENT<\/Code>/);
    assert.match(firsts[rejected]!.body, /<ChangeFeeResponse[\s\S]*<Status>Rejected<\/Status>/);
    const before = await recorded();
    assert.deepEqual({ original: await messagesUnder(original), duplicate: await messagesUnder(duplicate), rejected: await messagesUnder(rejected) },
      { original: [['applied', null]], duplicate: [['duplicate', 'DUPLICATE_DOCUMENT']], rejected: [['rejected', 'SCHEMA_VIOLATION']] });

    for (const [txId, document] of [[original, accepted], [duplicate, accepted], [rejected, invalid]] as const) {
      for (let resend = 0; resend < 2; resend += 1) {
        const again = await post(document, txId);
        assert.equal(again.status, 200, again.body);
        assert.equal(again.body, firsts[txId]!.body, 'the same answer, byte for byte');
      }
      const pulled = await getResponse(txId);
      assert.equal(pulled.status, 200, pulled.body);
      assert.equal(bodyOf(pulled.body), bodyOf(firsts[txId]!.body), 'GetResponse gives the same document');
    }
    assert.deepEqual(await recorded(), before, 'nothing new recorded: no message, transaction, response or event');
    const { rows: fees } = await gateway.deps.db.query(`SELECT 1 FROM insurance_fees WHERE value = 410`);
    assert.equal(fees.length, 1, 'applied once');
  });

  test('another document under a used TxId is refused TxIdAlreadyReceived each time, recorded once', async () => {
    const txId = randomUUID();
    assert.match((await post(feeDocument(`TXID-FIRST-${txId}`, '420'), txId)).body, /<Status>Accepted<\/Status>/);
    const other = feeDocument(`TXID-OTHER-${txId}`, '430');
    for (let send = 0; send < 3; send += 1) {
      const refused = await post(other, txId);
      assert.equal(refused.status, 500);
      assert.equal(faultcodeOf(refused.body), 'ssek:TxIdAlreadyReceived', refused.body);
    }
    assert.deepEqual(await messagesUnder(txId), [['applied', null], ['rejected', 'FILE_NAME_REUSED']]);
    assert.match(bodyOf((await getResponse(txId)).body) ?? '', /<InResponseTo>TXID-FIRST-/, 'the TxId answers for its first document');
  });

  test('ten copies of one envelope sent at once record one message and all get its answer — a new document, and a duplicate', async () => {
    const txId = randomUUID();
    const document = feeDocument(`TXID-AT-ONCE-${txId}`, '440');
    const envelopeOnce = signEnvelope(envelope(document, { txId }), { key });
    const sendAtOnce = (body: string) => Promise.all(Array.from({ length: 10 }, async () => {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8' }, body });
      return { status: response.status, body: await response.text() };
    }));
    const answers = await sendAtOnce(envelopeOnce);
    assert.deepEqual(answers.map((answer) => answer.status), Array(10).fill(200), answers.find((answer) => answer.status !== 200)?.body);
    assert.equal(new Set(answers.map((answer) => answer.body)).size, 1, 'one answer for all');
    assert.match(answers[0]!.body, /<ChangeFeeResponse[\s\S]*<Status>Accepted<\/Status>/);
    assert.deepEqual(await messagesUnder(txId), [['applied', null]], 'one message');

    // The same document under a new TxId, ten times at once: one duplicate.
    const again = randomUUID();
    const duplicates = await sendAtOnce(signEnvelope(envelope(document, { txId: again }), { key }));
    assert.deepEqual(duplicates.map((answer) => answer.status), Array(10).fill(200));
    assert.equal(new Set(duplicates.map((answer) => answer.body)).size, 1, 'one answer for all');
    assert.match(duplicates[0]!.body, /<MessageRejected[\s\S]*<Code>DUPLICATE_DOCUMENT<\/Code>/);
    assert.deepEqual(await messagesUnder(again), [['duplicate', 'DUPLICATE_DOCUMENT']], 'one duplicate');
    const { rows: fees } = await gateway.deps.db.query(`SELECT 1 FROM insurance_fees WHERE value = 440`);
    assert.equal(fees.length, 1, 'applied once');
  });
});
