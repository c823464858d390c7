/**
 * The SSEK endpoint end to end: a real SOAP client built from GET /ssek?wsdl, curl
 * with hand-written envelopes, every fault, TxId replay, sync timeout then pull, push
 * retried until the sender's endpoint comes back, mutual TLS mapping a client
 * certificate to a sender, and WS-Security signatures (made here with xml-crypto).
 * Real PostgreSQL, Redis, workers and HTTP(S) servers on loopback; nothing mocked.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import soap from 'soap';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { pushTxIdOf } from '../src/channels/ssek/ssek-answer.ts';
import { startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import {
  ADMINISTRATOR, EMPLOYER, INSURER, baseUrl, counterparties, envelope, feeDocument, signEnvelope, ssekHeader, withoutProlog, type HeaderFields,
} from './support/ssek-envelopes.ts';
import { makeTestCertificates, type TestCertificates } from './support/certificates.ts';

const run = promisify(execFile);

/** POSTs with curl (as a sender's script would); gives HTTP status and body. */
async function curl(url: string, body: string, extra: string[] = []): Promise<{ status: number; body: string }> {
  const file = join(tmpdir(), `dg-ssek-${randomUUID()}.xml`);
  await writeFile(file, body);
  try {
    const { stdout } = await run('curl', ['-s', '-X', 'POST', '-H', 'Content-Type: text/xml; charset=utf-8', '--data-binary', `@${file}`, '-w', '\n%{http_code}', ...extra, url]);
    const cut = stdout.lastIndexOf('\n');
    return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
  } finally {
    await rm(file, { force: true });
  }
}

function faultcodeOf(body: string): string | undefined {
  return /<faultcode>([^<]*)<\/faultcode>/.exec(body)?.[1];
}

describe('SSEK endpoint over HTTP, senders identified by their signatures', () => {
  let gateway: TestGateway;
  let url: string;
  const pushes: { headers: IncomingMessage['headers']; body: string; status: number }[] = [];
  let pushServer: Server;
  let certificates: TestCertificates;
  let employerKey: string;
  let administratorKey: string;
  /** The envelope signed by the employer (or the given key), as every request must be. */
  const signed = (xml: string, key = employerKey) => signEnvelope(xml, { key });

  beforeAll(async () => {
    certificates = await makeTestCertificates();
    const employerSigning = await certificates.signing('employer-signing');
    const administratorSigning = await certificates.signing('administrator-signing');
    employerKey = await readFile(employerSigning.key, 'utf8');
    administratorKey = await readFile(administratorSigning.key, 'utf8');
    pushServer = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const status = pushes.length === 0 ? 500 : 200;
        pushes.push({ headers: request.headers, body, status });
        response.writeHead(status, { 'content-type': 'text/xml' }).end('<ok/>');
      });
    });
    await new Promise<void>((resolve) => pushServer.listen(0, '127.0.0.1', resolve));
    const pushPort = (pushServer.address() as { port: number }).port;
    gateway = await startTestGateway({
      roles: ['api', 'worker'],
      settings: {
        counterparties: counterparties({
          'demo-employer': { signingCertificatePath: employerSigning.cert },
          'demo-administrator': { pushUrl: `http://127.0.0.1:${pushPort}/ssek-answers`, flow: 'push', signingCertificatePath: administratorSigning.cert },
        }),
      },
    });
    url = `${baseUrl(gateway)}/ssek`;
  });
  afterAll(async () => {
    await gateway.destroy();
    await new Promise((resolve) => pushServer.close(resolve));
    await certificates.remove();
  });

  test('a SOAP client built from the WSDL sends a signed ChangeFee and gets the ChangeFeeResponse; the fees are in the ledger', async () => {
    const client = await soap.createClientAsync(`${url}?wsdl`);
    assert.ok(typeof client.ChangeFeeAsync === 'function', 'the WSDL offers a ChangeFee operation');
    client.addSoapHeader(ssekHeader());
    // The client's WS-Security step: sign the envelope it wrote, as a sender's stack does.
    client.setSecurity({ postProcess: (xml: string) => signed(xml) });
    const fixture = await readFile(join(PROJECT_ROOT, 'fixtures/ChangeFee/valid/multi-item.xml'), 'utf8');
    const [result, rawResponse] = (await client.ChangeFeeAsync({ _xml: withoutProlog(fixture) })) as [Record<string, unknown>, string];
    assert.match(rawResponse, /<ChangeFeeResponse xmlns="urn:se:depot-gateway:v1">/);
    assert.match(rawResponse, /<InResponseTo>CF-VALID-001<\/InResponseTo>/);
    assert.match(rawResponse, /<Status>Accepted<\/Status>/);
    assert.match(rawResponse, new RegExp(`<ssek:SenderId ssek:Type="ORGNR">${INSURER}</ssek:SenderId>`));
    assert.ok(result, 'the client parsed the answer');
    const { rows } = await gateway.deps.db.query<{ insurance_number: string; value: string }>(
      `SELECT insurance_number, value::text FROM insurance_fees WHERE message_id IS NOT NULL AND message_id <> 'demo-seed' ORDER BY insurance_number`,
    );
    assert.deepEqual(rows.map((r) => [r.insurance_number, r.value]), [['INS-100001', '300.0000'], ['INS-100002', '0.2500'], ['INS-100003', '480.0000'], ['INS-100004', '0.4000']]);
  });

  test('curl with a hand-written envelope gets the response; the body is stored as its own document', async () => {
    const txId = randomUUID();
    const answer = await curl(url, signed(envelope(feeDocument('SSEK-CURL-1', '310'), { txId })));
    assert.equal(answer.status, 200, answer.body);
    assert.match(answer.body, /<ChangeFeeResponse[\s\S]*<InResponseTo>SSEK-CURL-1<\/InResponseTo>[\s\S]*<Status>Accepted<\/Status>/);
    assert.match(answer.body, new RegExp(`<ssek:TxId>${txId}</ssek:TxId>`));
    const { rows } = await gateway.deps.db.query<{ channel: string; raw: Buffer; metadata: Record<string, unknown> }>(
      `SELECT channel, raw, metadata FROM messages WHERE external_id = $1`, [txId]);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.channel, 'ssek');
    assert.match(rows[0]?.raw.toString() ?? '', /^<ChangeFee xmlns="urn:se:depot-gateway:v1">/);
    assert.equal(rows[0]?.metadata.flow, 'sync');
    assert.equal(rows[0]?.metadata.senderId, EMPLOYER);
  });

  test('the header faults: unknown sender, receiver not us, missing and malformed TxId', async () => {
    const cases: [HeaderFields, string, RegExp][] = [
      [{ sender: '5569999999' }, 'ssek:SenderIdUnknown', /SenderId &quot;5569999999&quot;/],
      [{ sender: '5560000001' }, 'ssek:SenderIdUnknown', /not registered for SSEK/],
      [{ receiver: '5561111111' }, 'ssek:ReceiverIdUnknown', new RegExp(`use &quot;${INSURER}&quot;`)],
      [{ txId: null }, 'ssek:TxIdInvalid', /no TxId/],
      [{ txId: 'not-a-uuid' }, 'ssek:TxIdInvalid', /&quot;not-a-uuid&quot; is not a UUID/],
    ];
    for (const [fields, faultcode, text] of cases) {
      const answer = await curl(url, signed(envelope(feeDocument(`SSEK-FAULT-${faultcode}`), fields)));
      assert.equal(answer.status, 500, faultcode);
      assert.equal(faultcodeOf(answer.body), faultcode);
      assert.match(answer.body, text);
    }
    const { rows } = await gateway.deps.db.query(`SELECT 1 FROM messages WHERE raw::text LIKE '%SSEK-FAULT-%'`);
    assert.equal(rows.length, 0, 'refused envelopes are not recorded');
  });

  test('a body that is not XML and a hostile envelope are soap:Client faults', async () => {
    const notXml = await curl(url, 'this is not xml');
    assert.equal(notXml.status, 500);
    assert.equal(faultcodeOf(notXml.body), 'soap:Client');
    const hostile = `<?xml version="1.0"?><!DOCTYPE e [<!ENTITY x SYSTEM "file:///etc/passwd">]>${envelope('<ChangeFee xmlns="urn:se:depot-gateway:v1">&x;</ChangeFee>').replace(/^<\?xml[^?]*\?>/, '')}`;
    const refused = await curl(url, hostile);
    assert.equal(refused.status, 500);
    assert.equal(faultcodeOf(refused.body), 'soap:Client');
    assert.match(refused.body, /external entit/);
    assert.doesNotMatch(refused.body, /root:/);
    const notSoap = await curl(url, '<Envelope/>');
    assert.equal(faultcodeOf(notSoap.body), 'soap:Client');
    // JSON, broken or not, is told what to send rather than answered by a JSON parser.
    for (const body of ['{"ChangeFee":', '{"ChangeFee": {}}']) {
      const { stdout } = await run('curl', ['-s', '-X', 'POST', '-H', 'Content-Type: application/json', '--data-binary', body, '-w', '\n%{http_code}', url]);
      assert.match(stdout, /\n500$/);
      assert.equal(faultcodeOf(stdout), 'soap:Client', stdout);
      assert.match(stdout, /Send the SOAP envelope as text\/xml or application\/soap\+xml, not application\/json\./);
    }
  });

  test('a repeated TxId with the same body returns the original answer and applies nothing again; another body is TxIdAlreadyReceived', async () => {
    const txId = randomUUID();
    const request = signed(envelope(feeDocument('SSEK-REPLAY-1', '320'), { txId }));
    const first = await curl(url, request);
    assert.match(first.body, /<InResponseTo>SSEK-REPLAY-1<\/InResponseTo>/);
    const second = await curl(url, request);
    assert.equal(second.status, 200);
    const responseOf = (body: string) => /<ChangeFeeResponse[\s\S]*<\/ChangeFeeResponse>/.exec(body)?.[0];
    assert.equal(responseOf(second.body), responseOf(first.body));
    const other = await curl(url, signed(envelope(feeDocument('SSEK-REPLAY-2', '330'), { txId })));
    assert.equal(other.status, 500);
    assert.equal(faultcodeOf(other.body), 'ssek:TxIdAlreadyReceived');
    const { rows: fees } = await gateway.deps.db.query(`SELECT 1 FROM insurance_fees WHERE value = 320`);
    assert.equal(fees.length, 1, 'applied once');
    const { rows: messages } = await gateway.deps.db.query<{ status: string; error_code: string | null }>(`SELECT status, error_code FROM messages WHERE external_id = $1 ORDER BY seq`, [txId]);
    // The TxId is the transport key: the repeat records nothing; the other body under it is recorded as FILE_NAME_REUSED, and faulted.
    assert.deepEqual(messages.map((m) => [m.status, m.error_code]), [['applied', null], ['rejected', 'FILE_NAME_REUSED']]);
    const { rows: applied } = await gateway.deps.db.query(`SELECT 1 FROM insurance_fees WHERE value = 330`);
    assert.equal(applied.length, 0);
  });

  test('push: a receipt at once, then the response is pushed under our SSEK header, retried until the endpoint answers 200', async () => {
    const txId = randomUUID();
    const answer = await curl(url, signed(envelope(feeDocument('SSEK-PUSH-1', '340'), { sender: ADMINISTRATOR, txId }), administratorKey));
    assert.equal(answer.status, 200, answer.body);
    const messageId = /<Receipt[\s\S]*<MessageId>([0-9A-Z]{26})<\/MessageId>/.exec(answer.body)?.[1];
    assert.ok(messageId, answer.body);
    assert.match(answer.body, /<Flow>push<\/Flow>/);
    await waitFor(() => pushes.some((p) => p.status === 200), 'a successful push', 20_000);
    assert.equal(pushes[0]?.status, 500);
    const delivered = pushes.find((p) => p.status === 200);
    assert.ok(delivered);
    assert.match(delivered.body, new RegExp(`<ssek:SenderId ssek:Type="ORGNR">${INSURER}</ssek:SenderId>`));
    assert.match(delivered.body, new RegExp(`<ssek:ReceiverId ssek:Type="ORGNR">${ADMINISTRATOR}</ssek:ReceiverId>`));
    assert.match(delivered.body, /<ChangeFeeResponse[\s\S]*<InResponseTo>SSEK-PUSH-1<\/InResponseTo>/);
    const pushTx = pushTxIdOf(messageId);
    for (const push of pushes) assert.match(push.body, new RegExp(`<ssek:TxId>${pushTx}</ssek:TxId>`), 'every attempt carries the same TxId');
    const deliveries = await waitFor(async () => {
      const { rows } = await gateway.deps.db.query<{ outcome: string; channel: string }>(`SELECT outcome, channel FROM deliveries WHERE message_id = $1 ORDER BY id`, [messageId]);
      return rows.some((r) => r.outcome === 'delivered') && rows;
    }, 'the delivery record');
    assert.deepEqual(deliveries.map((d) => [d.channel, d.outcome]), [['ssek', 'failed'], ['ssek', 'delivered']]);
  });

  test('a signature must cover the body, the SSEK header and a fresh timestamp: anything less is refused and nothing is recorded', async () => {
    const cases: [string, string, RegExp][] = [
      [signEnvelope(envelope(feeDocument('SSEK-SIG-1')), { key: employerKey, cover: ['Body'] }), 'wsse:FailedCheck', /does not cover the ssek:SSEK header \(wsu:Id &quot;ssek-header&quot;\), the wsu:Timestamp/],
      [signEnvelope(envelope(feeDocument('SSEK-SIG-2')), { key: employerKey, cover: ['Body', 'Timestamp'] }), 'wsse:FailedCheck', /does not cover the ssek:SSEK header/],
      // A captured envelope sent again under a new TxId: the header no longer matches its signature.
      [signed(envelope(feeDocument('SSEK-SIG-3'), { txId: randomUUID() })).replace(/<ssek:TxId>[^<]*</, `<ssek:TxId>${randomUUID()}<`), 'wsse:FailedCheck', /does not verify/],
      // The same envelope ten minutes later.
      [signEnvelope(envelope(feeDocument('SSEK-SIG-4')), { key: employerKey, created: new Date(Date.now() - 10 * 60_000) }), 'wsse:MessageExpired', /more than 5 minutes ago; sign each request anew/],
      [signEnvelope(envelope(feeDocument('SSEK-SIG-5')), { key: employerKey, created: new Date(Date.now() + 10 * 60_000) }), 'wsse:MessageExpired', /in the future/],
      // Another sender's key under the employer's SenderId.
      [signed(envelope(feeDocument('SSEK-SIG-6')), administratorKey), 'wsse:FailedCheck', /invalid signature: the signature value .* is incorrect|does not verify with the registered certificate/],
      [envelope(feeDocument('SSEK-SIG-7')), 'wsse:FailedCheck', /no ds:Signature/],
    ];
    for (const [request, faultcode, text] of cases) {
      const answer = await curl(url, request);
      assert.equal(answer.status, 500);
      assert.equal(faultcodeOf(answer.body), faultcode, answer.body);
      assert.match(answer.body, text);
    }
    const { rows } = await gateway.deps.db.query(`SELECT 1 FROM messages WHERE raw::text LIKE '%SSEK-SIG-%'`);
    assert.equal(rows.length, 0, 'refused envelopes are not recorded');
  });

  test('an envelope with a second Body or a second SSEK header is refused: the signature could cover one and the gateway read the other', async () => {
    const request = signed(envelope(feeDocument('SSEK-WRAP-1')));
    const secondBody = request.replace('</soap:Envelope>', `<soap:Body>${withoutProlog(feeDocument('SSEK-WRAP-2', '999'))}</soap:Body></soap:Envelope>`);
    const answer = await curl(url, secondBody);
    assert.equal(faultcodeOf(answer.body), 'soap:Client');
    assert.match(answer.body, /more than one soap:Body/);
    const secondHeader = request.replace('<soap:Header>', `<soap:Header>${ssekHeader({ sender: ADMINISTRATOR })}`);
    const refused = await curl(url, secondHeader);
    assert.equal(faultcodeOf(refused.body), 'soap:Client');
    assert.match(refused.body, /more than one ssek:SSEK header/);
  });

  test('the WSDL gives the configured address, whatever Host the request names', async () => {
    const { stdout } = await run('curl', ['-s', '-H', 'Host: attacker.example', `${url}?wsdl`]);
    assert.match(stdout, new RegExp(`<soap:address location="${url}"/>`));
    assert.doesNotMatch(stdout, /attacker/);
  });
});

describe('SSEK endpoint over HTTPS with client certificates and WS-Security', () => {
  let certificates: TestCertificates;
  let gateway: TestGateway;
  let url: string;
  let clientArgs: string[];
  let signingKey: string;

  beforeAll(async () => {
    certificates = await makeTestCertificates();
    const client = await certificates.client('hr-vendor');
    const signing = await certificates.signing('hr-vendor-signing');
    signingKey = await readFile(signing.key, 'utf8');
    clientArgs = ['--cacert', certificates.ca.cert, '--cert', client.cert, '--key', client.key];
    gateway = await startTestGateway({
      roles: ['api', 'worker'],
      settings: {
        ssek: { syncWaitMs: 0, tls: { certPath: certificates.server.cert, keyPath: certificates.server.key, clientCaPath: certificates.ca.cert } },
        counterparties: counterparties({ 'demo-employer': { clientCertificateSubject: 'hr-vendor', signingCertificatePath: signing.cert } }),
      },
    });
    url = `${baseUrl(gateway, 'https')}/ssek`;
  });
  afterAll(async () => {
    await gateway.destroy();
    await certificates.remove();
  });

  const signedEnvelope = (document: string, txId: string) => signEnvelope(envelope(document, { txId }), { key: signingKey });

  test('a signed request with the client certificate gets a receipt (sync wait over), and GetResponse pulls the response', async () => {
    const txId = randomUUID();
    const answer = await curl(url, signedEnvelope(feeDocument('SSEK-TLS-1', '350'), txId), clientArgs);
    assert.equal(answer.status, 200, answer.body);
    assert.match(answer.body, new RegExp(`<Receipt xmlns="urn:se:depot-gateway:v1">[\\s\\S]*<TxId>${txId}</TxId>[\\s\\S]*<Status>Received</Status>`));
    const pull = `<GetResponse xmlns="urn:se:depot-gateway:v1"><TxId>${txId}</TxId></GetResponse>`;
    const pulled = await waitFor(async () => {
      const reply = await curl(url, signedEnvelope(pull, randomUUID()), clientArgs);
      return reply.body.includes('<ChangeFeeResponse') && reply;
    }, 'the pulled response');
    assert.match(pulled.body, /<InResponseTo>SSEK-TLS-1<\/InResponseTo>[\s\S]*<Status>Accepted<\/Status>/);
    const { rows } = await gateway.deps.db.query(`SELECT 1 FROM insurance_fees WHERE value = 350`);
    assert.equal(rows.length, 1);
    const unknown = await curl(url, signedEnvelope(`<GetResponse xmlns="urn:se:depot-gateway:v1"><TxId>${randomUUID()}</TxId></GetResponse>`, randomUUID()), clientArgs);
    assert.equal(faultcodeOf(unknown.body), 'soap:Client');
    assert.match(unknown.body, /SSEK_TX_ID_NOT_FOUND/);
  });

  test('without the registered client certificate the sender is not accepted', async () => {
    const answer = await curl(url, signedEnvelope(feeDocument('SSEK-TLS-2'), randomUUID()), ['--cacert', certificates.ca.cert]);
    assert.equal(answer.status, 500);
    assert.equal(faultcodeOf(answer.body), 'ssek:SenderIdUnknown');
    assert.match(answer.body, /registered client certificate/);
    const other = await certificates.client('someone-else');
    const wrong = await curl(url, signedEnvelope(feeDocument('SSEK-TLS-3'), randomUUID()), ['--cacert', certificates.ca.cert, '--cert', other.cert, '--key', other.key]);
    assert.equal(faultcodeOf(wrong.body), 'ssek:SenderIdUnknown');
  });

  test('a tampered signed body and an unsigned one are refused with wsse:FailedCheck', async () => {
    const tampered = signedEnvelope(feeDocument('SSEK-TLS-4', '360'), randomUUID()).replace('<Value>360</Value>', '<Value>999</Value>');
    const answer = await curl(url, tampered, clientArgs);
    assert.equal(answer.status, 500);
    assert.equal(faultcodeOf(answer.body), 'wsse:FailedCheck');
    const unsigned = await curl(url, envelope(feeDocument('SSEK-TLS-5'), {}), clientArgs);
    assert.equal(faultcodeOf(unsigned.body), 'wsse:FailedCheck');
    assert.match(unsigned.body, /no ds:Signature/);
    const { rows } = await gateway.deps.db.query(`SELECT 1 FROM messages WHERE raw::text LIKE '%SSEK-TLS-4%' OR raw::text LIKE '%SSEK-TLS-5%'`);
    assert.equal(rows.length, 0);
  });

  test('the WSDL is published over HTTPS with the endpoint address', async () => {
    const { stdout } = await run('curl', ['-s', ...clientArgs, `${url}?wsdl`]);
    assert.match(stdout, /<wsdl:operation name="ChangeFee">/);
    assert.match(stdout, /<wsdl:operation name="GetResponse">/);
    assert.match(stdout, new RegExp(`<soap:address location="${url}"/>`));
  });
});
