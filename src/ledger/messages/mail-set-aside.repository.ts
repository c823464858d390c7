import { GatewayError } from '../../core/gateway-error.ts';
import type { Sql } from '../database.ts';

const SET_ASIDE_LIMIT_DEFAULT = 100;
const SET_ASIDE_LIMIT_MAX = 1000;

/**
 * Mail the mailbox channel could not take (see migration 0006): recorded before the
 * mail is moved to the aside folder, listed for staff, newest first.
 */
export interface SetAsideMailRecord {
  readonly mailMessageId: string;
  readonly sender: string | null;
  readonly subject: string;
  readonly reason: string;
  readonly detail: string;
  readonly folder: string;
  readonly receivedAt: Date;
}

interface SetAsideRow {
  mail_message_id: string;
  sender: string | null;
  subject: string;
  reason: string;
  detail: string;
  folder: string;
  received_at: Date | string;
}

/** A set-aside mail as staff see it (API, CLI): the time as an ISO string. */
export type SetAsideMailView = Omit<SetAsideMailRecord, 'receivedAt'> & { readonly receivedAt: string };

/** Records a set-aside mail; the same Message-ID again changes nothing. */
export async function recordSetAsideMail(sql: Sql, mail: Omit<SetAsideMailRecord, 'sender'> & { readonly sender: string | null | undefined }): Promise<void> {
  await sql.query(
    `INSERT INTO mail_set_aside (mail_message_id, sender, subject, reason, detail, folder, received_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (mail_message_id) DO NOTHING`,
    [mail.mailMessageId, mail.sender ?? null, mail.subject, mail.reason, mail.detail, mail.folder, mail.receivedAt.toISOString()],
  );
}

/** The most recent set-aside mail, newest first. */
export async function listSetAsideMail(sql: Sql, limit = SET_ASIDE_LIMIT_DEFAULT): Promise<SetAsideMailView[]> {
  const { rows } = await sql.query<SetAsideRow>(
    `SELECT mail_message_id, sender, subject, reason, detail, folder, received_at
       FROM mail_set_aside ORDER BY received_at DESC, id DESC LIMIT $1`,
    [limit],
  );
  return rows.map((row) => ({
    mailMessageId: row.mail_message_id,
    sender: row.sender,
    subject: row.subject,
    reason: row.reason,
    detail: row.detail,
    folder: row.folder,
    receivedAt: new Date(row.received_at).toISOString(),
  }));
}

/** A listing limit from a query string or option: 1 to 1,000, default 100. */
export function setAsideLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return SET_ASIDE_LIMIT_DEFAULT;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > SET_ASIDE_LIMIT_MAX) {
    throw new GatewayError('REQUEST_INVALID', `limit must be a whole number from 1 to ${SET_ASIDE_LIMIT_MAX}, not "${raw}".`);
  }
  return limit;
}
