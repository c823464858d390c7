import { createHash } from 'node:crypto';
import { once } from 'node:events';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import type { Database, Sql } from './database.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { guardTransactions } from './transaction-guard.ts';
import { PostgresHostChooser, parsePostgresTargets } from './postgres-hosts.ts';

/** SQLSTATE classes that mean "the server is away or overloaded": worth a retry. */
/**
 * SQLSTATE classes that mean "the server is away or overloaded", or (25006) "it takes no
 * writes now" — a standby, or a former primary fenced during a failover: worth a retry.
 */
const TRANSIENT_SQLSTATES = /^(08|53|57P0[1-3]|40001|40P01|25006)/;
const TRANSIENT_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);

/** Maps a driver error to DATABASE_UNAVAILABLE when a retry can help, and leaves others alone. */
export function classifyDatabaseError(error: unknown): unknown {
  const code = (error as { code?: string } | null)?.code;
  const message = (error as Error | null)?.message ?? '';
  if (
    (code && (TRANSIENT_SQLSTATES.test(code) || TRANSIENT_NODE_CODES.has(code))) ||
    /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message)
  ) {
    return new GatewayError('DATABASE_UNAVAILABLE', message, { cause: error });
  }
  return error;
}

export interface PostgresDatabaseOptions {
  /** One host, or libpq's several (`postgresql://h1:5432,h2:5432/db?target_session_attrs=read-write`, src/ledger/postgres-hosts.ts). */
  url: string;
  /** Pool size; default 20. */
  max?: number;
}

/** A real PostgreSQL server through a `pg` pool. */
export function openPostgresDatabase(options: PostgresDatabaseOptions): Database {
  // A busy pool makes callers wait for a client; only a server that does not answer
  // within the timeout is an error (a refused connection fails at once anyway).
  const pool = new pg.Pool({ ...whereToConnect(options.url), max: options.max ?? 20, connectionTimeoutMillis: 30_000 });
  // A connection losing its server (PostgreSQL restarting, a network cut) emits 'error'
  // on its client. The pool listens only while a client is idle; a client checked out for
  // a transaction or a COPY would take the process down with it. So every client gets a
  // listener of its own for its whole life: the statement in flight fails by itself (as
  // DATABASE_UNAVAILABLE, retried by its stage), the broken client is dropped when it is
  // released, and the next statement opens a new connection.
  pool.on('connect', (client) => client.on('error', ignoreLostConnection));
  pool.on('error', ignoreLostConnection);

  const statements = new StatementNames();
  async function query<Row>(client: pg.Pool | pg.PoolClient, text: string, params?: readonly unknown[]) {
    try {
      // A statement with parameters runs as a named prepared statement: each connection
      // parses it once, and PostgreSQL may keep its plan (a batch's statements are large).
      const name = params === undefined ? undefined : statements.nameOf(text);
      const values = params?.map((value) => (Array.isArray(value) ? arrayLiteral(value) ?? value : value));
      const result = await client.query(name === undefined ? { text, values } : { name, text, values });
      return { rows: result.rows as Row[] };
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }

  return guardTransactions({
    kind: 'postgres',
    query: (text, params) => query(pool, text, params),
    exec: async (text) => void (await query(pool, text)),
    async copyFrom(statement, chunks) {
      const client = await pool.connect().catch((error: unknown) => Promise.reject(classifyDatabaseError(error)));
      try {
        return await copyInto(client, statement, chunks);
      } finally {
        client.release();
      }
    },
    async transaction(work) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw classifyDatabaseError(error);
      }
      const tx: Sql = {
        query: (text, params) => query(client, text, params),
        exec: async (text) => void (await query(client, text)),
        copyFrom: (statement, chunks) => copyInto(client, statement, chunks),
      };
      let broken = false;
      try {
        await tx.query('BEGIN');
        const result = await work(tx);
        await tx.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        // A server that took no writes (25006) is not kept in the pool: the next connection looks for one that does.
        if ((error as { code?: string } | null)?.code === '25006') broken = true;
        throw classifyDatabaseError(error);
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  });
}

/**
 * The pool's settings for where to connect: the URL itself for one plain host; for
 * several hosts (or target_session_attrs) a client class that connects to the host the
 * chooser finds, checks each new session and makes the chooser search again when a host
 * fails or no longer does (a failover). pg reads where to connect from the client's
 * `host` and `port` when it connects, so they are set then.
 */
function whereToConnect(url: string): Pick<pg.PoolConfig, 'connectionString' | 'Client'> {
  const targets = parsePostgresTargets(url);
  if (!targets.multiHost) return { connectionString: url };
  const chooser = new PostgresHostChooser(targets, { connectionTimeoutMillis: 10_000 });
  class ChosenHostClient extends pg.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: (error: Error | null, client?: pg.Client) => void): void;
    override connect(callback?: (error: Error | null, client?: pg.Client) => void): Promise<pg.Client> | void {
      const connecting = this.#connectToChosen();
      if (!callback) return connecting;
      connecting.then((client) => callback(null, client), (error: Error) => callback(error));
    }

    async #connectToChosen(): Promise<pg.Client> {
      const host = await chooser.choose();
      this.host = host.host;
      this.port = host.port ?? Number(process.env.PGPORT || pg.defaults.port);
      try {
        await super.connect();
      } catch (error) {
        chooser.forget(host);
        throw error;
      }
      const refusal = await chooser.refusal(this).catch((error: unknown) => (error as Error).message);
      if (refusal === undefined) return this;
      chooser.forget(host);
      await this.end().catch(() => undefined);
      throw new GatewayError('DATABASE_UNAVAILABLE', `${host.host}:${host.port ?? ''} no longer does for target_session_attrs=${chooser.targets.targetSessionAttrs}: ${refusal}`);
    }
  }
  return { connectionString: targets.urlOf(targets.hosts[0]!), Client: ChosenHostClient };
}

/** The statement in flight, if any, reports a lost connection; the client itself needs no more. */
function ignoreLostConnection(): void {}

/**
 * An array parameter as PostgreSQL's array literal, for arrays of strings or of numbers
 * (the batches of a coalesced statement: thousands of elements): one join instead of the
 * driver's concatenation element by element. Undefined for anything else (nulls, nested
 * arrays, buffers …), which the driver converts itself.
 */
export function arrayLiteral(values: readonly unknown[]): string | undefined {
  if (values.length === 0) return '{}';
  const kind = typeof values[0];
  if (kind === 'string') {
    let plain = true;
    for (const value of values) {
      if (typeof value !== 'string') return undefined;
      if (plain && NEEDS_ESCAPE.test(value)) plain = false;
    }
    if (plain) return `{"${values.join('","')}"}`;
    return `{${(values as string[]).map((value) => `"${value.replace(ESCAPED, '\\$&')}"`).join(',')}}`;
  }
  if (kind === 'number' || kind === 'bigint') {
    for (const value of values) if (typeof value !== kind || (kind === 'number' && !Number.isFinite(value))) return undefined;
    return `{${values.join(',')}}`;
  }
  return undefined;
}

const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;

/**
 * Names for the statements a process runs, one per distinct text, from a hash of it.
 * Texts built on the fly (a listing's filters) give a handful of variants each; past
 * MAX_NAMED distinct texts the rest run unnamed, so a stray generator cannot fill the
 * server's memory with prepared statements.
 */
class StatementNames {
  static readonly MAX_NAMED = 1000;
  readonly #names = new Map<string, string>();

  nameOf(text: string): string | undefined {
    const known = this.#names.get(text);
    if (known !== undefined || this.#names.size >= StatementNames.MAX_NAMED) return known;
    const name = `dg_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    this.#names.set(text, name);
    return name;
  }
}

/**
 * Streams `chunks` into a COPY on one client, honouring backpressure. A failing source
 * (a report that turns out malformed half-way) fails the COPY and with it the transaction.
 */
async function copyInto(client: pg.PoolClient, statement: string, chunks: AsyncIterable<string>): Promise<number> {
  const stream = client.query(copyFromStdin(statement));
  const finished = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  finished.catch(() => undefined); // observed below; a source error wins
  try {
    for await (const chunk of chunks) {
      if (!stream.write(chunk)) await Promise.race([once(stream, 'drain'), finished]);
    }
  } catch (error) {
    stream.destroy(error as Error);
    await finished.catch(() => undefined);
    throw error;
  }
  stream.end();
  try {
    await finished;
  } catch (error) {
    throw classifyDatabaseError(error);
  }
  return Number(stream.rowCount ?? 0);
}
