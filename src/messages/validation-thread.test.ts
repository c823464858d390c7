import { test, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GatewayError } from '../core/gateway-error.ts';
import { processSchemaValidator, startValidationThread } from './validation-thread.ts';

// Everything below runs on validation threads (where === 'thread'). Verdicts arrive from the
// thread as objects of jest's outer realm, which node:assert's deepStrictEqual refuses to
// equate with the test's literals; expect().toStrictEqual compares them as strictly.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCHEMAS = join(ROOT, 'schemas');
const fixture = (type: string, kind: string, name: string) => readFileSync(join(ROOT, 'fixtures', type, kind, name), 'utf8');

test('validation runs on a thread of its own, and gives each document its verdict', async () => {
  const validator = await processSchemaValidator(SCHEMAS);
  assert.equal(validator.where, 'thread');
  assert.equal(await processSchemaValidator(SCHEMAS), validator, 'one validator per process');

  const invalidName = readdirSync(join(ROOT, 'fixtures', 'SalaryAdjustment', 'invalid')).find((name) => name.startsWith('SCHEMA_VIOLATION') && name.endsWith('.xml') && !name.endsWith('.response.xml'));
  assert.ok(invalidName);
  const valid = fixture('SalaryAdjustment', 'valid', 'multi-item.xml');
  const invalid = fixture('SalaryAdjustment', 'invalid', invalidName);
  const verdicts = await validator.validateDocuments([valid, invalid, valid, '<SalaryAdjustment xmlns="urn:se:depot-gateway:v1"><Header>'], 'SalaryAdjustment');
  assert.equal(verdicts.length, 4);
  expect(verdicts[0]).toStrictEqual({ errors: [] });
  expect(verdicts[2]).toStrictEqual({ errors: [] });
  const errors = verdicts[1] && 'errors' in verdicts[1] ? verdicts[1].errors : [];
  assert.ok(errors.length > 0 && errors.every((error) => typeof error.line === 'number' && error.text.length > 0), JSON.stringify(verdicts[1]));
  assert.ok(verdicts[3] && 'unreadable' in verdicts[3], 'a document libxml2 cannot read is named as such');
  assert.match(validator.libxml2, /^2\.1[5-9]/, 'a current libxml2 validates');
  assert.match(validator.binding, /^libxml2-wasm \d+\.\d+\.\d+$/);
});

test('requests sent at once are validated one after another, and each gets its own verdicts', async () => {
  const validator = await processSchemaValidator(SCHEMAS);
  const invalidName = readdirSync(join(ROOT, 'fixtures', 'ChangeFee', 'invalid')).find((name) => name.startsWith('SCHEMA_VIOLATION') && name.endsWith('.xml') && !name.endsWith('.response.xml'));
  assert.ok(invalidName);
  const salary = fixture('SalaryAdjustment', 'valid', 'multi-item.xml');
  const fee = fixture('ChangeFee', 'valid', 'multi-item.xml');
  const badFee = fixture('ChangeFee', 'invalid', invalidName);
  // Sent without waiting: they queue for the thread.
  const [first, second, third, fourth] = await Promise.all([
    validator.validateDocuments([salary, salary], 'SalaryAdjustment'),
    validator.validateDocuments([fee, badFee], 'ChangeFee'),
    validator.validateDocuments([salary], 'SalaryAdjustment'),
    validator.validateDocuments([badFee, fee, fee], 'ChangeFee'),
  ]);
  const valid = { errors: [] };
  expect(first).toStrictEqual([valid, valid]);
  expect(third).toStrictEqual([valid]);
  expect(second?.[0]).toStrictEqual(valid);
  expect(fourth?.slice(1)).toStrictEqual([valid, valid]);
  for (const verdict of [second?.[1], fourth?.[0]]) assert.ok(verdict && 'errors' in verdict && verdict.errors.length > 0, JSON.stringify(verdict));
});

test("a streamed report's record batch is validated on the thread, each error given to its record", async () => {
  const validator = await processSchemaValidator(SCHEMAS);
  const holdings = fixture('Holdings', 'valid', 'account-reported-twice.xml');
  const start = holdings.indexOf('<Account>');
  const end = holdings.indexOf('</Account>') + '</Account>'.length;
  assert.ok(start > 0 && end > start, 'the fixture has an account');
  const rootStart = holdings.indexOf('<Holdings');
  const rootStartTag = holdings.slice(rootStart, holdings.indexOf('>', rootStart) + 1);
  const preamble = { rootStartTag, rootQName: 'Holdings', text: holdings.slice(rootStart + rootStartTag.length, start), line: holdings.slice(0, rootStart).split('\n').length };
  const account = holdings.slice(start, end);
  const line = holdings.slice(0, start).split('\n').length;
  const broken = account.replace(/<Cash>[^<]*</, '<Cash>lots<');
  assert.notEqual(broken, account);
  const verdict = await validator.validate('Holdings', preamble, [{ text: account, line }, { text: broken, line: line + 100 }], 'Account');
  expect(verdict.preambleErrors).toStrictEqual([]);
  assert.equal(verdict.recordErrors.has(0), false);
  const recordErrors = verdict.recordErrors.get(1) ?? [];
  assert.equal(recordErrors[0]?.element, 'Cash');
  assert.ok((recordErrors[0]?.line ?? 0) >= line + 100, 'the line is the record\'s in the sender\'s file');
});

test('a document over the time budget ends the thread and is answered overBudgetMs; the others in its request get their verdicts, and the new thread goes on', async () => {
  const validator = await startValidationThread(SCHEMAS, { budgetMs: 150 });
  assert.equal(validator.where, 'thread');
  const valid = fixture('SalaryAdjustment', 'valid', 'multi-item.xml');
  const item = /<Item>[\s\S]*?<\/Item>/.exec(valid)?.[0];
  assert.ok(item);
  // 16 MiB of items: valid, and about 0.7 s of libxml2's time on a quiet machine.
  const items = Array.from({ length: 87_000 }, (_, index) => item.replace(/<ItemId>[^<]*</, `<ItemId>I-${index}<`)).join('\n');
  const slow = valid.slice(0, valid.indexOf(item)) + items + valid.slice(valid.lastIndexOf('</Item>') + '</Item>'.length);

  // The slow document is valid: left to finish it would be answered `errors: []`. Its
  // overBudgetMs verdict is what shows the thread was ended at the budget. (No wall-clock
  // bound: the new thread's start-up, which the third document waits for, took up to 8 s
  // on a loaded 2-core machine.)
  const verdicts = await validator.validateDocuments([valid, slow, valid], 'SalaryAdjustment');
  expect(verdicts).toStrictEqual([{ errors: [] }, { overBudgetMs: 150 }, { errors: [] }]);
  // The thread started in its place validates.
  expect(await validator.validateDocuments([valid], 'SalaryAdjustment')).toStrictEqual([{ errors: [] }]);

  const rootStart = slow.indexOf('<SalaryAdjustment');
  const rootStartTag = slow.slice(rootStart, slow.indexOf('>', rootStart) + 1);
  const body = slow.slice(rootStart + rootStartTag.length, slow.lastIndexOf('</SalaryAdjustment>'));
  await assert.rejects(
    validator.validate('SalaryAdjustment', { rootStartTag, rootQName: 'SalaryAdjustment', text: '', line: 1 }, [{ text: body, line: 2 }], 'Item'),
    (error: GatewayError) => error.code === 'SCHEMA_VALIDATION_TIMEOUT' && !error.retryable,
  );
  expect(await validator.validateDocuments([valid], 'SalaryAdjustment')).toStrictEqual([{ errors: [] }]);
});
