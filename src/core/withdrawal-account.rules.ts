import { bankingDayOnOrAfter, isBankingDay, nextBankingDay, stockholmInstant } from './banking-calendar.ts';
import { stockholmDate, type IsoDate } from './calendar-date.ts';

/**
 * When a registered withdrawal account is validated. The insurer checks new accounts
 * against their policyholders once a banking day, in the run at 13:00 Stockholm time;
 * an account registered before 07:00 on a banking day is in that day's run, one
 * registered later (or on a day banks are closed) in the next banking day's run. Only
 * a validated account can receive a withdrawal.
 */
export const WITHDRAWAL_ACCOUNT_CUTOFF = '07:00';
export const WITHDRAWAL_ACCOUNT_RUN_TIME = '13:00';

/** The banking day whose 13:00 run validates an account registered at `registeredAt`. */
export function validationDayOf(registeredAt: Date): IsoDate {
  const day = stockholmDate(registeredAt);
  if (!isBankingDay(day)) return bankingDayOnOrAfter(day);
  return registeredAt.getTime() < stockholmInstant(day, WITHDRAWAL_ACCOUNT_CUTOFF).getTime() ? day : nextBankingDay(day);
}

/** The instant of a banking day's validation run. */
export function validationRunAt(bankingDay: IsoDate): Date {
  return stockholmInstant(bankingDay, WITHDRAWAL_ACCOUNT_RUN_TIME);
}
