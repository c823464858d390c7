import { addDays } from '../../core/calendar-date.ts';
import { checkEffectiveDate } from '../../core/plan-rules.ts';
import { endEmployments, findEmployments, type EmploymentFacts, type EndedEmployment } from '../../ledger/plan/plan.repository.ts';
import { optionalTextOf, textOf } from '../xml-element.ts';
import { definePlanMessage, type PersonItem } from './plan-message.ts';

/**
 * EmploymentEnded: the employer reports that an employment ended. The employment gets
 * its end date, and the person's premium-paying insurances under the agreement become
 * paid-up (fribrev) from the day after. Insurances already paid-up are left as they are.
 * Rejections: EMPLOYMENT_UNKNOWN, EMPLOYMENT_ALREADY_ENDED (also for a second item
 * ending the same employment), EMPLOYMENT_END_BEFORE_START, EFFECTIVE_DATE_TOO_OLD.
 */
export interface EmploymentEndedItem extends PersonItem {
  readonly endDate: string;
  readonly reason: string | null;
}

export const employmentEnded = definePlanMessage<EmploymentEndedItem, Map<string, EmploymentFacts[]>, EndedEmployment>({
  name: 'EmploymentEnded',
  readItem: (item): EmploymentEndedItem => ({
    itemId: textOf(item, 'ItemId'),
    personalIdentityNumber: textOf(item, 'PersonalIdentityNumber'),
    endDate: textOf(item, 'EndDate'),
    reason: optionalTextOf(item, 'Reason') ?? null,
  }),
  loadFacts: (context, items) => findEmployments(context.tx, context.agreement.agreementNumber, items.map((item) => item.personalIdentityNumber)),
  decide(context, employmentsByPerson, item) {
    const { agreementNumber } = context.agreement;
    const employments = employmentsByPerson.get(item.personalIdentityNumber) ?? [];
    const open = employments.find((employment) => employment.endDate === null);
    if (!open) {
      const ended = employments[0];
      return {
        reject: ended
          ? { code: 'EMPLOYMENT_ALREADY_ENDED', text: `The employment of ${item.personalIdentityNumber} under agreement ${agreementNumber} already ended on ${ended.endDate}.` }
          : { code: 'EMPLOYMENT_UNKNOWN', text: `${item.personalIdentityNumber} has no employment under agreement ${agreementNumber}.` },
      };
    }
    if (item.endDate < open.startDate) {
      return { reject: { code: 'EMPLOYMENT_END_BEFORE_START', text: `End date ${item.endDate} is before the employment began on ${open.startDate}.` } };
    }
    const rejection = checkEffectiveDate(item.endDate, { today: context.today, maxBackdateDays: context.rules.maxBackdateDays });
    if (rejection) return { reject: rejection };
    open.endDate = item.endDate; // a later item of this document for the same person sees it ended
    const ended: EndedEmployment = {
      employmentId: open.id, personalIdentityNumber: item.personalIdentityNumber, endDate: item.endDate, reason: item.reason, paidUpFrom: addDays(item.endDate, 1),
    };
    return { accept: ended };
  },
  write: (context, ended) => endEmployments(context.tx, context.agreement.agreementNumber, context.messageId, ended),
});
