import { createHash, randomBytes } from 'node:crypto';
import type { Sql } from '../ledger/database.ts';
import { findLiveSignLink, insertSignLink, type SignLinkRecord } from '../ledger/advice/sign-links.repository.ts';
import type { SignCaseSignatory } from '../ledger/advice/sign-cases.repository.ts';

/**
 * Signing links: the one credential of the insurer's signing page. A link names one
 * signatory of one sign case and carries a random 256-bit token (base64url); only the
 * token's SHA-256 is kept (sign_links), as for staff sessions. The token is handed out
 * once, in the link, to whoever asked for it (an advisor or custodian that may act for
 * the customer, or staff mailing it), and it works until it expires, is revoked, or its
 * case is complete or closed.
 */
export interface IssuedSignLink {
  readonly token: string;
  readonly expiresAt: Date;
}

export async function issueSignLink(
  sql: Sql, signCaseId: string, signatory: Pick<SignCaseSignatory, 'role' | 'personalNumber'>,
  options: { readonly by: string; readonly now: Date; readonly lifetimeHours: number },
): Promise<IssuedSignLink> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(options.now.getTime() + options.lifetimeHours * 3_600_000);
  await insertSignLink(sql, {
    tokenHash: signLinkTokenHash(token), signCaseId, role: signatory.role, personalNumber: signatory.personalNumber,
    createdAt: options.now, createdBy: options.by, expiresAt,
  });
  return { token, expiresAt };
}

/** The live link a token opens for this case; undefined for a wrong, expired or revoked token and for a closed case or none. */
export async function openSignLink(sql: Sql, signCaseId: string, token: string | undefined, now: Date): Promise<SignLinkRecord | undefined> {
  // A malformed token is looked up all the same (as a hash that matches nothing): it takes the time a wrong one takes.
  return findLiveSignLink(sql, signCaseId, signLinkTokenHash(token ?? ''), now);
}

export function signLinkTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The page's address for the token: `<base>/sign/<signCaseId>?t=<token>`. */
export function signLinkUrl(baseUrl: string, signCaseId: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/sign/${encodeURIComponent(signCaseId)}?t=${token}`;
}
