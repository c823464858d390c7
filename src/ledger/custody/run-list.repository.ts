import type { Sql } from '../database.ts';

/**
 * The staff's read of the debit and payout runs (debit_runs, migration 0009): each run
 * of a custodian with its outgoing document — file name, whether and where it was
 * delivered, its failed attempts — what its lines add up to, and the accounts it held
 * back with the reason. Read-only; the runs themselves are written by
 * debit-runs.repository.ts.
 */
export interface HeldBackAccount {
  readonly accountNumber: string;
  readonly insuranceNumber: string;
  readonly reason: string;
}

export interface RunListEntry {
  readonly runKey: string;
  readonly custodianId: string;
  readonly kind: 'debit' | 'payout';
  readonly runDate: string;
  readonly createdAt: Date;
  readonly held: readonly HeldBackAccount[];
  readonly lines: number;
  /** The sum of the lines' amounts (SEK, two decimals); '0.00' without lines. */
  readonly total: string;
  readonly document: {
    readonly documentId: string;
    readonly documentType: string;
    readonly fileName: string;
    readonly deliveredAt: Date | null;
    readonly deliveryTarget: string | null;
    readonly attempts: number;
    readonly lastError: string | null;
  } | null;
}

interface Row {
  run_key: string; custodian_id: string; kind: 'debit' | 'payout'; run_date: string; created_at: Date | string; held: HeldBackAccount[];
  lines: string | number; total: string; document_id: string | null; document_type: string | null; file_name: string | null;
  delivered_at: Date | string | null; delivery_target: string | null; attempts: number | null; last_error: string | null;
}

/** The newest runs first (all kinds, or one), at most `limit`. */
export async function listRuns(sql: Sql, filter: { readonly kind?: 'debit' | 'payout' | undefined; readonly limit: number }): Promise<RunListEntry[]> {
  const { rows } = await sql.query<Row>(
    `SELECT r.run_key, r.custodian_id, r.kind, r.run_date::text AS run_date, r.created_at, r.held,
            l.lines, l.total::text AS total,
            o.document_id, o.document_type, o.file_name, o.delivered_at, o.delivery_target, o.attempts, o.last_error
       FROM debit_runs r
       LEFT JOIN outgoing_documents o ON o.document_id = r.document_id
       CROSS JOIN LATERAL (SELECT count(*) AS lines, COALESCE(sum(d.amount), 0)::numeric(18,2) AS total
                             FROM debit_lines d WHERE d.run_key = r.run_key AND d.custodian_id = r.custodian_id) l
      WHERE $1::text IS NULL OR r.kind = $1
      ORDER BY r.created_at DESC, r.run_key DESC, r.custodian_id LIMIT $2`,
    [filter.kind ?? null, filter.limit],
  );
  return rows.map((row) => ({
    runKey: row.run_key, custodianId: row.custodian_id, kind: row.kind, runDate: row.run_date, createdAt: new Date(row.created_at),
    held: row.held, lines: Number(row.lines), total: row.total,
    document: row.document_id === null ? null : {
      documentId: row.document_id, documentType: row.document_type!, fileName: row.file_name!,
      deliveredAt: row.delivered_at === null ? null : new Date(row.delivered_at), deliveryTarget: row.delivery_target,
      attempts: row.attempts ?? 0, lastError: row.last_error,
    },
  }));
}
