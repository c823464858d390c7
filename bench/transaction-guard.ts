/**
 * `npm run bench -- transaction-guard`: what the transaction guard
 * (src/ledger/transaction-guard.ts) costs a handler's transaction. The guard follows
 * every transaction's flow with AsyncLocalStorage, which makes Node track the context
 * of every promise the process creates from then on, not only the guard's own calls.
 *
 * A transaction shaped like a handler's apply (a row locked FOR UPDATE, four inserts,
 * two updates, a read: eight statements) runs on PostgreSQL and on the embedded
 * database, four flows at once as a worker runs them, through the same database
 * adapter with and without the guard around it. Each variant runs in a process of its
 * own (once AsyncLocalStorage is in use, a process pays for it everywhere), the
 * variants interleaved over several rounds so a change in the machine's load falls on
 * both; printed: transactions a second and CPU microseconds a transaction, the median
 * of the rounds of each. A third line runs the same statements against an adapter that
 * answers at once without a database (100 times as many transactions): the guard's own
 * cost, which on a loaded machine the databases' lines cannot show apart from noise.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Database, Sql } from '../src/ledger/database.ts';
import { guardTransactions } from '../src/ledger/transaction-guard.ts';
import { createDatabase, envNumber, round } from './support.ts';

const ROUNDS = envNumber('GUARD_ROUNDS', 5);
const TRANSACTIONS = envNumber('GUARD_TRANSACTIONS', 1000);
const FLOWS = 4;
const SCHEMA = `
CREATE TABLE accounts (id int PRIMARY KEY, balance numeric NOT NULL, version int NOT NULL);
CREATE TABLE entries (id bigserial PRIMARY KEY, account_id int NOT NULL, amount numeric NOT NULL, note text NOT NULL);
INSERT INTO accounts SELECT g, 0, 0 FROM generate_series(1, 64) AS g;`;

interface Sample { readonly perSecond: number; readonly cpuMicros: number }
/** `memory` answers every statement at once without a database: the guard's own cost, alone. */
type Engine = 'postgres' | 'pglite' | 'memory';

if (process.argv[2] === '--child') {
  const [, , , engine, guarded, target, count] = process.argv as [string, string, string, Engine, string, string, string];
  const transactions = Number(count);
  const inner = engine === 'postgres' ? postgresAdapter(target) : engine === 'pglite' ? await pgliteAdapter(target) : memoryAdapter();
  const db = guarded === 'guarded' ? guardTransactions(inner) : inner;
  await run(db, 200); // warm: connections, plans, JIT
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run(db, transactions);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await db.close();
  process.stdout.write(JSON.stringify({ perSecond: transactions / seconds, cpuMicros: (used.user + used.system) / transactions } satisfies Sample));
  process.exit(0);
}

const database = await createDatabase();
const folder = await mkdtemp(join(tmpdir(), 'dg-bench-guard-'));
let ok = true;
try {
  await setUp(postgresAdapter(database.url));
  await setUp(await pgliteAdapter(folder));
  process.stdout.write(`${TRANSACTIONS} transactions of 8 statements, ${FLOWS} at once, ${ROUNDS} rounds; median of the rounds\n`);
  for (const engine of ['memory', 'postgres', 'pglite'] as const) {
    const target = engine === 'postgres' ? database.url : folder;
    const transactions = engine === 'memory' ? TRANSACTIONS * 100 : TRANSACTIONS;
    const samples: Record<'plain' | 'guarded', Sample[]> = { plain: [], guarded: [] };
    for (let r = 0; r < ROUNDS; r += 1) {
      for (const variant of r % 2 === 0 ? (['plain', 'guarded'] as const) : (['guarded', 'plain'] as const)) {
        const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', engine, variant, target, String(transactions)], { encoding: 'utf8' });
        if (child.status !== 0) throw new Error(`${engine} ${variant} failed: ${child.stderr}`);
        samples[variant].push(JSON.parse(child.stdout) as Sample);
      }
    }
    const plain = medians(samples.plain);
    const guarded = medians(samples.guarded);
    process.stdout.write(
      `${engine.padEnd(8)} without guard ${round(plain.perSecond, 0)} tx/s, ${round(plain.cpuMicros, 1)} µs CPU/tx; ` +
        `with guard ${round(guarded.perSecond, 0)} tx/s, ${round(guarded.cpuMicros, 1)} µs CPU/tx ` +
        `(${signed(guarded.cpuMicros - plain.cpuMicros)} µs CPU, ${signed((guarded.perSecond / plain.perSecond - 1) * 100)} % throughput)\n`,
    );
  }
  const { rows } = await withPool(database.url, (db) => db.query<{ n: string }>('SELECT count(*) AS n FROM entries'));
  const expected = ROUNDS * 2 * (TRANSACTIONS + 200) * 4;
  if (Number(rows[0]!.n) !== expected) {
    process.stdout.write(`wrong: ${rows[0]!.n} entries on PostgreSQL, expected ${expected}\n`);
    ok = false;
  }
} finally {
  await database.drop();
  await rm(folder, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);

/** `count` transactions, FLOWS at a time, each on an account of its own flow. */
async function run(db: Database, count: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: FLOWS }, async (_, flow) => {
    while (next < count) {
      next += 1;
      const account = 1 + ((flow * 16 + next) % 64);
      await db.transaction(async (tx) => applyLike(tx, account));
    }
  }));
}

/** Eight statements, as a handler applying a document's item issues them. */
async function applyLike(tx: Sql, account: number): Promise<void> {
  const { rows } = await tx.query<{ balance: string; version: number }>('SELECT balance, version FROM accounts WHERE id = $1 FOR UPDATE', [account]);
  for (let i = 0; i < 4; i += 1) await tx.query('INSERT INTO entries (account_id, amount, note) VALUES ($1, $2, $3)', [account, '12.50', `line ${i}`]);
  await tx.query('UPDATE accounts SET balance = balance + 50 WHERE id = $1', [account]);
  await tx.query('UPDATE accounts SET version = $2 WHERE id = $1', [account, rows[0]!.version + 1]);
  await tx.query('SELECT count(*) FROM entries WHERE account_id = $1 AND id > 0', [account]);
}

async function setUp(db: Database): Promise<void> {
  await db.exec(SCHEMA);
  await db.close();
}

function postgresAdapter(url: string): Database {
  const pool = new pg.Pool({ connectionString: url, max: FLOWS });
  const on = (client: pg.Pool | pg.PoolClient): Sql => ({
    query: async (text, params) => ({ rows: (await client.query(text, params as unknown[])).rows }),
    exec: async (text) => void (await client.query(text)),
    copyFrom: () => Promise.reject(new Error('not measured')),
  });
  return {
    kind: 'postgres',
    ...on(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(on(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

function memoryAdapter(): Database {
  const row = { rows: [{ balance: '0', version: 0 }] as never[] };
  const sql: Sql = { query: () => Promise.resolve(row), exec: () => Promise.resolve(), copyFrom: () => Promise.reject(new Error('not measured')) };
  return { kind: 'pglite', ...sql, transaction: async (work) => work(sql), close: () => Promise.resolve() };
}

async function pgliteAdapter(folder: string): Promise<Database> {
  const lite = await PGlite.create(folder);
  const on = (client: Pick<PGlite, 'query' | 'exec'>): Sql => ({
    query: async (text, params) => ({ rows: (await client.query(text, params as unknown[])).rows as never[] }),
    exec: async (text) => void (await client.exec(text)),
    copyFrom: () => Promise.reject(new Error('not measured')),
  });
  return {
    kind: 'pglite',
    ...on(lite),
    transaction: (work) => lite.transaction((tx) => work(on(tx))),
    close: () => lite.close(),
  };
}

async function withPool<T>(url: string, work: (db: Database) => Promise<T>): Promise<T> {
  const db = postgresAdapter(url);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

function medians(samples: readonly Sample[]): Sample {
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { perSecond: median(samples.map((s) => s.perSecond)), cpuMicros: median(samples.map((s) => s.cpuMicros)) };
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${round(value, 1)}`;
}
