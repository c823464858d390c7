import type { Database, Sql } from '../database.ts';
import type { InsuranceApplicationInput } from '../../core/insurance-application.rules.ts';
import type { PlanApplicationInput } from '../../core/plan-application.rules.ts';

/**
 * Notices that an application went to manual review: one per recipient — the advisor
 * who made it, and the policyholder (insurance) or the employer's contact (plan) —
 * recorded in the transaction that puts the application under review, with the
 * address known then (null when none is: listed, never mailed). The calendar job
 * application-notices.job.ts mails them; staff list them.
 */

export type NoticeRecipient = 'advisor' | 'policyholder' | 'employer';

/** What recording needs of an application put under review (a NewApplication is one). */
export type ReviewedApplication = {
  readonly applicationId: string;
  readonly advisorCode: string;
  readonly firmOrganisationNumber: string;
} & (
  | { readonly kind: 'insurance'; readonly body: InsuranceApplicationInput }
  | { readonly kind: 'plan'; readonly body: PlanApplicationInput }
);

/** The customer's side of an application: who is told, at the address the application gives. */
function customerContact(application: ReviewedApplication): { recipient: NoticeRecipient; address: string | null } {
  switch (application.kind) {
    case 'insurance':
      return { recipient: 'policyholder', address: application.body.policyholder.email ?? null };
    case 'plan':
      return { recipient: 'employer', address: application.body.employer.contactEmail ?? null };
    default:
      return application satisfies never;
  }
}

/**
 * Records the advisor's notice (the advisor's e-mail in the register) and the
 * customer's, in the caller's transaction. Recording again for the same application
 * adds nothing.
 */
export async function recordReviewNotices(tx: Sql, application: ReviewedApplication, at: Date): Promise<void> {
  const customer = customerContact(application);
  await tx.query(
    `INSERT INTO application_notices (application_id, recipient, address, recorded_at)
     SELECT $1::text, 'advisor', (SELECT email FROM advisors WHERE advisor_code = $2 AND organisation_number = $3), $4::timestamptz
     UNION ALL SELECT $1::text, $5::text, $6::text, $4::timestamptz
     ON CONFLICT (application_id, recipient) DO NOTHING`,
    [application.applicationId, application.advisorCode, application.firmOrganisationNumber, at.toISOString(), customer.recipient, customer.address],
  );
}

/** One notice, as the staff API sends it and the CLI prints it. */
export interface ApplicationNoticeView {
  readonly applicationId: string;
  /** The application's status now: a notice of one decided before it could be mailed is not mailed. */
  readonly applicationStatus: string;
  readonly recipient: NoticeRecipient;
  /** Where it is to be mailed; null: no address known, never mailed. */
  readonly address: string | null;
  readonly recordedAt: string;
  readonly sentTo: string | null;
  readonly sentAt: string | null;
  /** Tries the SMTP server did not take, and its last answer. */
  readonly failedAttempts: number;
  readonly lastError: string | null;
}

export interface NoticeQuery {
  /** Only notices not mailed (waiting, without an address, or of an application decided first). */
  readonly unsent?: boolean;
  /** At most this many, newest first; default 100. */
  readonly limit?: number;
}

type NoticeRow = Omit<ApplicationNoticeView, 'recordedAt' | 'sentAt'> & { readonly recordedAt: Date | string; readonly sentAt: Date | string | null };

/** Notices, newest first. */
export async function listApplicationNotices(db: Pick<Database, 'query'>, query: NoticeQuery = {}): Promise<ApplicationNoticeView[]> {
  const { rows } = await db.query<NoticeRow>(
    `SELECT n.application_id AS "applicationId", a.status AS "applicationStatus", n.recipient, n.address,
            n.recorded_at AS "recordedAt", n.sent_to AS "sentTo", n.sent_at AS "sentAt", n.failed_attempts AS "failedAttempts", n.last_error AS "lastError"
       FROM application_notices n JOIN applications a ON a.application_id = n.application_id
      ${query.unsent ? 'WHERE n.sent_at IS NULL' : ''}
      ORDER BY n.recorded_at DESC, n.application_id DESC, n.recipient LIMIT $1`,
    [query.limit ?? 100],
  );
  return rows.map((row) => ({ ...row, recordedAt: iso(row.recordedAt), sentAt: row.sentAt === null ? null : iso(row.sentAt) }));
}

function iso(value: Date | string): string {
  return new Date(value).toISOString();
}
