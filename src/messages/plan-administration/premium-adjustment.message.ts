import { checkPremiumBounds } from '../../core/plan-rules.ts';
import { namingInsurance } from '../../core/premium.rules.ts';
import { insertPremiums, type InsuranceFacts, type NewPremium } from '../../ledger/plan/plan.repository.ts';
import { textOf } from '../xml-element.ts';
import { definePlanMessage, type PersonItem } from './plan-message.ts';
import { findItemInsurances, premiumPayingInsuranceOfItem, readInsuranceItem } from './insurance-item.ts';

/**
 * PremiumAdjustment: the employer or administrator changes the monthly premium the
 * employer pays into an insurance from an effective date (a new salary, a new
 * category rule, or an agreed amount). The new premium is a dated history row;
 * earlier premiums stay, and the premium on a date is the latest row on or before it.
 * A change while billing is stopped (parental leave) is accepted: it is the premium
 * billed once billing resumes.
 * Writes: one insurance_premiums row (SEK) per accepted item.
 * Rejections: INSURANCE_UNKNOWN (not this person's insurance under the agreement), INSURANCE_ENDED (it has ended),
 * EFFECTIVE_DATE_TOO_OLD, EFFECTIVE_DATE_BEFORE_START (before the insurance began),
 * INSURANCE_PAID_UP (paid-up on or before the effective date), PREMIUM_OUT_OF_BOUNDS
 * (outside the product's monthly premium bounds).
 */
export interface PremiumAdjustmentItem extends PersonItem {
  readonly insuranceNumber: string;
  readonly effectiveDate: string;
  /** SEK a month; the schema allows no other currency. */
  readonly monthlyPremium: string;
}

export const premiumAdjustment = definePlanMessage<PremiumAdjustmentItem, Map<string, InsuranceFacts>, NewPremium>({
  name: 'PremiumAdjustment',
  readItem: (item): PremiumAdjustmentItem => ({
    ...readInsuranceItem(item),
    effectiveDate: textOf(item, 'EffectiveDate'),
    monthlyPremium: textOf(item, 'MonthlyPremium'),
  }),
  loadFacts: (context, items) => findItemInsurances(context, items),
  decide(context, insurances, item) {
    const found = premiumPayingInsuranceOfItem(context, insurances, item, { date: item.effectiveDate, checkedAgainstStart: true });
    if ('reject' in found) return found;
    const { insurance } = found;
    const rejection = namingInsurance(checkPremiumBounds(item.monthlyPremium, insurance, insurance.productCode), insurance.insuranceNumber);
    if (rejection) return { reject: rejection };
    insurance.monthlyPremium = item.monthlyPremium; // a later item of this document sees the new premium
    return { accept: { insuranceNumber: insurance.insuranceNumber, effectiveDate: item.effectiveDate, monthlyAmount: item.monthlyPremium, currency: 'SEK' } };
  },
  write: (context, premiums) => insertPremiums(context.tx, context.messageId, premiums),
});
