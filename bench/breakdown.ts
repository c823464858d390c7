/**
 * Where the time went, per document, from the gateway's own records: the watcher's
 * receivedAt, the status events' timestamps and the delivery row. PostgreSQL stamps
 * with now(), the start of the writing transaction, so the stage edges are approximate
 * (within one transaction's length). Same machine, same clock as the bench client.
 */
import { distribution, toEpochMs, type Distribution, type ScenarioRun } from './end-to-end.bench.ts';
import { withClient } from './support.ts';

export interface StageBreakdown {
  /** Drop → the folder watcher took the file (stability window, watcher queue). */
  readonly pickup: Distribution;
  /** receivedAt → status `validated` (intake transaction, queue, XSD validation, parse). */
  readonly intakeAndValidate: Distribution;
  /** `validated` → `applied` (queue, waiting for the agreement's lock and predecessors, the ledger transaction). */
  readonly apply: Distribution;
  /** `applied` → delivery recorded (queue, writing the response file). */
  readonly deliver: Distribution;
  /** Delivery recorded → the bench client saw the file. */
  readonly notice: Distribution;
}

export async function stageBreakdown(databaseUrl: string, prefix: string, run: ScenarioRun): Promise<StageBreakdown> {
  const rows = await withClient(databaseUrl, async (client) => {
    const result = await client.query<{ external_id: string; received: number; validated: number | null; applied: number | null; delivered: number | null }>(
      `SELECT m.external_id,
              extract(epoch FROM m.received_at) * 1000 AS received,
              (SELECT extract(epoch FROM min(e.at)) * 1000 FROM message_events e WHERE e.message_id = m.id AND e.status = 'validated') AS validated,
              (SELECT extract(epoch FROM min(e.at)) * 1000 FROM message_events e WHERE e.message_id = m.id AND e.status = 'applied') AS applied,
              (SELECT extract(epoch FROM min(d.at)) * 1000 FROM deliveries d WHERE d.message_id = m.id AND d.outcome = 'delivered') AS delivered
         FROM messages m
        WHERE m.counterparty_id = 'bench-employer' AND m.external_id LIKE $1 AND m.duplicate_of IS NULL`,
      [`${prefix}-%`],
    );
    return result.rows;
  });
  const index = new Map(run.documents.map((d, i) => [d.name, i]));
  const stages = { pickup: [] as number[], intakeAndValidate: [] as number[], apply: [] as number[], deliver: [] as number[], notice: [] as number[] };
  for (const row of rows) {
    const i = index.get(row.external_id);
    if (i === undefined) continue;
    const [received, validated, applied, delivered] = [row.received, row.validated, row.applied, row.delivered].map((v) => (v === null ? NaN : Number(v))) as [number, number, number, number];
    const dropped = toEpochMs(run.dropped[i]!);
    const seen = toEpochMs(run.seen[i]!);
    stages.pickup.push(received - dropped);
    stages.intakeAndValidate.push(validated - received);
    stages.apply.push(applied - validated);
    stages.deliver.push(delivered - applied);
    stages.notice.push(seen - delivered);
  }
  return {
    pickup: distribution(stages.pickup),
    intakeAndValidate: distribution(stages.intakeAndValidate),
    apply: distribution(stages.apply),
    deliver: distribution(stages.deliver),
    notice: distribution(stages.notice),
  };
}
