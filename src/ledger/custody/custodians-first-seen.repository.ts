import type { Sql } from '../database.ts';

/**
 * When the gateway first knew each custodian (`custodians_first_seen`): reports whose
 * deadline passed before then are not expected of it. A custodian is recorded once, at
 * the first start of a worker whose configuration names it; a later start changes nothing.
 */

/** Records each custodian not recorded yet as first seen at `at`. */
export async function recordCustodiansFirstSeen(sql: Sql, custodianIds: readonly string[], at: Date): Promise<void> {
  if (custodianIds.length === 0) return;
  await sql.query(
    `INSERT INTO custodians_first_seen (custodian_id, first_seen_at)
     SELECT id, $2 FROM unnest($1::text[]) AS c(id) ON CONFLICT (custodian_id) DO NOTHING`,
    [custodianIds, at],
  );
}

/**
 * Whether a report of `custodianId` due at `deadline` is owed: the custodian was known
 * before the deadline passed. One never recorded (no worker has started with it
 * configured) is held to every deadline, as before this was recorded.
 */
export type OwesReport = (custodianId: string, deadline: Date) => boolean;

/** The first-seen times, as the question a deadline check and the listings ask. */
export async function custodiansFirstSeen(sql: Sql): Promise<OwesReport> {
  const { rows } = await sql.query<{ custodian_id: string; first_seen_at: Date | string }>('SELECT custodian_id, first_seen_at FROM custodians_first_seen');
  const firstSeen = new Map(rows.map((row) => [row.custodian_id, new Date(row.first_seen_at).getTime()]));
  return (custodianId, deadline) => {
    const since = firstSeen.get(custodianId);
    return since === undefined || since < deadline.getTime();
  };
}
