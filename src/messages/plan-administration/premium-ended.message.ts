import { checkNotYetPaidUp } from '../../core/premium.rules.ts';
import { insertPaidUp, type InsuranceFacts, type NewPaidUp } from '../../ledger/plan/plan.repository.ts';
import { optionalTextOf, textOf } from '../xml-element.ts';
import { definePlanMessage, type PersonItem } from './plan-message.ts';
import { checkInsuranceDate, findItemInsurances, insuranceOfItem, readInsuranceItem } from './insurance-item.ts';

/**
 * PremiumEnded: the employer or administrator makes an insurance paid-up (fribrev)
 * while the employment goes on — the employer stops paying premiums into it, and the
 * capital already paid in stays invested in the insurance's funds. (When the
 * employment itself ends, EmploymentEnded does this for all the person's insurances.)
 * Writes: one insurance_paid_up row per accepted item, paid-up from PaidUpFrom. The
 * optional Reason is not recorded in the ledger (insurance_paid_up has no column for
 * it); it stays in the stored request document.
 * Rejections: INSURANCE_UNKNOWN (not this person's insurance under the agreement), INSURANCE_ENDED (it has ended),
 * INSURANCE_PAID_UP (already paid-up, whatever the date — also by an earlier item of
 * the same document; the text gives the paid-up date), EFFECTIVE_DATE_TOO_OLD,
 * EFFECTIVE_DATE_BEFORE_START (before the insurance began).
 */
export const PREMIUM_ENDED_REASONS = ['EmployerDecision', 'CategoryChange', 'ProviderChange', 'Other'] as const;
export type PremiumEndedReason = (typeof PREMIUM_ENDED_REASONS)[number];

export interface PremiumEndedItem extends PersonItem {
  readonly insuranceNumber: string;
  readonly paidUpFrom: string;
  readonly reason: PremiumEndedReason | null;
}

interface PremiumEndedFacts {
  readonly insurances: Map<string, InsuranceFacts>;
  /** The item of this document that made an insurance paid-up, by insurance number. */
  readonly paidUpByItem: Map<string, string>;
}

export const premiumEnded = definePlanMessage<PremiumEndedItem, PremiumEndedFacts, NewPaidUp>({
  name: 'PremiumEnded',
  readItem: (item): PremiumEndedItem => ({
    ...readInsuranceItem(item),
    paidUpFrom: textOf(item, 'PaidUpFrom'),
    reason: (optionalTextOf(item, 'Reason') as PremiumEndedReason | undefined) ?? null,
  }),
  loadFacts: async (context, items) => ({
    insurances: await findItemInsurances(context, items),
    paidUpByItem: new Map<string, string>(),
  }),
  decide(context, facts, item) {
    const found = insuranceOfItem(context, facts.insurances, item);
    if ('reject' in found) return found;
    const { insurance } = found;
    const rejection =
      checkNotYetPaidUp(insurance, facts.paidUpByItem.get(insurance.insuranceNumber)) ??
      checkInsuranceDate(context, insurance, item.paidUpFrom, 'Paid-up date');
    if (rejection) return { reject: rejection };
    // A later item of this document for the same insurance sees it paid-up (and by which item).
    insurance.paidUpFrom = item.paidUpFrom;
    facts.paidUpByItem.set(insurance.insuranceNumber, item.itemId);
    return { accept: { insuranceNumber: insurance.insuranceNumber, paidUpFrom: item.paidUpFrom } };
  },
  write: (context, paidUp) => insertPaidUp(context.tx, context.messageId, paidUp),
});
