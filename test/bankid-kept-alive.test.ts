/**
 * The BankID adapter and a kept-alive connection the server has closed: a server closes
 * an idle connection at its keep-alive time (or late, when its process was busy as the
 * timer fell due), and a request the adapter sends on it as it closes is reset before any
 * answer. Such a request is sent once more on a connection of its own; a reset on a new
 * connection, or once an answer has begun, is not. A real TLS server with mutual
 * authentication (the test CA's certificates) that drops the second request on each
 * connection stands in for that moment.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { BankIdError, createBankIdClient, type BankIdClient } from '../src/bankid/bankid-client.ts';
import { makeTestCertificates, type TestCertificates } from './support/certificates.ts';

describe('the BankID adapter on a kept-alive connection the server closed', () => {
  let certificates: TestCertificates;
  let server: Server;
  let client: BankIdClient;
  /** What the server does with the n-th request of a connection (1-based); answers by default. */
  let onRequest: (nth: number) => 'answer' | 'reset' = (nth) => (nth >= 2 ? 'reset' : 'answer');
  const seen: { connection: number; nth: number; orderRef: string }[] = [];

  beforeAll(async () => {
    certificates = await makeTestCertificates();
    const relyingParty = await certificates.client('depot-gateway-rp');
    const perConnection = new WeakMap<Socket, { id: number; requests: number }>();
    let connections = 0;
    server = createServer({
      cert: await readFile(certificates.server.cert), key: await readFile(certificates.server.key),
      ca: await readFile(certificates.ca.cert), requestCert: true, rejectUnauthorized: true,
    }, (req, res) => {
      const socket = req.socket;
      const state = perConnection.get(socket)!;
      state.requests += 1;
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const { orderRef } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { orderRef: string };
        seen.push({ connection: state.id, nth: state.requests, orderRef });
        if (onRequest(state.requests) === 'reset') return void socket.destroy();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ orderRef, status: 'pending', hintCode: 'outstandingTransaction' }));
      });
    });
    server.on('secureConnection', (socket: Socket) => {
      connections += 1;
      perConnection.set(socket, { id: connections, requests: 0 });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    client = createBankIdClient({
      url: `https://127.0.0.1:${port}`, ca: await readFile(certificates.ca.cert),
      credentials: { cert: await readFile(relyingParty.cert), key: await readFile(relyingParty.key) },
    });
  });
  afterAll(async () => {
    client?.close();
    await new Promise((resolve) => server?.close(resolve));
    await certificates?.remove();
  });

  test('a request reset on a kept-alive connection is sent once more, on a new connection, and answered', async () => {
    assert.equal((await client.collect('order-1')).status, 'pending');
    const answer = await client.collect('order-2');
    assert.deepEqual(answer, { orderRef: 'order-2', status: 'pending', hintCode: 'outstandingTransaction' });
    assert.deepEqual(seen.map((request) => [request.orderRef, request.nth]), [['order-1', 1], ['order-2', 2], ['order-2', 1]], 'dropped as the second of its connection, answered as the first of a new one');
    assert.equal(new Set(seen.map((request) => request.connection)).size, 2);
  });

  test('a reset on a new connection is not sent again: connectionFailed, which may be retried later', async () => {
    onRequest = () => 'reset';
    seen.length = 0;
    // The kept-alive connection was reset and the second attempt's was its own: this request opens a new one.
    const error = await client.collect('order-3').then(() => assert.fail('answered'), (failure: unknown) => failure);
    assert.ok(error instanceof BankIdError, String(error));
    assert.equal(error.errorCode, 'connectionFailed');
    assert.equal(error.retryable, true);
    assert.deepEqual(seen.map((request) => request.orderRef), ['order-3'], 'sent once');
  });
});
