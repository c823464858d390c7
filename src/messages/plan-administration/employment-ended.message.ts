import { addDays } from '../../core/calendar-date.ts';
import { checkEffectiveDate } from '../../core/plan-rules.ts';
import { endEmployment, findEmployments, makeInsurancesPaidUp } from '../../ledger/plan.repository.ts';
import { optionalTextOf, textOf } from '../xml-element.ts';
import { definePlanMessage, type PlanItem } from './plan-message.ts';

/**
 * EmploymentEnded: the employer reports that an employment ended. The employment gets
 * its end date, and the person's premium-paying insurances under the agreement become
 * paid-up (fribrev) from the day after. Insurances already paid-up are left as they are.
 * Rejections: EMPLOYMENT_UNKNOWN, EMPLOYMENT_ALREADY_ENDED, EMPLOYMENT_END_BEFORE_START,
 * EFFECTIVE_DATE_TOO_OLD.
 */
export interface EmploymentEndedItem extends PlanItem {
  readonly endDate: string;
  readonly reason: string | null;
}

export const employmentEnded = definePlanMessage<EmploymentEndedItem>({
  name: 'EmploymentEnded',
  readItem: (item) => ({
    itemId: textOf(item, 'ItemId'),
    personalIdentityNumber: textOf(item, 'PersonalIdentityNumber'),
    endDate: textOf(item, 'EndDate'),
    reason: optionalTextOf(item, 'Reason') ?? null,
  }),
  async applyItem(context, item) {
    const { agreementNumber } = context.agreement;
    const employments = await findEmployments(context.tx, agreementNumber, item.personalIdentityNumber);
    const open = employments.find((employment) => employment.endDate === null);
    if (!open) {
      const ended = employments[0];
      return ended
        ? { code: 'EMPLOYMENT_ALREADY_ENDED', text: `The employment of ${item.personalIdentityNumber} under agreement ${agreementNumber} already ended on ${ended.endDate}.` }
        : { code: 'EMPLOYMENT_UNKNOWN', text: `${item.personalIdentityNumber} has no employment under agreement ${agreementNumber}.` };
    }
    if (item.endDate < open.startDate) {
      return { code: 'EMPLOYMENT_END_BEFORE_START', text: `End date ${item.endDate} is before the employment began on ${open.startDate}.` };
    }
    const rejection = checkEffectiveDate(item.endDate, { today: context.today, maxBackdateDays: context.rules.maxBackdateDays });
    if (rejection) return rejection;
    await endEmployment(context.tx, { employmentId: open.id, endDate: item.endDate, reason: item.reason, messageId: context.messageId });
    await makeInsurancesPaidUp(context.tx, {
      agreementNumber,
      personalIdentityNumber: item.personalIdentityNumber,
      paidUpFrom: addDays(item.endDate, 1),
      messageId: context.messageId,
    });
    return undefined;
  },
});
