import type { AgreementCategory } from '../../core/employment-change.rules.ts';
import { checkEffectiveDate, type RuleRejection } from '../../core/plan-rules.ts';
import { findAgreementCategories, insertAgreementCategories, type NewCategory } from '../../ledger/plan/add-categories.repository.ts';
import { childOf, optionalTextOf, textOf } from '../xml-element.ts';
import { definePlanMessage, type PlanItem, type PlanItemContext } from './plan-message.ts';

/**
 * AddCategories: the employer or administrator adds categories (benefit groups,
 * e.g. white-collar and blue-collar workers) to the agreement, each with the premium
 * rule its employees' pension premium is computed by: a percent of the monthly salary
 * (optionally a higher percent on salary above 7.5 income base amounts), or a fixed
 * monthly amount in SEK. From its ValidFrom a category can be given to employees with
 * ChangeCategory. The items are about the agreement itself, not a person.
 * Writes: one agreement_categories row per accepted item.
 * Rejections: CATEGORY_ALREADY_DEFINED (the agreement already has the code, or an
 * earlier item of the document adds it), EFFECTIVE_DATE_TOO_OLD (ValidFrom).
 */
export type PremiumRule =
  | { readonly kind: 'PercentOfSalary'; readonly percent: string; readonly percentAboveCap: string | null }
  | { readonly kind: 'FixedMonthly'; readonly amount: string };

export interface AddCategoriesItem extends PlanItem {
  readonly categoryCode: string;
  readonly name: string;
  readonly validFrom: string;
  readonly premium: PremiumRule;
}

interface AddCategoriesFacts {
  /** The agreement's categories; decide adds each accepted one, so a later item sees it. */
  readonly categories: Map<string, AgreementCategory>;
  /** The item that added each category of this document. */
  readonly addedBy: Map<string, string>;
}

export const addCategories = definePlanMessage<AddCategoriesItem, AddCategoriesFacts, NewCategory>({
  name: 'AddCategories',
  readItem: (item): AddCategoriesItem => ({
    itemId: textOf(item, 'ItemId'),
    categoryCode: textOf(item, 'CategoryCode'),
    name: textOf(item, 'Name'),
    validFrom: textOf(item, 'ValidFrom'),
    // The schema's choice: PremiumPercent (with an optional PremiumPercentAboveCap) or FixedMonthlyPremium.
    premium: childOf(item, 'PremiumPercent')
      ? { kind: 'PercentOfSalary', percent: textOf(item, 'PremiumPercent'), percentAboveCap: optionalTextOf(item, 'PremiumPercentAboveCap') ?? null }
      : { kind: 'FixedMonthly', amount: textOf(item, 'FixedMonthlyPremium') },
  }),
  loadFacts: async (context) => ({ categories: await findAgreementCategories(context.tx, context.agreement.agreementNumber), addedBy: new Map() }),
  decide(context, facts, item) {
    const rejection = checkNotDefined(context, facts, item) ?? checkValidFrom(context, item.validFrom);
    if (rejection) return { reject: rejection };
    facts.categories.set(item.categoryCode, { code: item.categoryCode, name: item.name, validFrom: item.validFrom });
    facts.addedBy.set(item.categoryCode, item.itemId);
    const { premium } = item;
    const category: NewCategory = {
      code: item.categoryCode,
      name: item.name,
      validFrom: item.validFrom,
      premiumPercent: premium.kind === 'PercentOfSalary' ? premium.percent : null,
      premiumPercentAboveCap: premium.kind === 'PercentOfSalary' ? premium.percentAboveCap : null,
      fixedMonthlyPremium: premium.kind === 'FixedMonthly' ? premium.amount : null,
    };
    return { accept: category };
  },
  write: (context, categories) => insertAgreementCategories(context.tx, context.agreement.agreementNumber, context.messageId, categories),
});

function checkNotDefined(context: PlanItemContext, facts: AddCategoriesFacts, item: AddCategoriesItem): RuleRejection | undefined {
  const existing = facts.categories.get(item.categoryCode);
  if (!existing) return undefined;
  const earlierItem = facts.addedBy.get(item.categoryCode);
  const where = earlierItem
    ? `is already added by item ${earlierItem} of this document`
    : `is already defined on agreement ${context.agreement.agreementNumber} (${existing.name}, valid from ${existing.validFrom})`;
  return { code: 'CATEGORY_ALREADY_DEFINED', text: `Category ${item.categoryCode} ${where}; choose another code.` };
}

function checkValidFrom(context: PlanItemContext, validFrom: string): RuleRejection | undefined {
  const rejection = checkEffectiveDate(validFrom, { today: context.today, maxBackdateDays: context.rules.maxBackdateDays });
  // The shared rule speaks of an "Effective date"; this document's date is called ValidFrom.
  return rejection && { ...rejection, text: rejection.text.replace(/^Effective date /, 'ValidFrom ') };
}
