import type { Logger } from 'pino';
import { parseBankAccount } from '../core/bank-account.ts';
import { bankingDayOnOrBefore, previousBankingDay } from '../core/banking-calendar.ts';
import { stockholmDate } from '../core/calendar-date.ts';
import { validationRunAt, WITHDRAWAL_ACCOUNT_RUN_TIME } from '../core/withdrawal-account.rules.ts';
import { decideRegistration, pendingRegistrationsDue } from '../ledger/advice/withdrawal-accounts.repository.ts';
import type { AccountOwnershipCheck } from './account-ownership.ts';
import type { CalendarJob } from './calendar.scheduler.ts';

/**
 * The daily validation of registered withdrawal accounts, at 13:00 Stockholm time on
 * banking days: every pending registration whose validation day has come is checked
 * against its policyholder through the account-ownership port and becomes `validated`
 * or `refused` with the bank's reason.
 *
 * Invariants:
 * - a registration is decided once: the run takes the pending rows under lock and the
 *   update only moves a pending row;
 * - a run that was missed (the gateway down at 13:00) is caught up by the calendar
 *   scheduler, and any later run also takes the rows of earlier days (`<=` the day);
 * - an ownership check that fails (its service unreachable) leaves the registration
 *   pending, for the next run; the others are still decided.
 */
export const WITHDRAWAL_ACCOUNT_JOB = 'withdrawal-account-validation';
export const WITHDRAWAL_ACCOUNT_PATTERNS = [`0 ${Number(WITHDRAWAL_ACCOUNT_RUN_TIME.slice(0, 2))} * * 1-5`] as const;

export interface WithdrawalAccountJobDeps {
  readonly ownership: AccountOwnershipCheck;
  readonly log: Logger;
}

/** A period is a banking day 'YYYY-MM-DD', due from its 13:00; the latest two are kept up with. */
export function withdrawalAccountValidationJob(deps: WithdrawalAccountJobDeps): CalendarJob {
  return {
    name: WITHDRAWAL_ACCOUNT_JOB,
    patterns: WITHDRAWAL_ACCOUNT_PATTERNS,
    duePeriods(now) {
      let day = bankingDayOnOrBefore(stockholmDate(now));
      if (validationRunAt(day).getTime() > now.getTime()) day = previousBankingDay(day);
      return [previousBankingDay(day), day];
    },
    async run({ sql, period, firedAt }) {
      const due = await pendingRegistrationsDue(sql, period);
      let validated = 0;
      let refused = 0;
      for (const registration of due) {
        const reading = parseBankAccount(registration.accountNumber);
        try {
          const answer = reading.ok ? await deps.ownership.check(reading.account, registration.customerId) : { owned: false as const, reason: reading.problem };
          await decideRegistration(sql, registration.registrationId, answer.owned ? { status: 'validated' } : { status: 'refused', reason: answer.reason }, firedAt);
          if (answer.owned) validated++;
          else refused++;
        } catch (error) {
          deps.log.warn({ registrationId: registration.registrationId, err: (error as Error).message }, 'withdrawal account not checked; it stays pending for the next run');
        }
      }
      deps.log.info({ day: period, validated, refused, pending: due.length - validated - refused }, 'withdrawal accounts validated');
    },
  };
}
