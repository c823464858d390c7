import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { gatewayLoggerOptions } from './gateway-logger.ts';

/** A gateway logger writing into memory: the lines as they would reach stdout. */
function memoryLogger() {
  const lines: string[] = [];
  const log = pino(gatewayLoggerOptions('debug'), { write: (line: string) => void lines.push(line) });
  return { log, text: () => lines.join('') };
}

const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJmaXJtIn0.c2lnbmF0dXJl';

test('fields named for a credential are dropped, in headers and wherever a log call puts them', () => {
  const { log, text } = memoryLogger();
  log.info({ req: { method: 'GET', url: '/Product', headers: { authorization: 'Basic ZmlybTpmaXJtLXNlY3JldA==', host: 'gw' } } }, 'incoming request');
  log.info({ access_token: 'opaque-token', client: { authorization: 'opaque-credential' } }, 'token issued');
  const [first, second] = text().trim().split('\n').map((line) => JSON.parse(line) as Record<string, Record<string, unknown>>);
  assert.deepEqual(first!.req, { method: 'GET', url: '/Product', headers: { authorization: '[dropped]', host: 'gw' } });
  assert.equal(second!.access_token, '[dropped]');
  assert.deepEqual(second!.client, { authorization: '[dropped]' });
  assert.ok(!text().includes('ZmlybTpmaXJtLXNlY3JldA') && !text().includes('opaque'), text());
});

test('fields named for an account: a bank account masked to its clearing number, a custody account kept', () => {
  const { log, text } = memoryLogger();
  log.info({ accountNumber: '50001234560', account: { clearingNumber: '5000', accountNumber: '1234560', bankName: 'SEB', digits: '50001234560' } }, 'withdrawal requested');
  log.warn({ held: [{ accountNumber: 'DEPA-100001', insuranceNumber: 'INS-200001' }], accounts: 3 }, 'debit run: accounts held back');
  const [first, second] = text().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.equal(first!.accountNumber, '5000*******');
  assert.equal(first!.account, '5000*******');
  assert.deepEqual(second!.held, [{ accountNumber: 'DEPA-100001', insuranceNumber: 'INS-200001' }]);
  assert.equal(second!.accounts, 3);
});

test('URLs and messages: the token and the account in the path are not written, the rest of the line is', () => {
  const { log, text } = memoryLogger();
  log.child({ role: 'api' }).info({ req: { method: 'GET', url: `/Customer/50001234560/WithdrawalInformation?access_token=${TOKEN}` } }, 'incoming request');
  log.warn(`refused Bearer ${TOKEN} for /Customer/83279931432489/WithdrawalAccount`);
  const written = text();
  for (const secret of [TOKEN, '50001234560', '83279931432489', '1234560']) assert.ok(!written.includes(secret), `${secret} in ${written}`);
  for (const kept of ['/Customer/5000*******/WithdrawalInformation?access_token=[dropped]', 'refused Bearer [dropped] for /Customer/8327**********/WithdrawalAccount', '"role":"api"']) {
    assert.ok(written.includes(kept), `${kept} in ${written}`);
  }
});
