/**
 * The port every repository talks to: parameterised SQL and transactions. Two
 * adapters implement it — a `pg` pool for a real PostgreSQL server and PGlite for
 * the embedded default — so the same SQL and migrations serve both.
 */
export interface Sql {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<{ rows: Row[] }>;
  /** Runs several statements without parameters (migrations). */
  exec(text: string): Promise<void>;
  /**
   * Runs `COPY … FROM STDIN` (text format) fed from `chunks` as they come: a report of a
   * million rows streams through without being held in memory. Resolves with the rows copied.
   */
  copyFrom(statement: string, chunks: AsyncIterable<string>): Promise<number>;
}

export interface Database extends Sql {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /** Which adapter this is, for logs and health. */
  readonly kind: 'postgres' | 'pglite';
  close(): Promise<void>;
}
