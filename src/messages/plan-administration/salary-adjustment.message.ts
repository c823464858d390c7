import { checkEffectiveDate } from '../../core/plan-rules.ts';
import { findEmployments, insertSalary } from '../../ledger/plan.repository.ts';
import { childOf, textOf } from '../xml-element.ts';
import { definePlanMessage, type PlanItem } from './plan-message.ts';

/**
 * SalaryAdjustment: the employer reports an employee's new annual salary from an
 * effective date (a company's whole salary file is one document). The salary is a
 * dated history row on the employment that covers the effective date.
 * Rejections: EMPLOYMENT_UNKNOWN, EMPLOYMENT_ALREADY_ENDED (ended before the date),
 * EFFECTIVE_DATE_TOO_OLD, EFFECTIVE_DATE_BEFORE_START (before the employment began).
 */
export interface SalaryAdjustmentItem extends PlanItem {
  readonly effectiveDate: string;
  readonly annualSalary: string;
  readonly currency: string;
}

export const salaryAdjustment = definePlanMessage<SalaryAdjustmentItem>({
  name: 'SalaryAdjustment',
  readItem: (item) => ({
    itemId: textOf(item, 'ItemId'),
    personalIdentityNumber: textOf(item, 'PersonalIdentityNumber'),
    effectiveDate: textOf(item, 'EffectiveDate'),
    annualSalary: textOf(item, 'AnnualSalary'),
    currency: childOf(item, 'AnnualSalary')?.attrs.currency ?? 'SEK',
  }),
  async applyItem(context, item) {
    const { agreementNumber } = context.agreement;
    const employments = await findEmployments(context.tx, agreementNumber, item.personalIdentityNumber);
    if (employments.length === 0) {
      return { code: 'EMPLOYMENT_UNKNOWN', text: `${item.personalIdentityNumber} has no employment under agreement ${agreementNumber}.` };
    }
    const employment = employments.find((candidate) => candidate.startDate <= item.effectiveDate) ?? employments.at(-1)!;
    if (employment.endDate !== null && employment.endDate < item.effectiveDate) {
      return {
        code: 'EMPLOYMENT_ALREADY_ENDED',
        text: `The employment of ${item.personalIdentityNumber} under agreement ${agreementNumber} ended on ${employment.endDate}, before ${item.effectiveDate}.`,
      };
    }
    const rejection = checkEffectiveDate(item.effectiveDate, {
      today: context.today,
      maxBackdateDays: context.rules.maxBackdateDays,
      startDate: employment.startDate,
      startWhat: 'start of employment',
    });
    if (rejection) return rejection;
    await insertSalary(context.tx, { ...item, employmentId: employment.id, messageId: context.messageId });
    return undefined;
  },
});
