import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { GatewayError } from '../core/gateway-error.ts';
import type { Database } from './database.ts';
import { acquireProcessLock } from './process-lock.ts';
import { guardTransactions } from './transaction-guard.ts';

type PgliteQueryable = Pick<PGlite, 'query'>;

/**
 * How the embedded PostgreSQL starts. PostgreSQL zeroes its shared buffers when it
 * starts, and in WebAssembly that memory is the process's own: the default 128 MB of
 * shared_buffers made 150 MB of the gateway's resident memory. 16 MB holds the demo
 * and trial ledgers PGlite serves; the file system caches the rest
 * (docs/performance.md, "Memory of the embedded default").
 */
export const PGLITE_START_PARAMS: readonly string[] = Object.freeze([...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB']);

/**
 * V8 compiles WebAssembly twice: at once with its baseline compiler (Liftoff), then
 * the functions it finds hot again with its optimising one, whose code and compile
 * memory stayed resident: 50 MB of an idle gateway. Measured here, PGlite answers as
 * fast on baseline code alone (docs/performance.md). PGlite is the only WebAssembly
 * in the process, so the flag touches nothing else; it must be set before PGlite's
 * module is compiled.
 */
const WASM_FLAGS = '--liftoff-only';

/**
 * Embedded PostgreSQL (PGlite, PostgreSQL compiled to WebAssembly) in a data folder.
 * It serves one process: `start` runs every role in one process for this reason.
 * Pass no folder for an in-memory database (tests).
 */
export async function openPgliteDatabase(folder?: string): Promise<Database> {
  setFlagsFromString(WASM_FLAGS);
  // Two processes on one folder each believe they own it, and one's writes are lost.
  const lock = folder ? acquireProcessLock(`${folder}.lock`, `The embedded database ${folder}`) : undefined;
  let db: PGlite;
  try {
    if (folder) await ensureCluster(folder);
    const startParams = [...PGLITE_START_PARAMS];
    db = folder ? new PGlite(folder, { startParams }) : new PGlite({ startParams });
    await db.waitReady;
  } catch (error) {
    lock?.release();
    throw error;
  }
  return guardTransactions({
    kind: 'pglite',
    async query<Row>(text: string, params?: readonly unknown[]) {
      const result = await db.query<Row>(text, params as unknown[] | undefined);
      return { rows: result.rows };
    },
    exec: async (text) => void (await db.exec(text)),
    copyFrom: (statement, chunks) => copyInto(db, statement, chunks),
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          async query<Row>(text: string, params?: readonly unknown[]) {
            const result = await tx.query<Row>(text, params as unknown[] | undefined);
            return { rows: result.rows };
          },
          exec: async (text: string) => void (await tx.exec(text)),
          copyFrom: (statement: string, chunks: AsyncIterable<string>) => copyInto(tx, statement, chunks),
        }),
      ),
    close: async () => {
      try {
        await db.close();
      } finally {
        lock?.release();
      }
    },
  });
}

/**
 * A new data folder is created (initdb) by a short-lived child process: initdb runs
 * a second WebAssembly PostgreSQL whose memory a process does not give back, so done
 * in the gateway's own process it left the first start idling at 800 MB instead of
 * 200. The cluster is built beside the folder and renamed into place, so a start
 * stopped half-way leaves no half-made database behind. A folder that holds anything
 * already (a cluster, or whatever a user put there) is left to PGlite, as before.
 */
async function ensureCluster(folder: string): Promise<void> {
  mkdirSync(folder, { recursive: true });
  if (readdirSync(folder).length > 0) return;
  const building = `${folder}.initdb`;
  rmSync(building, { recursive: true, force: true });
  await runInitdb(building);
  renameSync(building, folder);
}

const INITDB_SCRIPT = `
const [url, folder, params] = process.argv.slice(1);
const { PGlite } = await import(url);
const db = new PGlite(folder, { startParams: JSON.parse(params) });
await db.waitReady;
await db.close();
`;

function runInitdb(folder: string): Promise<void> {
  const args = [WASM_FLAGS, '--input-type=module', '-e', INITDB_SCRIPT, import.meta.resolve('@electric-sql/pglite'), folder, JSON.stringify(PGLITE_START_PARAMS)];
  // In the gateway's process group: a stop sent to the group ends initdb too.
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-2000)));
  return new Promise((resolve, reject) => {
    child.once('error', (error) => reject(new GatewayError('DATABASE_UNAVAILABLE', `cannot create the embedded database in ${folder}: ${error.message}`, { cause: error })));
    child.once('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new GatewayError('DATABASE_UNAVAILABLE', `creating the embedded database in ${folder} failed (${signal ?? `exit code ${code}`}): ${stderr.trim()}`)),
    );
  });
}

/**
 * PGlite reads COPY data from a blob: the chunks are gathered first. The embedded
 * database serves demos and single-machine trials, where reports are small.
 */
async function copyInto(db: PgliteQueryable, statement: string, chunks: AsyncIterable<string>): Promise<number> {
  const parts: string[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  const fromBlob = statement.replace(/\bFROM\s+STDIN\b/i, "FROM '/dev/blob'");
  const result = await db.query(fromBlob, [], { blob: new Blob(parts) });
  return result.affectedRows ?? 0;
}
