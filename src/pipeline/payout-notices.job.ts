import type { Logger } from 'pino';
import { stockholmInstant } from '../core/banking-calendar.ts';
import { stockholmDate } from '../core/calendar-date.ts';
import type { MailSender } from '../channels/mail/mail-sender.ts';
import type { Database, Sql } from '../ledger/database.ts';
import type { CalendarJob } from './calendar.scheduler.ts';

/**
 * Tells the insurer that an insured person's payout can begin.
 *
 * The payout run (payout-run.ts) records a `payout_notices` row with an insurance's
 * first installment. The ledger holds no postal or e-mail address of insured persons,
 * so the gateway cannot write to them itself: this calendar job mails the insurer's
 * customer service (`notifications.customerServiceAddress`, else the operations
 * address) one notice listing each insurance whose payout can begin — insured's
 * name, insurance, custody account, first month, amount and the day it is paid by —
 * for the letter to the insured. Each notice is mailed once: the rows are locked,
 * mailed and marked sent in one transaction, and a repeat after a crash before commit
 * carries the same Message-ID. Without mail settings the notices wait, listed by
 * `depot-gateway payout-notices` and GET /api/payout-notices, and the first check
 * after mail is configured sends them.
 */
export interface PayoutNoticeDeps {
  readonly mailSender: MailSender | undefined;
  /** Where notices go; without it (or without a mail sender) they are recorded only. */
  readonly address: string | undefined;
  readonly log: Logger;
}

/** One notice, as the API sends it and the CLI prints it. */
export interface PayoutNoticeView {
  readonly insuranceNumber: string;
  readonly insuredName: string | null;
  readonly accountNumber: string | null;
  /** The day payout can begin, when the daily payout-start check recorded the notice. */
  readonly canBegin: string | null;
  /** The month of the first installment; null until the insured has started the payout and it is paid. */
  readonly firstMonth: string | null;
  /** The first installment: amount (SEK, two decimals) and the day the custodian pays it by. */
  readonly firstAmount: string | null;
  readonly payBy: string | null;
  readonly recordedAt: string;
  readonly sentTo: string | null;
  readonly sentAt: string | null;
}

/** Stockholm wall-clock times of the check on weekdays; each is a period of the calendar job. */
export const PAYOUT_NOTICE_TIMES = ['07:30', '13:00'] as const;
export const PAYOUT_NOTICE_PATTERNS = ['30 7 * * 1-5', '0 13 * * 1-5'] as const;
export const PAYOUT_NOTICE_JOB = 'payout-notices';

const NOTICE_COLUMNS = `
  n.insurance_number AS "insuranceNumber", p.name AS "insuredName", i.custody_account AS "accountNumber",
  to_char(n.can_begin, 'YYYY-MM-DD') AS "canBegin", n.first_month AS "firstMonth", o.amount::text AS "firstAmount", to_char(o.pay_by, 'YYYY-MM-DD') AS "payBy",
  n.recorded_at AS "recordedAt", n.sent_to AS "sentTo", n.sent_at AS "sentAt"`;
const NOTICE_FROM = `
  FROM payout_notices n
  JOIN insurances i ON i.insurance_number = n.insurance_number
  LEFT JOIN persons p ON p.personal_identity_number = i.insured_pin
  LEFT JOIN payout_orders o ON o.insurance_number = n.insurance_number AND o.installment = 1`;

type NoticeRow = Omit<PayoutNoticeView, 'recordedAt' | 'sentAt'> & { readonly recordedAt: Date; readonly sentAt: Date | null };

function view(row: NoticeRow): PayoutNoticeView {
  return { ...row, recordedAt: row.recordedAt.toISOString(), sentAt: row.sentAt?.toISOString() ?? null };
}

/** Every notice, newest first; with `unsent` only those not mailed yet. */
export async function listPayoutNotices(db: Pick<Database, 'query'>, query: { readonly unsent?: boolean; readonly limit?: number } = {}): Promise<PayoutNoticeView[]> {
  const { rows } = await db.query<NoticeRow>(
    `SELECT ${NOTICE_COLUMNS} ${NOTICE_FROM} ${query.unsent ? 'WHERE n.sent_at IS NULL' : ''}
      ORDER BY n.recorded_at DESC, n.insurance_number LIMIT $1`,
    [query.limit ?? null], // LIMIT NULL: all of them
  );
  return rows.map(view);
}

/** Subject and text of one notice mail listing `notices`. */
export function payoutNoticeText(notices: readonly PayoutNoticeView[]): { subject: string; text: string } {
  const count = notices.length;
  const lines = notices.map((n) => {
    const who = `- ${n.insuranceNumber} (${n.insuredName ?? 'name not in the ledger'}), custody account ${n.accountNumber ?? '-'}`;
    if (n.firstMonth === null) return `${who}: payout can begin ${n.canBegin ?? '-'}; not started yet`;
    const amount = n.firstAmount ? `first payout ${n.firstAmount} SEK, paid by ${n.payBy}` : 'first payout amount not yet known';
    return `${who}: from ${n.firstMonth}, ${amount}`;
  });
  const waiting = notices.some((n) => n.firstMonth === null);
  return {
    subject: `Payout can begin: ${count} insurance${count === 1 ? '' : 's'}`,
    text: [
      `Payout can begin for ${count === 1 ? 'this insurance' : `these ${count} insurances`}.`,
      'The gateway holds no address of the insured: please send each insured person the payout letter.',
      ...(waiting
        ? ['Where the payout is not started yet, the insured chooses the payout period, the first month and the account to be paid to; register it with depot-gateway payout-start.']
        : []),
      '',
      ...lines,
      '',
      'depot-gateway payout-notices lists every notice and when it was mailed.',
      '',
    ].join('\n'),
  };
}

/** Warned once per dependencies object that notices cannot be mailed. */
const warnedWithoutMail = new WeakSet<PayoutNoticeDeps>();

/**
 * Mails one notice of every payout notice not mailed yet, inside the caller's
 * transaction, and marks them sent. Gives the notices it mailed.
 * `noticeId` makes a repeated mail (after a crash before commit) carry the same Message-ID.
 */
export async function mailPayoutNotices(tx: Sql, deps: PayoutNoticeDeps, now: Date, noticeId?: string): Promise<PayoutNoticeView[]> {
  const { rows } = await tx.query<NoticeRow>(
    `SELECT ${NOTICE_COLUMNS} ${NOTICE_FROM} WHERE n.sent_at IS NULL
      ORDER BY n.recorded_at, n.insurance_number FOR UPDATE OF n SKIP LOCKED`,
  );
  if (rows.length === 0) return [];
  if (!deps.mailSender || !deps.address) {
    const level = warnedWithoutMail.has(deps) ? 'debug' : 'warn';
    warnedWithoutMail.add(deps);
    deps.log[level]({ notices: rows.length }, 'payout can begin for insured persons, but no mail.smtp or notifications address to tell anyone; see `depot-gateway payout-notices`');
    return [];
  }
  const notices = rows.map(view);
  const { subject, text } = payoutNoticeText(notices);
  await deps.mailSender.send({
    to: deps.address, subject, text,
    ...(noticeId ? { messageId: `<payout-notices.${noticeId.replace(/[^0-9A-Za-z.-]/g, '.')}@depot-gateway>` } : {}),
  });
  await tx.query(
    'UPDATE payout_notices SET sent_to = $2, sent_at = $3 WHERE insurance_number = ANY($1::text[])',
    [notices.map((n) => n.insuranceNumber), deps.address, now],
  );
  deps.log.info({ notices: notices.length, to: deps.address }, 'payout notice sent');
  return notices.map((n) => ({ ...n, sentTo: deps.address ?? null, sentAt: now.toISOString() }));
}

/** The notice check as a calendar job: a period is one check, `YYYY-MM-DD HH:MM` Stockholm time; a start catches up today's. */
export function payoutNoticeJob(deps: PayoutNoticeDeps): CalendarJob {
  return {
    name: PAYOUT_NOTICE_JOB,
    patterns: PAYOUT_NOTICE_PATTERNS,
    duePeriods(now) {
      const today = stockholmDate(now);
      return PAYOUT_NOTICE_TIMES.filter((time) => stockholmInstant(today, time).getTime() <= now.getTime()).map((time) => `${today} ${time}`);
    },
    async run({ sql, period, firedAt }) {
      await mailPayoutNotices(sql, deps, firedAt, period);
    },
  };
}
