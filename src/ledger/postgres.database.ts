import { once } from 'node:events';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import type { Database, Sql } from './database.ts';
import { GatewayError } from '../core/gateway-error.ts';

/** SQLSTATE classes that mean "the server is away or overloaded": worth a retry. */
const TRANSIENT_SQLSTATES = /^(08|53|57P0[1-3]|40001|40P01)/;
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
  url: string;
  /** Pool size; default 20. */
  max?: number;
}

/** A real PostgreSQL server through a `pg` pool. */
export function openPostgresDatabase(options: PostgresDatabaseOptions): Database {
  // A busy pool makes callers wait for a client; only a server that does not answer
  // within the timeout is an error (a refused connection fails at once anyway).
  const pool = new pg.Pool({ connectionString: options.url, max: options.max ?? 20, connectionTimeoutMillis: 30_000 });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);

  async function query<Row>(client: pg.Pool | pg.PoolClient, text: string, params?: readonly unknown[]) {
    try {
      const result = await client.query(text, params as unknown[] | undefined);
      return { rows: result.rows as Row[] };
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }

  return {
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
        throw classifyDatabaseError(error);
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
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
