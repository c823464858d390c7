import type { Sql } from '../database.ts';
import type { PipelineStage } from './messages.repository.ts';

const STAGES: readonly PipelineStage[] = ['validate', 'apply', 'deliver'];

/**
 * How many messages are dead, per stage they died in (every stage present, 0 when none),
 * for the metrics' gauge. One statement on the `messages_by_status` index: only the dead
 * rows are visited, however large the message store grows.
 */
export async function countDeadMessages(sql: Sql): Promise<Map<string, number>> {
  const { rows } = await sql.query<{ stage: string | null; count: number }>(
    `SELECT dead_stage AS stage, count(*)::int AS count FROM messages WHERE status = 'dead' GROUP BY dead_stage`,
  );
  const counts = new Map<string, number>(STAGES.map((stage) => [stage, 0]));
  for (const row of rows) counts.set(row.stage ?? 'unknown', row.count);
  return counts;
}
