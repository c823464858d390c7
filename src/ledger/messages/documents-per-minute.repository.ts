import type { Sql } from '../database.ts';

/**
 * Documents received per minute over a span, for the console's chart: one query over
 * messages.received_at (its BRIN index, migration 0026), grouped by minute. Minutes
 * without a document are not returned; the chart draws them as zero.
 */
export interface MinuteCount {
  /** The minute's first instant. */
  readonly minute: Date;
  readonly count: number;
}

/** Documents received from `from` (inclusive) to `to` (exclusive), per minute, oldest first. */
export async function countDocumentsPerMinute(sql: Sql, from: Date, to: Date): Promise<MinuteCount[]> {
  const { rows } = await sql.query<{ minute: Date | string; count: string | number }>(
    `SELECT date_trunc('minute', received_at) AS minute, count(*) AS count FROM messages
      WHERE received_at >= $1 AND received_at < $2 GROUP BY 1 ORDER BY 1`,
    [from, to],
  );
  return rows.map((row) => ({ minute: new Date(row.minute), count: Number(row.count) }));
}
