import type { Logger } from 'pino';
import type { MailSender } from '../channels/mail/mail-sender.ts';
import type { Sql } from '../ledger/database.ts';
import type { NoticeRecipient } from '../ledger/advice/application-notices.repository.ts';
import { applicationNoticeText, type NoticeToMail } from './application-notice-text.ts';
import type { CalendarJob } from './calendar.scheduler.ts';

/**
 * Tells the advisor and the customer that an application went to manual review.
 *
 * Submission records one `application_notices` row per recipient in the transaction
 * that puts the application under review (application-notices.repository.ts). This
 * calendar job, every five minutes, mails each notice that has an address, through
 * the gateway's mail sender, once: the rows are locked, mailed one by one and marked
 * sent in the run's transaction, and each mail's Message-ID is made from the
 * application and the recipient, so a repeat after a crash before commit is the same
 * mail. A mail the SMTP server does not take ends the run (the server may be away):
 * the notice counts the failure and its answer, the ones mailed before it stay sent,
 * and the next run tries it again after those that have not failed. A notice without
 * an address, or of an application decided before it could be mailed, is never
 * mailed. Without mail settings the notices wait, listed by `depot-gateway
 * application-notices` and GET /api/application-notices, and the first run after mail
 * is configured sends them.
 */
export interface ApplicationNoticeDeps {
  /** Without it notices are recorded only. */
  readonly mailSender: MailSender | undefined;
  readonly log: Logger;
  /** At most this many mails a run; the rest wait for the next. Default 200. */
  readonly batchSize?: number;
}

export const APPLICATION_NOTICE_JOB = 'application-notices';
export const APPLICATION_NOTICE_PATTERNS = ['*/5 * * * *'] as const;
const SLOT_MS = 5 * 60_000;

type NoticeRow = Omit<NoticeToMail, 'submittedAt'> & { readonly address: string; readonly submittedAt: Date | string; readonly failedAttempts: number };

/** The Message-ID of a notice's mail: the same on every try. */
export function applicationNoticeMessageId(applicationId: string, recipient: NoticeRecipient): string {
  return `<application-notice.${`${applicationId}.${recipient}`.replace(/[^0-9A-Za-z.-]/g, '.')}@depot-gateway>`;
}

/** Warned once per dependencies object that notices cannot be mailed. */
const warnedWithoutMail = new WeakSet<ApplicationNoticeDeps>();

/**
 * Mails the notices not mailed yet, inside the caller's transaction, and marks them
 * sent. Gives how many it mailed.
 */
export async function mailApplicationNotices(tx: Sql, deps: ApplicationNoticeDeps, now: Date): Promise<number> {
  const { rows } = await tx.query<NoticeRow>(
    `SELECT n.application_id AS "applicationId", n.recipient, n.address, n.failed_attempts AS "failedAttempts",
            a.kind, a.product_code AS "productId", p.name AS "productName", a.submitted_at AS "submittedAt", a.customer_id AS "customerId",
            a.body->'employer'->>'name' AS "employerName", adv.name AS "advisorName", f.name AS "firmName"
       FROM application_notices n
       JOIN applications a ON a.application_id = n.application_id
       JOIN products p ON p.code = a.product_code
       LEFT JOIN advisors adv ON adv.advisor_code = a.advisor_code AND adv.organisation_number = a.firm_organisation_number
       LEFT JOIN advisor_firms f ON f.organisation_number = a.firm_organisation_number
      WHERE n.sent_at IS NULL AND n.address IS NOT NULL AND a.status = 'under-review'
      ORDER BY n.failed_attempts, n.recorded_at, n.application_id, n.recipient
      LIMIT $1 FOR UPDATE OF n SKIP LOCKED`,
    [deps.batchSize ?? 200],
  );
  if (rows.length === 0) return 0;
  if (!deps.mailSender) {
    const level = warnedWithoutMail.has(deps) ? 'debug' : 'warn';
    warnedWithoutMail.add(deps);
    deps.log[level]({ notices: rows.length }, 'applications went to manual review, but no mail.smtp to tell the advisors and customers; see `depot-gateway application-notices`');
    return 0;
  }
  let mailed = 0;
  for (const row of rows) {
    const { subject, text } = applicationNoticeText({ ...row, submittedAt: new Date(row.submittedAt) });
    try {
      await deps.mailSender.send({ to: row.address, subject, text, messageId: applicationNoticeMessageId(row.applicationId, row.recipient) });
    } catch (error) {
      const reason = (error as Error).message;
      await tx.query(
        'UPDATE application_notices SET failed_attempts = failed_attempts + 1, last_error = $3 WHERE application_id = $1 AND recipient = $2',
        [row.applicationId, row.recipient, reason],
      );
      // Warned at the first failure of a notice; its later ones are in the staff list.
      deps.log[row.failedAttempts === 0 ? 'warn' : 'debug']({ application: row.applicationId, recipient: row.recipient, err: reason }, 'application notice not mailed; tried again in the next run');
      break;
    }
    await tx.query(
      'UPDATE application_notices SET sent_to = $3, sent_at = $4 WHERE application_id = $1 AND recipient = $2',
      [row.applicationId, row.recipient, row.address, now],
    );
    mailed += 1;
  }
  if (mailed > 0) deps.log.info({ notices: mailed }, 'application review notices sent');
  return mailed;
}

/**
 * The notice mailing as a calendar job: a period is a five-minute slot (`2026-11-25T09:35Z`,
 * UTC, so the autumn's repeated hour is no problem). Only the slot now is due: a run
 * mails every notice waiting, so slots missed while the gateway was down need no run
 * of their own.
 */
export function applicationNoticeJob(deps: ApplicationNoticeDeps): CalendarJob {
  return {
    name: APPLICATION_NOTICE_JOB,
    patterns: APPLICATION_NOTICE_PATTERNS,
    duePeriods(now) {
      return [`${new Date(Math.floor(now.getTime() / SLOT_MS) * SLOT_MS).toISOString().slice(0, 16)}Z`];
    },
    async run({ sql, firedAt }) {
      await mailApplicationNotices(sql, deps, firedAt);
    },
  };
}
