import type { Sql } from '../database.ts';
import type { SignatoryRole } from '../../core/withdrawal-request.rules.ts';

/**
 * Signing links (migration 0039): a token per signatory of a sign case, the credential
 * of the insurer's signing page. Only the token's SHA-256 is stored (`tokenHash`); the
 * caller hashes the token it was given and asks for the link in one statement that
 * also checks the case it names, its expiry and that it was not revoked, so a wrong
 * token, another case's token, an expired or revoked one and no case at all are
 * alike: undefined.
 */
export interface NewSignLink {
  readonly tokenHash: string;
  readonly signCaseId: string;
  readonly role: SignatoryRole;
  readonly personalNumber: string;
  readonly createdAt: Date;
  /** `client:<id>` or `staff:<user>`. */
  readonly createdBy: string;
  readonly expiresAt: Date;
}

export interface SignLinkRecord {
  readonly signCaseId: string;
  readonly role: SignatoryRole;
  readonly personalNumber: string;
  readonly expiresAt: Date;
}

export async function insertSignLink(sql: Sql, link: NewSignLink): Promise<void> {
  await sql.query(
    `INSERT INTO sign_links (token_hash, sign_case_id, role, personal_number, created_at, created_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [link.tokenHash, link.signCaseId, link.role, link.personalNumber, link.createdAt, link.createdBy, link.expiresAt],
  );
}

/** The link of this token for this case, while it is neither expired nor revoked and its case not closed; undefined otherwise. */
export async function findLiveSignLink(sql: Sql, signCaseId: string, tokenHash: string, now: Date): Promise<SignLinkRecord | undefined> {
  const { rows } = await sql.query<{ signCaseId: string; role: SignatoryRole; personalNumber: string; expiresAt: Date | string }>(
    `SELECT l.sign_case_id AS "signCaseId", l.role, l.personal_number AS "personalNumber", l.expires_at AS "expiresAt"
       FROM sign_links l JOIN sign_cases c ON c.sign_case_id = l.sign_case_id
      WHERE l.token_hash = $1 AND l.sign_case_id = $2 AND l.revoked_at IS NULL AND l.expires_at > $3 AND c.closed_at IS NULL`,
    [tokenHash, signCaseId, now],
  );
  const row = rows[0];
  return row ? { ...row, expiresAt: new Date(row.expiresAt) } : undefined;
}

/** Takes back every live link of the signatory; how many there were. */
export async function revokeSignLinks(sql: Sql, signatory: { signCaseId: string; role: SignatoryRole; personalNumber: string }, by: string, at: Date): Promise<number> {
  const { rows } = await sql.query(
    `UPDATE sign_links SET revoked_at = $4, revoked_by = $5
      WHERE sign_case_id = $1 AND role = $2 AND personal_number = $3 AND revoked_at IS NULL AND expires_at > $4 RETURNING token_hash`,
    [signatory.signCaseId, signatory.role, signatory.personalNumber, at, by],
  );
  return rows.length;
}

/** Per signatory of the case (`role personnummer`), when its last live link expires. */
export async function liveSignLinkExpiries(sql: Sql, signCaseId: string, now: Date): Promise<ReadonlyMap<string, string>> {
  const { rows } = await sql.query<{ role: string; personalNumber: string; expiresAt: Date | string }>(
    `SELECT role, personal_number AS "personalNumber", max(expires_at) AS "expiresAt" FROM sign_links
      WHERE sign_case_id = $1 AND revoked_at IS NULL AND expires_at > $2 GROUP BY role, personal_number`,
    [signCaseId, now],
  );
  return new Map(rows.map((row) => [signatoryKey(row.role, row.personalNumber), new Date(row.expiresAt).toISOString()]));
}

export function signatoryKey(role: string, personalNumber: string): string {
  return `${role} ${personalNumber}`;
}
