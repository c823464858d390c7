/**
 * `depot-gateway hash-secret` as an operator runs it: the secret piped on stdin, the
 * hash alone on stdout, ready for `passwordHash` / `secretHash`. A real child process;
 * no configuration, database or Redis needed.
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { isSecretHash, verifySecret } from '../src/config/secret-hash.ts';
import { runCli } from './support/processes.ts';

async function hashSecretCommand(input: string): Promise<{ code: number | string; stdout: string; output: string }> {
  const child = runCli(['hash-secret'], { DEPOT_GATEWAY_CONFIG: '' }, input);
  let stdout = '';
  child.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await child.exited;
  return { code, stdout, output: child.output() };
}

test('hash-secret prints the scrypt hash of the secret on stdin, one line, and the hash verifies that secret only', async () => {
  const result = await hashSecretCommand('correct horse battery staple\n');
  assert.equal(result.code, 0, result.output);
  assert.match(result.stdout, /^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]{43}\n$/);
  const hash = result.stdout.trim();
  assert.ok(isSecretHash(hash));
  assert.equal(await verifySecret('correct horse battery staple', hash), true, 'the trailing line ending is not part of the secret');
  assert.equal(await verifySecret('correct horse battery staple\n', hash), false);
  const again = await hashSecretCommand('correct horse battery staple');
  assert.notEqual(again.stdout.trim(), hash, 'a new salt each time');
  assert.equal(await verifySecret('correct horse battery staple', again.stdout.trim()), true);
});

test('hash-secret refuses an empty or short secret with exit 2 and prints no hash', async () => {
  for (const input of ['', 'short\n']) {
    const result = await hashSecretCommand(input);
    assert.equal(result.code, 2, result.output);
    assert.equal(result.stdout, '');
    assert.match(result.output, /REQUEST_INVALID: .*The secret must have at least 12 characters/);
  }
});
