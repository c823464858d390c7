import type { Logger } from 'pino';
import { stockholmDate } from '../core/calendar-date.ts';
import { recordPayoutCanBegin } from '../ledger/plan/payout-start.repository.ts';
import type { CalendarJob } from './calendar.scheduler.ts';

/**
 * The daily check for insurances whose payout can begin (the agreed payout start date,
 * else the insured's birthday at the product's payout age: src/core/payout-start.ts).
 * Each one reached gets its `payout_notices` row, once; payout-notices.job.ts tells the
 * insured (by mail or by letter) and customer service, and the insured then starts the
 * payout (a signed payout request, src/requests/payout-request.ts; or a paper form staff
 * register: POST /api/insurances/<number>/payout, `depot-gateway payout-start`).
 * A period is a Stockholm day; a day missed while the gateway was down is covered by
 * the next, which finds every insurance reached on or before it.
 */
export const PAYOUT_START_JOB = 'payout-start';
/** Every morning at 06:00 Stockholm, before the 07:30 notice mail. */
export const PAYOUT_START_PATTERNS = ['0 6 * * *'] as const;

export function payoutStartJob(deps: { readonly log: Logger }): CalendarJob {
  return {
    name: PAYOUT_START_JOB,
    patterns: PAYOUT_START_PATTERNS,
    duePeriods: (now) => [stockholmDate(now)],
    async run({ sql, period, firedAt }) {
      const reached = await recordPayoutCanBegin(sql, period, firedAt);
      if (reached.length > 0) deps.log.info({ day: period, insurances: reached.length }, 'payout can begin: notices recorded');
    },
  };
}
