import type { Sql } from '../database.ts';

/**
 * Console sessions (migration 0026), by the SHA-256 of the cookie's token: the token
 * itself is never stored. Times are given by the caller, so tests choose the clock.
 */
export interface StaffSessionRow {
  readonly username: string;
  readonly csrfToken: string;
  readonly lastSeenAt: Date;
}

export async function insertStaffSession(sql: Sql, session: { tokenSha256: string; username: string; csrfToken: string; now: Date; expiresAt: Date }): Promise<void> {
  await sql.query(
    'INSERT INTO staff_sessions (token_sha256, username, csrf_token, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $4, $5)',
    [session.tokenSha256, session.username, session.csrfToken, session.now, session.expiresAt],
  );
}

/** The session, when it has neither expired nor been idle since `idleSince`. */
export async function findStaffSession(sql: Sql, tokenSha256: string, now: Date, idleSince: Date): Promise<StaffSessionRow | undefined> {
  const { rows } = await sql.query<{ username: string; csrf_token: string; last_seen_at: Date | string }>(
    'SELECT username, csrf_token, last_seen_at FROM staff_sessions WHERE token_sha256 = $1 AND expires_at > $2 AND last_seen_at > $3',
    [tokenSha256, now, idleSince],
  );
  const row = rows[0];
  return row ? { username: row.username, csrfToken: row.csrf_token, lastSeenAt: new Date(row.last_seen_at) } : undefined;
}

export async function touchStaffSession(sql: Sql, tokenSha256: string, now: Date): Promise<void> {
  await sql.query('UPDATE staff_sessions SET last_seen_at = $2 WHERE token_sha256 = $1', [tokenSha256, now]);
}

export async function deleteStaffSession(sql: Sql, tokenSha256: string): Promise<void> {
  await sql.query('DELETE FROM staff_sessions WHERE token_sha256 = $1', [tokenSha256]);
}

/** Removes sessions that can no longer be used (expired, or idle since `idleSince`). */
export async function deleteStaleStaffSessions(sql: Sql, now: Date, idleSince: Date): Promise<void> {
  await sql.query('DELETE FROM staff_sessions WHERE expires_at <= $1 OR last_seen_at <= $2', [now, idleSince]);
}
