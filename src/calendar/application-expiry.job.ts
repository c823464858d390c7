import type { Logger } from 'pino';
import { stockholmDate, type IsoDate } from '../core/calendar-date.ts';
import { expireUnsignedApplications } from '../ledger/advice/applications.repository.ts';
import type { Sql } from '../ledger/database.ts';
import { closeSignCase } from '../ledger/advice/sign-cases.repository.ts';
import type { CalendarJob } from './calendar.scheduler.ts';

/**
 * The daily expiry of applications not signed in time: each one still
 * `awaiting-signature` after its last day to sign (`api.applicationSigningDays` after
 * its submission) becomes `expired`, and its sign case is closed with the reason, so
 * nobody signs it any more (Sign answers SIGN_CASE_CLOSED; the signing page no longer
 * opens). A period is a Stockholm day; a day missed while the gateway was down is
 * covered by the next, which finds every application whose last day has passed.
 */
export const APPLICATION_EXPIRY_JOB = 'application-expiry';
/** Five past midnight Stockholm: the first minutes of the day after the last day to sign. */
export const APPLICATION_EXPIRY_PATTERNS = ['5 0 * * *'] as const;

export function applicationExpiryJob(deps: { readonly log: Logger }): CalendarJob {
  return {
    name: APPLICATION_EXPIRY_JOB,
    patterns: APPLICATION_EXPIRY_PATTERNS,
    duePeriods: (now) => [stockholmDate(now)],
    async run({ sql, period, firedAt }) {
      const expired = await expireApplications(sql, period, firedAt);
      if (expired.length > 0) deps.log.info({ day: period, applications: expired }, 'applications not signed in time have expired');
    },
  };
}

/**
 * Expires the applications whose last day to sign is before `today` (only
 * `applicationId`, when given) and closes their sign cases, in the caller's
 * transaction; their ids.
 */
export async function expireApplications(tx: Sql, today: IsoDate, at: Date, applicationId?: string): Promise<string[]> {
  const expired = await expireUnsignedApplications(tx, today, at, applicationId);
  for (const { applicationId: id, signBy } of expired) {
    await closeSignCase(tx, { kind: 'application', id }, `The application was not signed by ${signBy} and has expired.`, at);
  }
  return expired.map((application) => application.applicationId);
}
