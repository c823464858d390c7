/**
 * `depot-gateway submit` of a document over `limits.maxDocumentBytes`: without a running
 * gateway and through one, the CLI exits 1 and prints the same DOCUMENT_TOO_LARGE
 * rejection, the document is recorded as refused with its bytes kept in a file (not in
 * the database), and the CLI never holds the file in memory (its peak RSS, measured by
 * /usr/bin/time, grows far less than the file is large). Real PostgreSQL and Redis; the
 * CLI and the gateway run as child processes.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { createTestDatabase, deleteQueues, testSettings, waitFor, type TestDatabase } from './support/harness.ts';
import { freePort, runCli, writeConfigFile } from './support/processes.ts';

const NS = 'urn:se:depot-gateway:v1';
const LARGE_MB = 100;

/** Writes a ChangeFee of about `megabytes` MB (a comment fills it), labelled so that no two files are alike. */
async function largeDocument(path: string, megabytes: number, label: string): Promise<number> {
  const chunk = Buffer.alloc(1024 * 1024, 'a');
  const head = `<?xml version="1.0"?><ChangeFee xmlns="${NS}"><!-- ${label} `;
  const tail = '--></ChangeFee>';
  const out = createWriteStream(path);
  out.write(head);
  for (let index = 0; index < megabytes; index += 1) if (!out.write(chunk)) await once(out, 'drain');
  out.end(tail);
  await once(out, 'finish');
  return head.length + megabytes * chunk.length + tail.length;
}

/** Runs the CLI under /usr/bin/time: exit code, output and the process's peak RSS in bytes. */
function submitMeasured(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string; peakRss: number }> {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/time', ['-f', 'peak-rss-kb=%M', process.execPath, join(PROJECT_ROOT, 'bin', 'depot-gateway.js'), ...args], {
      cwd: PROJECT_ROOT, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => {
      const peak = /peak-rss-kb=(\d+)/.exec(stderr);
      resolve({ code, stdout, stderr: stderr.replace(/(Command exited with non-zero status \d+\n)?peak-rss-kb=\d+\n?/, ''), peakRss: Number(peak?.[1] ?? NaN) * 1024 });
    });
  });
}

describe('submit of a document over the size limit', () => {
  let database: TestDatabase;
  let pool: Pool;
  let folder: string;
  let config: string;
  let queuePrefix: string;
  let port: number;
  /** Peak RSS of the CLI submitting a small document the same way: the baseline. */
  const baseline: Record<'in-process' | 'gateway', number> = { 'in-process': NaN, gateway: NaN };

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new Pool({ connectionString: database.url, max: 1 });
    folder = await mkdtemp(join(tmpdir(), 'dg-cli-large-'));
    port = await freePort();
    const settings = testSettings(join(folder, 'data'), { databaseUrl: database.url, port, logLevel: 'warn' });
    queuePrefix = settings.queuePrefix as string;
    config = await writeConfigFile(folder, settings);
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
    await deleteQueues(queuePrefix);
    await rm(folder, { recursive: true, force: true });
  });

  const recorded = async (fileName: string) =>
    (await pool.query<{ status: string; error_code: string; size_bytes: string; raw_kept: boolean; raw_location: string | null }>(
      `SELECT status, error_code, size_bytes::text, raw IS NOT NULL AS raw_kept, raw_location FROM messages WHERE metadata->>'fileName' = $1`, [fileName],
    )).rows;

  async function submitLarge(mode: 'in-process' | 'gateway'): Promise<string> {
    const small = join(folder, `small-${mode}.xml`);
    await writeFile(small, `<?xml version="1.0"?><ChangeFee xmlns="${NS}"><!-- small ${mode} --></ChangeFee>`);
    const smallRun = await submitMeasured(['submit', small, '--from', 'demo-employer', '--config', config]);
    assert.equal(smallRun.code, 1, `the small document is schema-invalid, a rejection: ${smallRun.stderr}`);
    baseline[mode] = smallRun.peakRss;

    const name = `large-${mode}.xml`;
    const path = join(folder, name);
    const size = await largeDocument(path, LARGE_MB, mode);
    const result = await submitMeasured(['submit', path, '--from', 'demo-employer', '--config', config]);
    assert.equal(result.code, 1, `exit 1, a rejection: ${result.stderr}`);
    assert.equal(result.stderr, '');
    assert.match(result.stdout, /<MessageRejected [\s\S]*<Code>DOCUMENT_TOO_LARGE<\/Code>/);
    assert.match(result.stdout, new RegExp(`The document is ${size} bytes; the limit is 16777216 bytes\\. It was set aside, not processed\\.`));

    const rows = await recorded(name);
    assert.equal(rows.length, 1, 'recorded once');
    const [row] = rows;
    assert.equal(row?.status, 'rejected');
    assert.equal(row?.error_code, 'DOCUMENT_TOO_LARGE');
    assert.equal(row?.size_bytes, String(size));
    assert.equal(row?.raw_kept, false, 'the bytes are not in the database');
    assert.ok(row?.raw_location?.startsWith(join(folder, 'data', 'cli-work')) && existsSync(row.raw_location), `kept in the data folder: ${row?.raw_location}`);

    const growth = result.peakRss - baseline[mode];
    assert.ok(growth < (LARGE_MB / 2) * 1024 * 1024, `the CLI's peak RSS grew by ${Math.round(growth / 1048576)} MB (${Math.round(result.peakRss / 1048576)} MB) for a ${LARGE_MB} MB file`);
    process.stdout.write(`# ${mode}: CLI peak RSS ${Math.round(baseline[mode] / 1048576)} MB for a small document, ${Math.round(result.peakRss / 1048576)} MB for ${LARGE_MB} MB\n`);
    return result.stdout.replace(/\b[0-9A-HJKMNP-TV-Z]{26}\b/g, '<id>').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z?/g, '<time>').replace(/large-(in-process|gateway)/g, 'large').replace(/\d{8,} bytes;/, '<size> bytes;');
  }

  let withoutGateway = '';
  test('without a running gateway: exit 1, DOCUMENT_TOO_LARGE, recorded with its bytes kept in a file, the file never in memory', async () => {
    withoutGateway = await submitLarge('in-process');
  });

  test('through a running gateway: the same rejection, the same record, the file streamed', async () => {
    const gateway = runCli(['start', '--config', config]);
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok, 'the gateway to answer', 120_000);
      const throughGateway = await submitLarge('gateway');
      assert.equal(throughGateway, withoutGateway, 'the same answer either way');
      gateway.child.kill('SIGTERM');
      assert.equal(await gateway.exited, 0, gateway.output());
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    }
  });
});
