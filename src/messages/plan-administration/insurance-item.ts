import { checkEffectiveDate, checkPremiumPaying, type RuleRejection } from '../../core/plan-rules.ts';
import { findInsurances, type InsuranceFacts } from '../../ledger/plan/plan.repository.ts';
import { textOf, type XmlElement } from '../xml-element.ts';
import type { PersonItem, PlanItemContext } from './plan-message.ts';

/** An item about one insurance of one person. */
export interface InsuranceItem extends PersonItem {
  readonly insuranceNumber: string;
}

/** The fields every insurance item starts with: ItemId, PersonalIdentityNumber, InsuranceNumber. */
export function readInsuranceItem(item: XmlElement): InsuranceItem {
  return {
    itemId: textOf(item, 'ItemId'),
    personalIdentityNumber: textOf(item, 'PersonalIdentityNumber'),
    insuranceNumber: textOf(item, 'InsuranceNumber'),
  };
}

/** The insurances the items name, under the document's agreement, by insurance number (one query). */
export function findItemInsurances(context: PlanItemContext, items: readonly InsuranceItem[]): Promise<Map<string, InsuranceFacts>> {
  return findInsurances(context.tx, context.agreement.agreementNumber, items.map((item) => item.insuranceNumber));
}

/**
 * The insurance an item is about (ChangeFee, PremiumAdjustment, PremiumEnded,
 * ExtraPremium, BillingStop/Start, PredefinedDistributionPlan, Reallocate): it must be
 * the named person's insurance under the document's agreement, and it must not have
 * ended (checkNotEnded). Another person's insurance is answered exactly like an unknown
 * one, so a sender learns nothing about insurances that are not theirs to change.
 */
export function insuranceOfItem(
  context: PlanItemContext,
  insurances: ReadonlyMap<string, InsuranceFacts>,
  item: { readonly insuranceNumber: string; readonly personalIdentityNumber: string },
): { readonly insurance: InsuranceFacts } | { readonly reject: RuleRejection } {
  const insurance = insurances.get(item.insuranceNumber);
  if (insurance && insurance.insuredPin === item.personalIdentityNumber) {
    const ended = checkNotEnded(insurance);
    return ended ? { reject: ended } : { insurance };
  }
  return {
    reject: {
      code: 'INSURANCE_UNKNOWN',
      text:
        `Insurance ${item.insuranceNumber} of ${item.personalIdentityNumber} is not known under agreement ${context.agreement.agreementNumber}; ` +
        'check the insurance number and the personal identity number.',
    },
  };
}

/**
 * The insurance of an item that changes its premium, or the billing of it, from a date
 * (PremiumAdjustment, BillingStop, BillingStart): insuranceOfItem, then the date
 * (checkInsuranceDate, named `dateName`; against the insurance's start only when
 * `checkedAgainstStart`), then the insurance premium-paying on that date
 * (checkPremiumPaying): a paid-up insurance takes no premium and is billed no more.
 */
export function premiumPayingInsuranceOfItem(
  context: PlanItemContext,
  insurances: ReadonlyMap<string, InsuranceFacts>,
  item: { readonly insuranceNumber: string; readonly personalIdentityNumber: string },
  on: { readonly date: string; readonly dateName?: string; readonly checkedAgainstStart: boolean },
): { readonly insurance: InsuranceFacts } | { readonly reject: RuleRejection } {
  const found = insuranceOfItem(context, insurances, item);
  if ('reject' in found) return found;
  const { insurance } = found;
  const rejection =
    checkInsuranceDate(context, on.checkedAgainstStart ? insurance : undefined, on.date, on.dateName) ??
    checkPremiumPaying(insurance, on.date);
  return rejection ? { reject: rejection } : found;
}

/**
 * An item's date on an insurance: within the back-dating window and, when the
 * insurance is given, not before it began. `dateName` is the item's field as the
 * sender knows it ("Due date", "Stop date"); "Effective date" by default.
 */
export function checkInsuranceDate(
  context: PlanItemContext,
  insurance: InsuranceFacts | undefined,
  date: string,
  dateName?: string,
): RuleRejection | undefined {
  return checkEffectiveDate(date, {
    today: context.today,
    maxBackdateDays: context.rules.maxBackdateDays,
    ...(insurance ? { startDate: insurance.startDate, startWhat: `start of insurance ${insurance.insuranceNumber}` } : {}),
    ...(dateName ? { dateName } : {}),
  });
}

/**
 * An insurance that has ended (moved to another insurer, surrendered, the insured's
 * death, paid out: insurances.end_date) takes no more plan changes, whatever the item's
 * date: the insurer no longer holds it or has paid it out, and what it was charged
 * while in force is settled by the debit runs (a correction is the insurer's, as for an
 * end recorded after a run). Every item about an insurance passes here: insuranceOfItem
 * asks it, and Transfer, which finds its insurance itself.
 */
export function checkNotEnded(insurance: InsuranceFacts): RuleRejection | undefined {
  if (!insurance.end) return undefined;
  return {
    code: 'INSURANCE_ENDED',
    text: `Insurance ${insurance.insuranceNumber} ended on ${insurance.end.lastDay} (${insurance.end.cause}), its last day in force; it takes no more changes.`,
  };
}
