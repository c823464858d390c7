/**
 * `depot-gateway --config <file> start` with a configuration holding every kind of
 * mistake, as an operator meets it: one run, a real child process, every problem on
 * stderr under the file's name, sorted by path, and exit code 2 before anything starts.
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeEveryMistakeConfig } from './support/every-config-mistake.ts';
import { runCliToEnd } from './support/processes.ts';

/** The variables that override the file, emptied so the test's own environment changes nothing. */
const NO_OVERRIDES = Object.fromEntries(
  ['PORT', 'HOST', 'METRICS_PORT', 'DATA_DIR', 'DATABASE_URL', 'REDIS_URL', 'QUEUE_PREFIX', 'LOG_LEVEL', 'LOG_FORMAT', 'TRUST_PROXY', 'ARCHIVE_S3_ACCESS_KEY_ID', 'ARCHIVE_S3_SECRET_ACCESS_KEY', 'DEPOT_GATEWAY_CONFIG', 'DEBUG'].map((name) => [name, '']),
);

test('start with a configuration holding every kind of mistake names them all in one run and exits 2', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'dg-config-cli-'));
  try {
    const { file, problems } = writeEveryMistakeConfig(folder);
    const result = await runCliToEnd(['--config', file, 'start'], NO_OVERRIDES);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, `depot-gateway: CONFIG_INVALID: The configuration is invalid. ${file}:\n${problems.map((problem) => `  ${problem}\n`).join('')}`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
