import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isGatewayError } from '../core/gateway-error.ts';
import { acquireProcessLock } from './process-lock.ts';

test('a lock held by a running process is refused naming it; once that process is killed, the lock is taken over and released', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'dg-lock-'));
  const path = join(folder, 'pglite.lock');
  const holder = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e',
    `const { acquireProcessLock } = await import(${JSON.stringify(new URL('./process-lock.ts', import.meta.url).href)});
     acquireProcessLock(${JSON.stringify(path)}, 'the test database'); console.log('held'); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await once(holder.stdout!, 'data');
    assert.throws(() => acquireProcessLock(path, 'The embedded database /x'), (error: unknown) => {
      assert.ok(isGatewayError(error));
      assert.equal(error.code, 'DATA_FOLDER_IN_USE');
      assert.match(error.message, new RegExp(`The embedded database /x is in use by process ${holder.pid} \\(.*pglite\\.lock\\)\\. Stop that process first \\(kill -TERM ${holder.pid}\\)`));
      return true;
    });
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    const lock = acquireProcessLock(path, 'the test database');
    assert.equal(readFileSync(path, 'utf8'), `${process.pid}\n`, 'the lock left by the killed process is ours now');
    lock.release();
    assert.equal(existsSync(path), false);
  } finally {
    holder.kill('SIGKILL');
    await rm(folder, { recursive: true, force: true });
  }
});
