/**
 * The BankID adapter against the local BankID server over real mutual TLS: certificates
 * made with openssl (a CA, the server's, our relying-party certificate, and a second CA
 * whose certificates must be refused), the adapter built from `bankid` settings the way
 * the gateway builds it, and the person's side of each order played through the local
 * server's control. The server's clock is the test's, moved forward for expiry.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SignedXml } from 'xml-crypto';
import { BankIdError, createBankIdClientFromConfig, type BankIdClient } from '../src/bankid/bankid-client.ts';
import { personStatusOf, personStatusOfError } from '../src/bankid/hint-codes.ts';
import { checkSignatory } from '../src/bankid/signatory-check.ts';
import { startLocalBankIdServer, type LocalBankIdServer } from '../src/bankid/local-bankid-server.ts';
import type { LocalPerson } from '../src/bankid/local-bankid-orders.ts';
import { makeTestCertificates, type CertificatePaths, type TestCertificates } from './support/certificates.ts';

const run = promisify(execFile);
const LIFETIME_MS = 180_000;
const TOVE: LocalPerson = { personalNumber: '198112289874', givenName: 'Tove', surname: 'Lind' };
const EBBE: LocalPerson = { personalNumber: '197905202388', givenName: 'Ebbe', surname: 'Holm' };
const WITHDRAWAL = '# Uttag\n\nJag begär uttag av **12 500 kr** från försäkring 4711-0815 till konto 8327-9, 123 456 789-0.';

async function rejection(promise: Promise<unknown>): Promise<BankIdError> {
  const error = await promise.then(() => undefined, (thrown: unknown) => thrown);
  assert.ok(error instanceof BankIdError, `expected a BankIdError, got ${String(error)}`);
  return error;
}

describe('BankID adapter against the local BankID server over mutual TLS', () => {
  let certificates: TestCertificates;
  let strangers: TestCertificates;
  let relyingParty: CertificatePaths;
  let server: LocalBankIdServer;
  let client: BankIdClient;
  let clockOffsetMs = 0;
  const settingsFor = (url: string, credentials: CertificatePaths, caPath = certificates.ca.cert) =>
    ({ url, certPath: credentials.cert, keyPath: credentials.key, caPath, timeoutMs: 5_000 });

  beforeAll(async () => {
    certificates = await makeTestCertificates();
    strangers = await makeTestCertificates();
    relyingParty = await certificates.client('depot-gateway-rp');
    server = await startLocalBankIdServer({
      tls: { cert: await readFile(certificates.server.cert), key: await readFile(certificates.server.key), clientCa: await readFile(certificates.ca.cert) },
      orderLifetimeMs: LIFETIME_MS,
      now: () => Date.now() + clockOffsetMs,
    });
    client = await createBankIdClientFromConfig(settingsFor(server.url, relyingParty));
  });
  afterAll(async () => {
    client.close();
    await server.close();
    await certificates.remove();
    await strangers.remove();
  });

  test('a sign order goes outstandingTransaction → started → userSign → complete, and counts for the expected signatory', async () => {
    const order = await client.sign({ endUserIp: '192.0.2.10', visibleText: WITHDRAWAL, visibleTextFormat: 'simpleMarkdownV1', requirement: { personalNumber: TOVE.personalNumber } });
    const tokens = [order.orderRef, order.autoStartToken, order.qrStartToken, order.qrStartSecret];
    assert.equal(new Set(tokens).size, 4);
    const received = server.control.order(order.orderRef)?.request;
    assert.equal(Buffer.from(received?.userVisibleData ?? '', 'base64').toString('utf8'), WITHDRAWAL);
    assert.equal(received?.userVisibleDataFormat, 'simpleMarkdownV1');
    assert.deepEqual(received?.requirement, { personalNumber: TOVE.personalNumber });

    const first = await client.collect(order.orderRef);
    assert.deepEqual(first, { orderRef: order.orderRef, status: 'pending', hintCode: 'outstandingTransaction' });
    assert.equal(personStatusOf(first).step, 'openBankIdApp');
    server.control.startApp(order.orderRef);
    assert.deepEqual(await client.collect(order.orderRef), { orderRef: order.orderRef, status: 'pending', hintCode: 'started' });
    server.control.showToPerson(order.orderRef);
    const signing = await client.collect(order.orderRef);
    assert.deepEqual(signing, { orderRef: order.orderRef, status: 'pending', hintCode: 'userSign' });
    assert.equal(personStatusOf(signing).step, 'signInApp');
    server.control.sign(order.orderRef, TOVE);

    const done = await client.collect(order.orderRef);
    assert.equal(done.status, 'complete');
    assert.deepEqual(done.completionData.user, { personalNumber: TOVE.personalNumber, name: 'Tove Lind', givenName: 'Tove', surname: 'Lind' });
    assert.equal(done.completionData.device.ipAddress, '192.0.2.10');
    assert.match(done.completionData.bankIdIssueDate, /^\d{4}-\d{2}-\d{2}$/);
    assert.match(Buffer.from(done.completionData.ocspResponse, 'base64').toString('utf8'), /"certStatus":"good"/);
    const check = checkSignatory(done, { personalNumber: '19811228-9874', visibleText: WITHDRAWAL });
    assert.equal(check.counts, true);

    // The signature is a real XML signature by the server's key over the text we sent.
    const xml = Buffer.from(done.completionData.signature, 'base64').toString('utf8');
    const verifier = new SignedXml({ publicCert: await readFile(certificates.server.cert) });
    verifier.loadSignature(xml);
    assert.equal(verifier.checkSignature(xml), true);
    assert.deepEqual(verifier.getReferences().map((reference) => reference.uri), ['#bidSignedData']);
    // … so a completed order whose signature covers other text does not count.
    assert.deepEqual(checkSignatory(done, { personalNumber: TOVE.personalNumber, visibleText: WITHDRAWAL.replace('12 500', '125 000') }), { counts: false, reason: 'otherText' });
    assert.equal(personStatusOf(await client.collect(order.orderRef)).step, 'signed');
  });

  test('the relying-party certificate as a PKCS#12 file with a passphrase works the same', async () => {
    const pfxPath = join(certificates.dir, 'relying-party.p12');
    await run('openssl', ['pkcs12', '-export', '-in', relyingParty.cert, '-inkey', relyingParty.key, '-passout', 'pass:test-pfx-passphrase', '-out', pfxPath]);
    const pfxClient = await createBankIdClientFromConfig({ url: server.url, pfxPath, passphrase: 'test-pfx-passphrase', caPath: certificates.ca.cert, timeoutMs: 5_000 });
    try {
      const order = await pfxClient.sign({ endUserIp: '2001:db8::7', visibleText: 'PKCS#12' });
      assert.equal((await pfxClient.collect(order.orderRef)).status, 'pending');
      await pfxClient.cancel(order.orderRef);
    } finally {
      pfxClient.close();
    }
  });

  test('the person cancels in the app: failed userCancel, not counted, and the order takes no further step', async () => {
    const order = await client.sign({ endUserIp: '192.0.2.11', visibleText: WITHDRAWAL, requirement: { personalNumber: TOVE.personalNumber } });
    server.control.startApp(order.orderRef);
    server.control.showToPerson(order.orderRef);
    server.control.cancelInApp(order.orderRef);
    const collected = await client.collect(order.orderRef);
    assert.deepEqual(collected, { orderRef: order.orderRef, status: 'failed', hintCode: 'userCancel' });
    assert.deepEqual(personStatusOf(collected), { step: 'cancelledByPerson', finished: true, tryAgain: true, message: personStatusOf(collected).message, rfa: 'RFA6' });
    assert.deepEqual(checkSignatory(collected, { personalNumber: TOVE.personalNumber, visibleText: WITHDRAWAL }), { counts: false, reason: 'notComplete', status: 'failed', hintCode: 'userCancel' });
    assert.throws(() => server.control.sign(order.orderRef, TOVE), /is failed\/userCancel/);
  });

  test('an order nobody signs within its lifetime fails with expiredTransaction, and the person can start a new one', async () => {
    const order = await client.sign({ endUserIp: '192.0.2.12', visibleText: WITHDRAWAL, requirement: { personalNumber: EBBE.personalNumber } });
    server.control.startApp(order.orderRef);
    clockOffsetMs += LIFETIME_MS - 1_000;
    assert.deepEqual(await client.collect(order.orderRef), { orderRef: order.orderRef, status: 'pending', hintCode: 'started' });
    clockOffsetMs += 1_000;
    const expired = await client.collect(order.orderRef);
    assert.deepEqual(expired, { orderRef: order.orderRef, status: 'failed', hintCode: 'expiredTransaction' });
    assert.equal(personStatusOf(expired).step, 'timedOut');
    assert.throws(() => server.control.showToPerson(order.orderRef), /expiredTransaction/);
    const next = await client.sign({ endUserIp: '192.0.2.12', visibleText: WITHDRAWAL, requirement: { personalNumber: EBBE.personalNumber } });
    await client.cancel(next.orderRef);
  });

  test('a second order for the same person while one is pending is refused with alreadyInProgress, and the first is cancelled', async () => {
    const first = await client.sign({ endUserIp: '192.0.2.13', visibleText: WITHDRAWAL, requirement: { personalNumber: TOVE.personalNumber } });
    const other = await client.sign({ endUserIp: '192.0.2.14', visibleText: WITHDRAWAL, requirement: { personalNumber: EBBE.personalNumber } });
    const refused = await rejection(client.sign({ endUserIp: '192.0.2.13', visibleText: 'again', requirement: { personalNumber: TOVE.personalNumber } }));
    assert.equal(refused.errorCode, 'alreadyInProgress');
    assert.equal(refused.httpStatus, 400);
    assert.equal(refused.retryable, false);
    assert.equal(personStatusOfError(refused.errorCode).rfa, 'RFA4');
    const cancelled = await client.collect(first.orderRef);
    assert.deepEqual(cancelled, { orderRef: first.orderRef, status: 'failed', hintCode: 'cancelled' });
    assert.equal(personStatusOf(cancelled).step, 'replacedByNewOrder');
    // Another person's order was untouched, and with nothing pending Tove can start again.
    assert.deepEqual(await client.collect(other.orderRef), { orderRef: other.orderRef, status: 'pending', hintCode: 'outstandingTransaction' });
    const again = await client.sign({ endUserIp: '192.0.2.13', visibleText: WITHDRAWAL, requirement: { personalNumber: TOVE.personalNumber } });
    assert.equal((await client.collect(again.orderRef)).status, 'pending');
    await client.cancel(again.orderRef);
    await client.cancel(other.orderRef);
  });

  test('a client certificate from another CA, or none, is refused in the TLS handshake: the RP API never sees the request', async () => {
    const seen = server.control.requests.length;
    const orders = server.control.orders().length;
    const stranger = await strangers.client('depot-gateway-rp');
    const strangerClient = await createBankIdClientFromConfig(settingsFor(server.url, stranger));
    try {
      const refused = await rejection(strangerClient.sign({ endUserIp: '192.0.2.15', visibleText: WITHDRAWAL }));
      assert.equal(refused.errorCode, 'connectionFailed');
      assert.equal(refused.httpStatus, undefined);
      assert.match(refused.details, /alert|unknown ca|certificate|ECONNRESET|socket hang up/i);
    } finally {
      strangerClient.close();
    }
    const ca = await readFile(certificates.ca.cert);
    const bare = await new Promise<Error>((resolve) => {
      const req = request(`${server.url}/rp/v6.0/sign`, { method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
        resolve(new Error(`answered HTTP ${res.statusCode ?? 0}`));
        res.resume();
      });
      req.on('error', resolve);
      req.end('{}');
    });
    assert.doesNotMatch(bare.message, /answered HTTP/);
    assert.equal(server.control.requests.length, seen);
    assert.equal(server.control.orders().length, orders);
  });

  test('the adapter refuses a BankID server whose certificate its configured CA did not issue', async () => {
    const wrongTrust = await createBankIdClientFromConfig(settingsFor(server.url, relyingParty, strangers.ca.cert));
    try {
      const refused = await rejection(wrongTrust.collect(randomUUID()));
      assert.equal(refused.errorCode, 'connectionFailed');
      assert.match(refused.details, /self[- ]signed|unable to (get|verify)|certificate/i);
    } finally {
      wrongTrust.close();
    }
  });

  test('someone else completes an order started without a personal number: the signature does not count, and the result says who', async () => {
    const order = await client.sign({ endUserIp: '192.0.2.16', visibleText: WITHDRAWAL });
    server.control.signThrough(order.orderRef, EBBE);
    const collected = await client.collect(order.orderRef);
    assert.equal(collected.status, 'complete');
    assert.deepEqual(checkSignatory(collected, { personalNumber: TOVE.personalNumber, visibleText: WITHDRAWAL }), {
      counts: false, reason: 'otherSigner', expected: TOVE.personalNumber, signedBy: EBBE.personalNumber,
    });
    // With the personal number required, BankID shows the order to that person only.
    const required = await client.sign({ endUserIp: '192.0.2.16', visibleText: WITHDRAWAL, requirement: { personalNumber: TOVE.personalNumber } });
    server.control.startApp(required.orderRef);
    server.control.showToPerson(required.orderRef);
    assert.throws(() => server.control.sign(required.orderRef, EBBE), /requires 198112289874/);
    await client.cancel(required.orderRef);
  });

  test('collect of an unknown or cancelled orderRef is invalidParameters "No such order", as BankID answers; an unknown path is notFound', async () => {
    const unknown = await rejection(client.collect(randomUUID()));
    assert.deepEqual({ errorCode: unknown.errorCode, details: unknown.details, httpStatus: unknown.httpStatus }, { errorCode: 'invalidParameters', details: 'No such order', httpStatus: 400 });
    const order = await client.sign({ endUserIp: '192.0.2.17', visibleText: WITHDRAWAL });
    await client.cancel(order.orderRef);
    assert.equal((await rejection(client.collect(order.orderRef))).details, 'No such order');
    assert.equal((await rejection(client.cancel(order.orderRef))).errorCode, 'invalidParameters');

    const wrongPath = await postRaw(`${server.url}/rp/v6.0/colect`, { orderRef: order.orderRef }, relyingParty, certificates.ca.cert);
    assert.equal(wrongPath.status, 404);
    assert.equal(JSON.parse(wrongPath.body).errorCode, 'notFound');
    const wrongType = await postRaw(`${server.url}/rp/v6.0/collect`, 'orderRef', relyingParty, certificates.ca.cert, 'text/plain');
    assert.deepEqual([wrongType.status, JSON.parse(wrongType.body).errorCode], [415, 'unsupportedMediaType']);
  });

  test('bad sign parameters are invalidParameters naming the field; during maintenance every call is 503 maintenance, worth retrying', async () => {
    const badIp = await rejection(client.sign({ endUserIp: 'not-an-address', visibleText: WITHDRAWAL }));
    assert.deepEqual([badIp.errorCode, badIp.details], ['invalidParameters', 'Invalid endUserIp']);
    const badNumber = await rejection(client.sign({ endUserIp: '192.0.2.18', visibleText: WITHDRAWAL, requirement: { personalNumber: '8112289874' } }));
    assert.deepEqual([badNumber.errorCode, badNumber.details], ['invalidParameters', 'Invalid personalNumber']);
    const tooLong = await rejection(client.sign({ endUserIp: '192.0.2.18', visibleText: 'x'.repeat(30_001) }));
    assert.deepEqual([tooLong.errorCode, tooLong.details], ['invalidParameters', 'Invalid userVisibleData']);
    server.control.setMaintenance(true);
    try {
      const down = await rejection(client.collect(randomUUID()));
      assert.deepEqual([down.errorCode, down.httpStatus, down.retryable], ['maintenance', 503, true]);
      assert.equal(personStatusOfError(down.errorCode).step, 'serviceUnavailable');
    } finally {
      server.control.setMaintenance(false);
    }
  });

  test('a relying party the service does not serve gets 401 unauthorized after the handshake', async () => {
    const narrow = await startLocalBankIdServer({
      tls: { cert: await readFile(certificates.server.cert), key: await readFile(certificates.server.key), clientCa: await readFile(certificates.ca.cert) },
      relyingParties: ['another-insurer'],
    });
    const narrowClient = await createBankIdClientFromConfig(settingsFor(narrow.url, relyingParty));
    try {
      const refused = await rejection(narrowClient.sign({ endUserIp: '192.0.2.19', visibleText: WITHDRAWAL }));
      assert.deepEqual([refused.errorCode, refused.httpStatus, refused.retryable], ['unauthorized', 401, false]);
      assert.deepEqual(narrow.control.requests, [{ path: '/rp/v6.0/sign', relyingParty: 'depot-gateway-rp' }]);
      assert.equal(narrow.control.orders().length, 0);
    } finally {
      narrowClient.close();
      await narrow.close();
    }
  });
});

/** A POST outside the adapter (wrong path, wrong media type), with the relying-party certificate. */
async function postRaw(url: string, body: unknown, credentials: CertificatePaths, caPath: string, contentType = 'application/json'): Promise<{ status: number; body: string }> {
  const [cert, key, ca] = await Promise.all([readFile(credentials.cert), readFile(credentials.key), readFile(caPath)]);
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', cert, key, ca, headers: { 'content-type': contentType } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}
