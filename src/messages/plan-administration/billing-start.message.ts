import { checkBillingCanStart } from '../../core/billing.rules.ts';
import type { InsuranceFacts } from '../../ledger/plan/plan.repository.ts';
import { insertBillingEvents, type NewBillingEvent } from '../../ledger/plan/billing.repository.ts';
import { textOf } from '../xml-element.ts';
import { findItemInsurances, premiumPayingInsuranceOfItem, readInsuranceItem } from './insurance-item.ts';
import { definePlanMessage, type PersonItem } from './plan-message.ts';

/**
 * BillingStart: the employer or administrator resumes the premium billing of an
 * insurance from a date when the insured's leave ends, ending the stop a BillingStop
 * began. Invoices run again from the start date.
 * Writes: one billing_events row (event 'Start') per accepted item.
 * Rejections: INSURANCE_UNKNOWN (not this person's insurance under the agreement), INSURANCE_ENDED (it has ended),
 * EFFECTIVE_DATE_TOO_OLD, INSURANCE_PAID_UP (paid-up on the start date: a paid-up
 * insurance is billed no more), BILLING_NOT_STOPPED (never stopped, or already
 * resumed — also by an earlier item of the same document), BILLING_START_BEFORE_STOP.
 * A start is never before the insurance began, since it is not before its stop.
 */
export interface BillingStartItem extends PersonItem {
  readonly insuranceNumber: string;
  readonly startDate: string;
}

export const billingStart = definePlanMessage<BillingStartItem, Map<string, InsuranceFacts>, NewBillingEvent>({
  name: 'BillingStart',
  readItem: (item): BillingStartItem => ({
    ...readInsuranceItem(item),
    startDate: textOf(item, 'StartDate'),
  }),
  loadFacts: (context, items) => findItemInsurances(context, items),
  decide(context, insurances, item) {
    // Not checked against the insurance's start: a stop to end always began after it.
    const found = premiumPayingInsuranceOfItem(context, insurances, item, { date: item.startDate, dateName: 'Start date', checkedAgainstStart: false });
    if ('reject' in found) return found;
    const { insurance } = found;
    const rejection = checkBillingCanStart(insurance.insuranceNumber, insurance.lastBillingEvent, item.startDate);
    if (rejection) return { reject: rejection };
    insurance.lastBillingEvent = { event: 'Start', effectiveDate: item.startDate }; // a later item of this document sees it running
    return { accept: { insuranceNumber: insurance.insuranceNumber, event: 'Start', effectiveDate: item.startDate, reason: null } };
  },
  write: (context, events) => insertBillingEvents(context.tx, context.messageId, events),
});
