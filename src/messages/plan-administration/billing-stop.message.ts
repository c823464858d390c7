import { checkBillingCanStop } from '../../core/billing.rules.ts';
import type { InsuranceFacts } from '../../ledger/plan/plan.repository.ts';
import { insertBillingEvents, type NewBillingEvent } from '../../ledger/plan/billing.repository.ts';
import { textOf } from '../xml-element.ts';
import { findItemInsurances, premiumPayingInsuranceOfItem, readInsuranceItem } from './insurance-item.ts';
import { definePlanMessage, type PersonItem } from './plan-message.ts';

/**
 * BillingStop: the employer or administrator stops the premium billing of an insurance
 * from a date while the insured is on parental leave, leave of absence or long sick
 * leave. The insurance stays premium-paying (it is not made paid-up); only the
 * invoices stop until a BillingStart resumes them.
 * Writes: one billing_events row (event 'Stop', the reason) per accepted item.
 * Rejections: INSURANCE_UNKNOWN (not this person's insurance under the agreement), INSURANCE_ENDED (it has ended),
 * EFFECTIVE_DATE_TOO_OLD, EFFECTIVE_DATE_BEFORE_START (before the insurance began),
 * INSURANCE_PAID_UP (paid-up on the stop date), BILLING_ALREADY_STOPPED (also for a
 * second item of the same document), BILLING_STOP_BEFORE_START (before the day billing
 * last resumed).
 */
export type BillingStopReason = 'ParentalLeave' | 'LeaveOfAbsence' | 'SickLeave' | 'Other';

export interface BillingStopItem extends PersonItem {
  readonly insuranceNumber: string;
  readonly stopDate: string;
  readonly reason: BillingStopReason;
}

export const billingStop = definePlanMessage<BillingStopItem, Map<string, InsuranceFacts>, NewBillingEvent>({
  name: 'BillingStop',
  readItem: (item): BillingStopItem => ({
    ...readInsuranceItem(item),
    stopDate: textOf(item, 'StopDate'),
    reason: textOf(item, 'Reason') as BillingStopReason,
  }),
  loadFacts: (context, items) => findItemInsurances(context, items),
  decide(context, insurances, item) {
    const found = premiumPayingInsuranceOfItem(context, insurances, item, { date: item.stopDate, dateName: 'Stop date', checkedAgainstStart: true });
    if ('reject' in found) return found;
    const { insurance } = found;
    const rejection = checkBillingCanStop(insurance.insuranceNumber, insurance.lastBillingEvent, item.stopDate);
    if (rejection) return { reject: rejection };
    insurance.lastBillingEvent = { event: 'Stop', effectiveDate: item.stopDate }; // a later item of this document sees it stopped
    return { accept: { insuranceNumber: insurance.insuranceNumber, event: 'Stop', effectiveDate: item.stopDate, reason: item.reason } };
  },
  write: (context, events) => insertBillingEvents(context.tx, context.messageId, events),
});
