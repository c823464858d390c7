/**
 * A CLI command whose reader goes away ends quietly, as Unix tools do: no EPIPE stack
 * trace, exit status 0. Through a real shell pipe into `head -c 10` with more output than
 * a pipe holds, and with the reading end closed before the command writes anything, for
 * commands that print tables, JSON lines and help. In-process on a PostgreSQL ledger.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { migrate } from '../src/ledger/migrate.ts';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { recordSetAsideMail } from '../src/ledger/messages/mail-set-aside.repository.ts';
import { createTestDatabase, testSettings, type TestDatabase } from './support/harness.ts';
import { writeConfigFile } from './support/processes.ts';

const CLI = join(PROJECT_ROOT, 'bin', 'depot-gateway.js');

/** Runs the CLI with its stdout read by nobody: the reading end is closed at once. */
function runIntoClosedPipe(args: readonly string[]): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: PROJECT_ROOT, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code, signal) => resolve({ code, signal, stderr }));
  });
}

/** `sh -c "<command> | head -c 10"`: what head printed, the command's stderr, and its status (pipefail). */
function runIntoHead(args: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const quoted = [process.execPath, CLI, ...args].map((arg) => `'${arg.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((resolve) => {
    const shell = spawn('bash', ['-c', `set -o pipefail; ${quoted} | head -c 10`], { cwd: PROJECT_ROOT, env: { ...process.env, LOG_LEVEL: 'warn' } });
    let stdout = '';
    let stderr = '';
    shell.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    shell.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    shell.once('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('CLI output into a closed pipe', () => {
  let database: TestDatabase;
  let folder: string;
  let config: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    folder = await mkdtemp(join(tmpdir(), 'dg-pipe-'));
    config = await writeConfigFile(folder, testSettings(join(folder, 'data'), { databaseUrl: database.url, logLevel: 'warn' }));
    const db = await openPostgresDatabase({ url: database.url });
    try {
      await migrate(db);
      // About 600 KB of JSON lines: far more than a pipe holds, so the command is still writing when head has gone.
      for (let i = 0; i < 1000; i++) {
        await recordSetAsideMail(db, {
          mailMessageId: `<set-aside-${i}@sender.example>`, sender: `sender-${i}@sender.example`, subject: `Document ${i}`,
          reason: 'unknown-sender', detail: 'x'.repeat(400), folder: 'INBOX', receivedAt: new Date(Date.UTC(2026, 10, 1, 0, 0, i)),
        });
      }
    } finally {
      await db.close();
    }
  });
  afterAll(async () => {
    await database.drop();
    await rm(folder, { recursive: true, force: true });
  });

  test('mail-set-aside --json | head -c 10 prints ten bytes and nothing else', async () => {
    const result = await runIntoHead(['mail-set-aside', '--json', '--limit', '1000', '--config', config]);
    assert.equal(result.stdout, '{"mailMess');
    assert.equal(result.stderr, '', 'no EPIPE, no stack trace');
    assert.equal(result.status, 0);
  });

  test.each(['mail-set-aside --json', 'messages', '--help'])('%s ends quietly when nobody reads its output', async (command) => {
    const args = command.split(' ');
    const result = await runIntoClosedPipe([...args, ...(command.startsWith('--') ? [] : ['--config', config])]);
    assert.equal(result.stderr, '', 'no EPIPE, no stack trace');
    assert.deepEqual([result.code, result.signal], [0, null]);
  });
});
