import { checkEffectiveDate } from '../../core/plan-rules.ts';
import { findEmployments, insertSalaries, type EmploymentFacts, type NewSalary } from '../../ledger/plan/plan.repository.ts';
import { childOf, textOf } from '../xml-element.ts';
import { definePlanMessage, type PersonItem } from './plan-message.ts';

/**
 * SalaryAdjustment: the employer reports an employee's new annual salary from an
 * effective date (a company's whole salary file is one document). The salary is a
 * dated history row on the employment that covers the effective date.
 * Rejections: EMPLOYMENT_UNKNOWN, EMPLOYMENT_ALREADY_ENDED (ended before the date),
 * EFFECTIVE_DATE_TOO_OLD, EFFECTIVE_DATE_BEFORE_START (before the employment began).
 */
export interface SalaryAdjustmentItem extends PersonItem {
  readonly effectiveDate: string;
  readonly annualSalary: string;
  readonly currency: string;
}

export const salaryAdjustment = definePlanMessage<SalaryAdjustmentItem, Map<string, EmploymentFacts[]>, NewSalary>({
  name: 'SalaryAdjustment',
  readItem: (item): SalaryAdjustmentItem => ({
    itemId: textOf(item, 'ItemId'),
    personalIdentityNumber: textOf(item, 'PersonalIdentityNumber'),
    effectiveDate: textOf(item, 'EffectiveDate'),
    annualSalary: textOf(item, 'AnnualSalary'),
    currency: childOf(item, 'AnnualSalary')?.attrs.currency ?? 'SEK',
  }),
  loadFacts: (context, items) => findEmployments(context.tx, context.agreement.agreementNumber, items.map((item) => item.personalIdentityNumber)),
  decide(context, employmentsByPerson, item) {
    const { agreementNumber } = context.agreement;
    const employments = employmentsByPerson.get(item.personalIdentityNumber) ?? [];
    const employment = employments.find((candidate) => candidate.startDate <= item.effectiveDate) ?? employments.at(-1);
    if (!employment) {
      return { reject: { code: 'EMPLOYMENT_UNKNOWN', text: `${item.personalIdentityNumber} has no employment under agreement ${agreementNumber}.` } };
    }
    if (employment.endDate !== null && employment.endDate < item.effectiveDate) {
      return {
        reject: {
          code: 'EMPLOYMENT_ALREADY_ENDED',
          text: `The employment of ${item.personalIdentityNumber} under agreement ${agreementNumber} ended on ${employment.endDate}, before ${item.effectiveDate}.`,
        },
      };
    }
    const rejection = checkEffectiveDate(item.effectiveDate, {
      today: context.today,
      maxBackdateDays: context.rules.maxBackdateDays,
      startDate: employment.startDate,
      startWhat: 'start of employment',
    });
    if (rejection) return { reject: rejection };
    const salary: NewSalary = { employmentId: employment.id, effectiveDate: item.effectiveDate, annualSalary: item.annualSalary, currency: item.currency };
    return { accept: salary };
  },
  write: (context, salaries) => insertSalaries(context.tx, context.messageId, salaries),
});
