/**
 * Empty console lists say what is empty: the withdrawal requests unfiltered ("all") or
 * of one status, and the audit log whole or about one subject, instead of a wrong
 * "with this status" or a bare table header. A fresh ledger on PostgreSQL, signed in.
 */
import { test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from './support/harness.ts';
import { consolePage, signInToConsole, type ConsoleSession } from './support/console-session.ts';

let gateway: TestGateway;
let session: ConsoleSession;

beforeAll(async () => {
  gateway = await startTestGateway({ roles: ['api'] });
  session = await signInToConsole(gateway.http!, 'staff', 'test-password');
});
afterAll(async () => {
  await gateway?.destroy();
});

const get = (url: string) => consolePage(gateway.http!, session, url);

test('the withdrawal requests: "all" empty is no withdrawal requests, a status empty names the status', async () => {
  const { rows } = await gateway.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM withdrawal_requests');
  assert.equal(Number(rows[0]!.n), 0, 'a ledger without withdrawal requests');
  assert.match(await get('/console/withdrawal-requests'), /<p id="withdrawal-requests-none">No withdrawal requests\.<\/p>/);
  assert.match(await get('/console/withdrawal-requests?status=signed'), /<p id="withdrawal-requests-none">No withdrawal requests with status signed\.<\/p>/);
});

test('the audit log: empty says nothing is recorded yet, about a subject that nothing about it is', async () => {
  const whole = await get('/console/audit');
  assert.match(whole, /<p id="audit-none">No staff action is recorded yet: /);
  assert.doesNotMatch(whole, /<table id="audit">/, 'no bare table header');
  assert.match(await get('/console/audit?subject=01JNOTHINGRECORDED0000000'), /<p id="audit-none">No staff action about 01JNOTHINGRECORDED0000000 is recorded\.<\/p>/);
});
