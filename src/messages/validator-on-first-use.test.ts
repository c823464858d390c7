import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../config/load-config.ts';
import { startValidationThread } from './validation-thread.ts';
import type { SchemaValidator } from './schema-validator.ts';
import { ValidatorOnFirstUse } from './validator-on-first-use.ts';

const CHANGE_FEE = '<ChangeFee xmlns="urn:se:depot-gateway:v1"/>';

test('nothing starts until the first document; then one validation thread, started once, answers as itself', async () => {
  const started: Promise<SchemaValidator>[] = [];
  const lazy = new ValidatorOnFirstUse(() => {
    const thread = startValidationThread(join(PROJECT_ROOT, 'schemas'));
    started.push(thread);
    return thread;
  });
  const broken: Error[] = [];
  lazy.onBroken((error) => broken.push(error));
  assert.equal(started.length, 0, 'opening starts nothing');
  assert.equal(lazy.libxml2, 'not started');
  try {
    const [first, second] = await Promise.all([lazy.validateDocuments([CHANGE_FEE], 'ChangeFee'), lazy.validateDocuments([CHANGE_FEE], 'ChangeFee')]);
    assert.equal(started.length, 1, 'two documents at once start one thread');
    const real = await started[0]!;
    assert.equal(lazy.where, 'thread');
    assert.equal(lazy.libxml2, real.libxml2);
    assert.match(lazy.libxml2, /^\d+\.\d+/);
    // The thread's verdicts: the empty ChangeFee misses its required elements.
    for (const verdicts of [first, second]) {
      assert.equal(verdicts.length, 1);
      const verdict = verdicts[0]!;
      assert.ok('errors' in verdict && verdict.errors.length > 0, JSON.stringify(verdict));
    }
    assert.deepEqual(broken, []);
  } finally {
    await lazy.close();
  }
});
