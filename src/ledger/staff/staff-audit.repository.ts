import type { Sql } from '../database.ts';

/**
 * The staff audit log (migration 0026): who did what to which subject, when and why,
 * and how it ended. Entries are only ever added: the table refuses UPDATE and DELETE.
 */
export type StaffAction = 'replay' | 'view-detail' | 'mail-sign-link' | 'send-again' | 'person-data-export';

export interface StaffAuditEntry {
  readonly id: number;
  readonly at: Date;
  readonly username: string;
  readonly action: StaffAction;
  /** What the action was about: a message id, a sign case id. */
  readonly subject: string;
  readonly reason: string | null;
  /** `done`, or `refused: <why>`. */
  readonly outcome: string;
}

export async function appendStaffAudit(sql: Sql, entry: Omit<StaffAuditEntry, 'id' | 'at'> & { readonly at: Date }): Promise<void> {
  await sql.query(
    'INSERT INTO staff_audit (at, username, action, subject, reason, outcome) VALUES ($1, $2, $3, $4, $5, $6)',
    [entry.at, entry.username, entry.action, entry.subject, entry.reason, entry.outcome],
  );
}

/** Newest first; `beforeId` pages back. */
export async function listStaffAudit(sql: Sql, filter: { readonly beforeId?: number; readonly subject?: string; readonly limit: number }): Promise<StaffAuditEntry[]> {
  const { rows } = await sql.query<{ id: string | number; at: Date | string; username: string; action: StaffAction; subject: string; reason: string | null; outcome: string }>(
    `SELECT id, at, username, action, subject, reason, outcome FROM staff_audit
      WHERE ($1::bigint IS NULL OR id < $1) AND ($2::text IS NULL OR subject = $2)
      ORDER BY id DESC LIMIT $3`,
    [filter.beforeId ?? null, filter.subject ?? null, filter.limit],
  );
  return rows.map((row) => ({ ...row, id: Number(row.id), at: new Date(row.at) }));
}
