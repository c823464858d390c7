import type { Logger } from 'pino';
import { stockholmInstant } from '../core/banking-calendar.ts';
import { stockholmDate } from '../core/calendar-date.ts';
import type { MailSender } from '../channels/mail/mail-sender.ts';
import { renderTextPdf } from '../documents/text-pdf.ts';
import type { Database, Sql } from '../ledger/database.ts';
import type { CalendarJob } from './calendar.scheduler.ts';
import { insuredNoticeLetter, insuredNoticeMail, payoutNoticeCopy, type InsuredNotice, type InsuredNoticeWay } from './payout-notice-text.ts';

/**
 * Tells the insured that payout can begin, and customer service that they were told.
 *
 * The daily payout-start check (payout-start.job.ts) records a `payout_notices` row when
 * an insurance's payout can begin; the payout run records one with a first installment
 * put in place without it. This calendar job (07:30 and 13:00 on weekdays) then:
 * - tells each insured not told yet (payout-notice-text.ts): by mail where an address is
 *   known (`insurances.insured_email`, from the application) and mail is configured,
 *   otherwise by a letter — a PDF stored with the notice, in the print queue staff
 *   download (GET /api/payout-notices/<insurance>/letter, the console, `depot-gateway
 *   payout-notices letter <insurance>`). An insured whose payout was started, or whose
 *   insurance ended, before the notice went out is not told (`not-needed`);
 * - mails customer service (`notifications.customerServiceAddress`, else the operations
 *   address) one copy listing the notices of the run and how each insured was told.
 *
 * Each notice is sent once: the rows are locked, told, mailed and marked in one
 * transaction, and a repeat after a crash before commit carries the same Message-IDs
 * (the insured's made from the insurance, the copy's from the run). Without mail
 * settings the insured are told by letter and the copies wait, listed by `depot-gateway
 * payout-notices` and GET /api/payout-notices; the first check after mail is configured
 * sends them.
 */
export interface PayoutNoticeDeps {
  readonly mailSender: MailSender | undefined;
  /** Where the copies go; without it (or without a mail sender) they are recorded only. */
  readonly address: string | undefined;
  readonly log: Logger;
}

/** One notice, as the API sends it and the CLI prints it. */
export interface PayoutNoticeView {
  readonly insuranceNumber: string;
  readonly insuredPin: string;
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
  /** How the insured was told (null: not yet), to which address when by mail, and when. */
  readonly insuredNotice: InsuredNoticeWay | null;
  readonly insuredAddress: string | null;
  readonly insuredToldAt: string | null;
  /** The copy to customer service: to whom and when. */
  readonly sentTo: string | null;
  readonly sentAt: string | null;
}

/** Stockholm wall-clock times of the check on weekdays; each is a period of the calendar job. */
export const PAYOUT_NOTICE_TIMES = ['07:30', '13:00'] as const;
export const PAYOUT_NOTICE_PATTERNS = ['30 7 * * 1-5', '0 13 * * 1-5'] as const;
export const PAYOUT_NOTICE_JOB = 'payout-notices';

const NOTICE_COLUMNS = `
  n.insurance_number AS "insuranceNumber", i.insured_pin AS "insuredPin", p.name AS "insuredName", i.custody_account AS "accountNumber",
  to_char(n.can_begin, 'YYYY-MM-DD') AS "canBegin", n.first_month AS "firstMonth", o.amount::text AS "firstAmount", to_char(o.pay_by, 'YYYY-MM-DD') AS "payBy",
  n.recorded_at AS "recordedAt", n.insured_notice AS "insuredNotice", n.insured_address AS "insuredAddress", n.insured_told_at AS "insuredToldAt",
  n.sent_to AS "sentTo", n.sent_at AS "sentAt"`;
const NOTICE_FROM = `
  FROM payout_notices n
  JOIN insurances i ON i.insurance_number = n.insurance_number
  LEFT JOIN persons p ON p.personal_identity_number = i.insured_pin
  LEFT JOIN payout_orders o ON o.insurance_number = n.insurance_number AND o.installment = 1`;

type NoticeRow = Omit<PayoutNoticeView, 'recordedAt' | 'sentAt' | 'insuredToldAt'> & {
  readonly recordedAt: Date; readonly sentAt: Date | null; readonly insuredToldAt: Date | null;
};

function view(row: NoticeRow): PayoutNoticeView {
  return { ...row, recordedAt: row.recordedAt.toISOString(), insuredToldAt: row.insuredToldAt?.toISOString() ?? null, sentAt: row.sentAt?.toISOString() ?? null };
}

export interface PayoutNoticeQuery {
  /** Only those whose copy to customer service is not mailed yet. */
  readonly unsent?: boolean;
  /** Only those told by letter: the print queue. */
  readonly letters?: boolean;
  readonly limit?: number;
}

/** Every notice, newest first; `unsent` and `letters` narrow it. */
export async function listPayoutNotices(db: Pick<Database, 'query'>, query: PayoutNoticeQuery = {}): Promise<PayoutNoticeView[]> {
  const where = [query.unsent ? 'n.sent_at IS NULL' : '', query.letters ? `n.insured_notice = 'letter'` : ''].filter(Boolean);
  const { rows } = await db.query<NoticeRow>(
    `SELECT ${NOTICE_COLUMNS} ${NOTICE_FROM} ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY n.recorded_at DESC, n.insurance_number LIMIT $1`,
    [query.limit ?? null], // LIMIT NULL: all of them
  );
  return rows.map(view);
}

/** The letter to an insured (a PDF), when the notice was told by letter. */
export async function payoutNoticeLetter(db: Pick<Database, 'query'>, insuranceNumber: string): Promise<Buffer | undefined> {
  const { rows } = await db.query<{ letter: Uint8Array | null }>('SELECT letter FROM payout_notices WHERE insurance_number = $1', [insuranceNumber]);
  const letter = rows[0]?.letter;
  return letter ? Buffer.from(letter) : undefined;
}

/** The Message-ID of the mail to an insured: the same on every try. */
export function insuredNoticeMessageId(insuranceNumber: string): string {
  return `<payout-notice.${insuranceNumber.replace(/[^0-9A-Za-z.-]/g, '.')}.insured@depot-gateway>`;
}

/** Warned once per dependencies object that copies cannot be mailed. */
const warnedWithoutMail = new WeakSet<PayoutNoticeDeps>();

interface DueRow extends NoticeRow {
  readonly insuredEmail: string | null;
  readonly productName: string;
  readonly offeredMonths: readonly number[];
  readonly kind: 'P' | 'T' | 'K';
  readonly startedOrEnded: boolean;
}

/**
 * Tells every insured not told yet and mails customer service the copy of every notice
 * not copied yet, inside the caller's transaction, marking each. Gives the notices
 * copied (none without mail settings). `noticeId` makes a repeated copy (after a crash
 * before commit) carry the same Message-ID.
 */
export async function mailPayoutNotices(tx: Sql, deps: PayoutNoticeDeps, now: Date, noticeId?: string): Promise<PayoutNoticeView[]> {
  const { rows } = await tx.query<DueRow>(
    `SELECT ${NOTICE_COLUMNS}, i.insured_email AS "insuredEmail", pr.name AS "productName", pr.payout_months AS "offeredMonths", pr.kind,
            (i.end_date IS NOT NULL OR EXISTS (SELECT 1 FROM payouts po WHERE po.insurance_number = n.insurance_number)) AS "startedOrEnded"
       ${NOTICE_FROM} JOIN products pr ON pr.code = i.product_code
      WHERE n.insured_told_at IS NULL OR n.sent_at IS NULL
      ORDER BY n.recorded_at, n.insurance_number FOR UPDATE OF n SKIP LOCKED`,
  );
  if (rows.length === 0) return [];
  const told = [];
  for (const row of rows) told.push(row.insuredToldAt === null ? { ...row, ...(await tellInsured(tx, deps, row, now)) } : row);
  const copies = told.filter((row) => row.sentAt === null).map(view);
  if (copies.length === 0) return [];
  if (!deps.mailSender || !deps.address) {
    const level = warnedWithoutMail.has(deps) ? 'debug' : 'warn';
    warnedWithoutMail.add(deps);
    deps.log[level]({ notices: copies.length }, 'payout can begin for insured persons, but no mail.smtp or notifications address to send customer service the copy; see `depot-gateway payout-notices`');
    return [];
  }
  const { subject, text } = payoutNoticeCopy(copies);
  await deps.mailSender.send({
    to: deps.address, subject, text,
    ...(noticeId ? { messageId: `<payout-notices.${noticeId.replace(/[^0-9A-Za-z.-]/g, '.')}@depot-gateway>` } : {}),
  });
  await tx.query(
    'UPDATE payout_notices SET sent_to = $2, sent_at = $3 WHERE insurance_number = ANY($1::text[])',
    [copies.map((n) => n.insuranceNumber), deps.address, now],
  );
  deps.log.info({ notices: copies.length, to: deps.address }, 'payout notice copy sent to customer service');
  return copies.map((n) => ({ ...n, sentTo: deps.address ?? null, sentAt: now.toISOString() }));
}

/** Tells one insured — by mail, by letter, or not at all when the payout was started or the insurance ended first — and records it. */
async function tellInsured(tx: Sql, deps: PayoutNoticeDeps, row: DueRow, now: Date): Promise<Pick<NoticeRow, 'insuredNotice' | 'insuredAddress' | 'insuredToldAt'>> {
  const notice: InsuredNotice = {
    insuranceNumber: row.insuranceNumber, insuredPin: row.insuredPin, insuredName: row.insuredName, productName: row.productName,
    custodyAccount: row.accountNumber ?? '-', canBegin: row.canBegin ?? stockholmDate(row.recordedAt), offeredMonths: row.offeredMonths, occupational: row.kind === 'T',
  };
  let way: InsuredNoticeWay;
  let address: string | null = null;
  let letter: Buffer | null = null;
  if (row.startedOrEnded) {
    way = 'not-needed';
  } else if (row.insuredEmail && deps.mailSender && await mailedInsured(deps, deps.mailSender, row.insuredEmail, notice)) {
    way = 'mail';
    address = row.insuredEmail;
  } else {
    const { title, sections } = insuredNoticeLetter(notice);
    letter = await renderTextPdf(title, sections, now);
    way = 'letter';
  }
  await tx.query(
    'UPDATE payout_notices SET insured_notice = $2, insured_address = $3, insured_told_at = $4, letter = $5 WHERE insurance_number = $1',
    [row.insuranceNumber, way, address, now, letter],
  );
  deps.log.info({ insurance: row.insuranceNumber, way }, 'payout notice: the insured told');
  return { insuredNotice: way, insuredAddress: address, insuredToldAt: now };
}

/**
 * Mails the insured; false when the mail server refused the address for good (a 5xx
 * answer: no such mailbox), so a letter goes instead. Any other failure (the server
 * away, a temporary refusal) ends the run, to be tried again at the next check with the
 * same Message-ID.
 */
async function mailedInsured(deps: PayoutNoticeDeps, sender: MailSender, to: string, notice: InsuredNotice): Promise<boolean> {
  const { subject, text } = insuredNoticeMail(notice);
  try {
    await sender.send({ to, subject, text, messageId: insuredNoticeMessageId(notice.insuranceNumber) });
    return true;
  } catch (error) {
    const code = ((error as { cause?: { responseCode?: unknown } }).cause)?.responseCode;
    if (typeof code !== 'number' || code < 500 || code > 599) throw error;
    deps.log.warn({ insurance: notice.insuranceNumber, code }, 'payout notice: the mail server refused the insured\'s address; a letter is made instead');
    return false;
  }
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
