/**
 * The command runs the compiled build only while it is current (bin/build-state.js):
 * a source edited after the build sends it back to the sources, a test file does not.
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIsCurrent } from '../bin/build-state.js';

test('the compiled build is used only while no source file is newer than its stamp', async () => {
  const root = await mkdtemp(join(tmpdir(), 'dg-build-'));
  try {
    const at = (seconds: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, seconds));
    const touch = async (path: string, seconds: number) => {
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, '');
      await utimes(path, at(seconds), at(seconds));
    };

    await touch(join(root, 'src', 'messages', 'a.ts'), 10);
    assert.equal(buildIsCurrent(root), false, 'never built');
    await touch(join(root, 'dist', '.built'), 20);
    assert.equal(buildIsCurrent(root), true, 'built after the last change');
    await touch(join(root, 'src', 'messages', 'a.test.ts'), 30);
    assert.equal(buildIsCurrent(root), true, 'a test file is not compiled, so it does not count');
    await touch(join(root, 'src', 'messages', 'b.ts'), 30);
    assert.equal(buildIsCurrent(root), false, 'a source edited after the build');
    await rm(join(root, 'src'), { recursive: true });
    assert.equal(buildIsCurrent(root), true, 'an installation of the build alone');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
