import type { IsoDate } from './calendar-date.ts';
import type { RuleRejection } from './plan-rules.ts';

/**
 * Rules of billing stops and starts (parental or other leave) that need no I/O. Billing
 * of an insurance alternates Stop, Start, Stop, …: its state on a date is the latest
 * event on or before it. So a stop needs billing to be running and a start needs it to
 * be stopped, and neither may reach back before the latest event — otherwise the new
 * event would hide behind it and the answer "Accepted" would change nothing.
 * An event on the very day of the latest one is allowed: it is recorded after it and
 * wins (a start on the stop day cancels the stop, and the reverse).
 */
export interface BillingEvent {
  readonly event: 'Stop' | 'Start';
  readonly effectiveDate: IsoDate;
}

/** Billing may stop when it is running, from the day it last resumed at the earliest. */
export function checkBillingCanStop(insuranceNumber: string, latest: BillingEvent | null, stopDate: IsoDate): RuleRejection | undefined {
  if (latest?.event === 'Stop') {
    return {
      code: 'BILLING_ALREADY_STOPPED',
      text: `Billing of insurance ${insuranceNumber} is already stopped from ${latest.effectiveDate}; send a BillingStart when the leave ends before stopping it again.`,
    };
  }
  if (latest?.event === 'Start' && stopDate < latest.effectiveDate) {
    return {
      code: 'BILLING_STOP_BEFORE_START',
      text: `Stop date ${stopDate} is before ${latest.effectiveDate}, when billing of insurance ${insuranceNumber} last resumed; use a stop date on or after ${latest.effectiveDate}.`,
    };
  }
  return undefined;
}

/** Billing may start when it is stopped, from the day it stopped at the earliest. */
export function checkBillingCanStart(insuranceNumber: string, latest: BillingEvent | null, startDate: IsoDate): RuleRejection | undefined {
  if (latest === null) {
    return { code: 'BILLING_NOT_STOPPED', text: `Billing of insurance ${insuranceNumber} is not stopped; there is no stop to end.` };
  }
  if (latest.event === 'Start') {
    return { code: 'BILLING_NOT_STOPPED', text: `Billing of insurance ${insuranceNumber} is not stopped: it resumed on ${latest.effectiveDate}.` };
  }
  if (startDate < latest.effectiveDate) {
    return {
      code: 'BILLING_START_BEFORE_STOP',
      text: `Start date ${startDate} is before ${latest.effectiveDate}, the day billing of insurance ${insuranceNumber} stopped; use a start date on or after it.`,
    };
  }
  return undefined;
}

