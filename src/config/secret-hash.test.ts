import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { hashSecret, isSecretHash, verifySecret } from './secret-hash.ts';

test('a secret verifies against its own hash only, and each hash has its own salt', async () => {
  const hash = await hashSecret('correct horse battery staple');
  assert.ok(isSecretHash(hash), hash);
  assert.equal(await verifySecret('correct horse battery staple', hash), true);
  assert.equal(await verifySecret('correct horse battery stapler', hash), false);
  assert.notEqual(await hashSecret('correct horse battery staple'), hash, 'salted');
});

test('a malformed stored hash never matches and never throws', async () => {
  for (const stored of ['', 'plain-text-secret', 'scrypt$16384$8$1$short$x', 'bcrypt$2b$10$abc']) {
    assert.equal(isSecretHash(stored), false, stored);
    assert.equal(await verifySecret('anything', stored), false, stored);
  }
});
