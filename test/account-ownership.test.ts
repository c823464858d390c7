/**
 * The account-ownership check the configuration chooses: `local` from the listed
 * holders (accounts read by the bank rules, so a Swedbank account is found however
 * written), and `http` against a service on loopback speaking the documented protocol —
 * an answer it does not understand, or an error status, throws (the account stays pending).
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseConfig } from '../src/config/load-config.ts';
import { parseBankAccount, type BankAccount } from '../src/core/bank-account.ts';
import { accountOwnershipFrom } from '../src/calendar/account-ownership.ts';

const account = (digits: string): BankAccount => {
  const reading = parseBankAccount(digits);
  assert.ok(reading.ok);
  return reading.account;
};

test('local: the listed holder owns the account; a bad account in the list fails the configuration naming it', async () => {
  const config = parseConfig({ accountOwnership: { kind: 'local', holders: [{ accountNumber: '8327123456782', holderId: '198506152381' }] } });
  const check = accountOwnershipFrom(config.accountOwnership!);
  assert.deepEqual(await check.check(account('83270123456782'), '198506152381'), { owned: true });
  assert.deepEqual(await check.check(account('83270123456782'), '197001011233'), { owned: false, reason: 'the account is not held by the policyholder 197001011233' });
  assert.throws(() => parseConfig({ accountOwnership: { kind: 'local', holders: [{ accountNumber: '50001234567', holderId: '198506152381' }] } }), /accountOwnership\.holders\.0\.accountNumber/);
});

test('http: the request carries the account and the holder with the token; owned, not owned with the reason, or a thrown error', async () => {
  const received: unknown[] = [];
  const answers = [{ status: 200, body: { owned: true } }, { status: 200, body: { owned: false, reason: 'held by someone else' } }, { status: 503, body: {} }, { status: 200, body: { owned: 'yes' } }];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method, authorization: req.headers.authorization, body: JSON.parse(body) as unknown });
      const answer = answers.shift()!;
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ownership-checks`;
    const check = accountOwnershipFrom(parseConfig({ accountOwnership: { kind: 'http', url, token: 'secret-token', timeoutMs: 2000 } }).accountOwnership!);
    assert.deepEqual(await check.check(account('50001234560'), '198506152381'), { owned: true });
    assert.deepEqual(received[0], {
      method: 'POST', authorization: 'Bearer secret-token',
      body: { clearingNumber: '5000', accountNumber: '1234560', bankName: 'SEB', holderId: '198506152381' },
    });
    assert.deepEqual(await check.check(account('50001234560'), '198506152381'), { owned: false, reason: 'held by someone else' });
    await assert.rejects(check.check(account('50001234560'), '198506152381'), /answered 503/);
    await assert.rejects(check.check(account('50001234560'), '198506152381'), /answered neither/);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
