import { checkCategoryOn, type AgreementCategory } from '../../core/employment-change.rules.ts';
import { findEmployments, type EmploymentFacts } from '../../ledger/plan/plan.repository.ts';
import { findAgreementCategories } from '../../ledger/plan/add-categories.repository.ts';
import { insertEmploymentHistory, type NewEmploymentValue } from '../../ledger/plan/employment-history.repository.ts';
import { textOf } from '../xml-element.ts';
import { employmentOfItem } from './employment-item.ts';
import { definePlanMessage, type PersonItem } from './plan-message.ts';

/**
 * ChangeCategory: the employer moves an employee to another category (benefit group)
 * of the agreement from an effective date, which changes the premium rule the
 * employee's pension premium is computed by. The category is a dated history row on
 * the employment that covers the effective date; earlier categories stay.
 * Writes: one employment_categories row per accepted item.
 * Rejections: EMPLOYMENT_UNKNOWN, EMPLOYMENT_ALREADY_ENDED (ended before the date),
 * EFFECTIVE_DATE_TOO_OLD, EFFECTIVE_DATE_BEFORE_START (before the employment began),
 * CATEGORY_UNKNOWN (not defined on the agreement, or not yet valid on the date).
 */
export interface ChangeCategoryItem extends PersonItem {
  readonly effectiveDate: string;
  readonly categoryCode: string;
}

interface ChangeCategoryFacts {
  readonly employments: Map<string, EmploymentFacts[]>;
  readonly categories: Map<string, AgreementCategory>;
}

export const changeCategory = definePlanMessage<ChangeCategoryItem, ChangeCategoryFacts, NewEmploymentValue>({
  name: 'ChangeCategory',
  readItem: (item): ChangeCategoryItem => ({
    itemId: textOf(item, 'ItemId'),
    personalIdentityNumber: textOf(item, 'PersonalIdentityNumber'),
    effectiveDate: textOf(item, 'EffectiveDate'),
    categoryCode: textOf(item, 'CategoryCode'),
  }),
  loadFacts: async (context, items) => {
    const { agreementNumber } = context.agreement;
    const employments = await findEmployments(context.tx, agreementNumber, items.map((item) => item.personalIdentityNumber));
    const categories = await findAgreementCategories(context.tx, agreementNumber);
    return { employments, categories };
  },
  decide(context, facts, item) {
    const { agreementNumber } = context.agreement;
    const found = employmentOfItem(context, facts.employments, item);
    if ('reject' in found) return found;
    const rejection = checkCategoryOn(item.categoryCode, item.effectiveDate, facts.categories, agreementNumber);
    if (rejection) return { reject: rejection };
    // Nothing later items depend on changes: a category change never ends an employment or a category.
    return { accept: { employmentId: found.employment.id, value: item.categoryCode, effectiveDate: item.effectiveDate } };
  },
  write: (context, changes) => insertEmploymentHistory(context.tx, context.messageId, 'category', changes),
});
