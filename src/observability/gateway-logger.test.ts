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

test('error texts, messages, URLs and bindings are written with each personal identity number masked', () => {
  const { log, text } = memoryLogger();
  const schemaError = new Error("Element 'PersonalIdentityNumber': '197001011234' is not a valid value of the atomic type 'PersonalIdentityNumber'.");
  log.error({ err: schemaError }, 'validation failed');
  const databaseError = Object.assign(new Error('duplicate key value violates unique constraint "employments_pkey"'), { detail: 'Key (personal_identity_number)=(198002021239) already exists.' });
  log.warn({ err: databaseError }, 'apply transaction failed');
  log.warn({ err: 'Person 19900303-1235 has no employment under AGR-1001' }, 'stage failed; will retry');
  log.info(`looked up 7001011233 and 700101-1233`);
  log.child({ role: 'api' }).info({ req: { method: 'GET', url: '/api/agreements/AGR-1001/persons/198512121230' } }, 'incoming request');
  const written = text();
  for (const number of ['7001011234', '8002021239', '9003031235', '7001011233', '700101-1233', '8512121230']) assert.ok(!written.includes(number), `${number} in ${written}`);
  for (const masked of ['19700101-****', '19800202-****', '19900303-****', '700101-****', '/persons/19851212-****']) assert.ok(written.includes(masked), `${masked} in ${written}`);
  assert.match(written, /has no employment under AGR-1001/, 'the rest of the text stays');
});

test('fields named for a number are redacted whatever their form', () => {
  const { log, text } = memoryLogger();
  log.info({ pin: '197001011233', item: { personalIdentityNumber: '19700101 1233' }, items: { first: { pin: 7001011233 } } }, 'person');
  const record = JSON.parse(text()) as { pin: string; item: { personalIdentityNumber: string }; items: { first: { pin: string } } };
  assert.equal(record.pin, '19700101-****');
  assert.equal(record.item.personalIdentityNumber, '[personal identity number]');
  assert.equal(record.items.first.pin, '[personal identity number]');
});
