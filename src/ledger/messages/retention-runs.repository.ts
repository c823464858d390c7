import type { Sql } from '../database.ts';

/** One night's retention run, as recorded (src/calendar/message-retention.job.ts). */
export interface RetentionRunRow {
  readonly period: string;
  readonly ranAt: Date;
  readonly cutoff: Date;
  readonly archived: number;
  readonly responses: number;
  readonly bytes: number;
  readonly archiveFiles: number;
  readonly masked: number;
  readonly maskedFiles: number;
  readonly lastSeq: number;
}

/** What the archive holds: files, documents in them, and how many of each are masked. */
export interface ArchiveTotals {
  readonly files: number;
  readonly documents: number;
  readonly maskedFiles: number;
  readonly maskedDocuments: number;
  /** The newest message received that an unmasked archive file holds, if any. */
  readonly oldestUnmaskedUntil: Date | null;
}

export async function listRetentionRuns(sql: Sql, limit: number): Promise<RetentionRunRow[]> {
  const { rows } = await sql.query<{
    period: string; ran_at: Date | string; cutoff: Date | string; archived: number; responses: number; bytes: string | number;
    archive_files: number; masked: number; masked_files: number; last_seq: string | number;
  }>(
    `SELECT period, ran_at, cutoff, archived, responses, bytes, archive_files, masked, masked_files, last_seq
       FROM message_retention_runs ORDER BY ran_at DESC, period DESC LIMIT $1`,
    [limit],
  );
  return rows.map((row) => ({
    period: row.period, ranAt: new Date(row.ran_at), cutoff: new Date(row.cutoff), archived: row.archived, responses: row.responses,
    bytes: Number(row.bytes), archiveFiles: row.archive_files, masked: row.masked, maskedFiles: row.masked_files, lastSeq: Number(row.last_seq),
  }));
}

export async function archiveTotals(sql: Sql): Promise<ArchiveTotals> {
  const { rows: [row] } = await sql.query<{ files: number; documents: number; masked_files: number; masked_documents: number; oldest_unmasked_until: Date | string | null }>(
    `SELECT count(*)::int AS files, coalesce(sum(documents), 0)::int AS documents,
            (count(*) FILTER (WHERE masked_at IS NOT NULL))::int AS masked_files,
            coalesce(sum(documents) FILTER (WHERE masked_at IS NOT NULL), 0)::int AS masked_documents,
            min(received_until) FILTER (WHERE masked_at IS NULL) AS oldest_unmasked_until
       FROM message_archive_files WHERE replaced_at IS NULL`,
  );
  return {
    files: row!.files, documents: row!.documents, maskedFiles: row!.masked_files, maskedDocuments: row!.masked_documents,
    oldestUnmaskedUntil: row!.oldest_unmasked_until === null ? null : new Date(row!.oldest_unmasked_until),
  };
}
