import type { IsoDate } from './calendar-date.ts';
import { checkEffectiveDate, type RuleRejection } from './plan-rules.ts';

/**
 * Rules of the dated changes an employer reports about an employee's employment
 * (ChangeCategory, ChangeCostCenter): which employment the change belongs to, and
 * whether the category it names exists on the agreement on the effective date. Pure:
 * the handlers load the facts and ask these functions.
 */
export interface DatedEmployment {
  readonly id: string;
  readonly startDate: IsoDate;
  readonly endDate: IsoDate | null;
}

export interface EmploymentChange {
  readonly agreementNumber: string;
  readonly personalIdentityNumber: string;
  readonly effectiveDate: IsoDate;
  readonly today: IsoDate;
  readonly maxBackdateDays: number;
}

/**
 * The employment a change from `effectiveDate` belongs to: the latest one that began
 * on or before the date (`employments` is latest start first, as findEmployments gives
 * them). When every employment began later, the earliest one is named so the sender
 * learns when it began. The change is refused when the person has no employment under
 * the agreement, when that employment ended before the date, or when the date is
 * outside the back-dating window or before the employment began.
 */
export function employmentForChange<E extends DatedEmployment>(employments: readonly E[], change: EmploymentChange): { employment: E } | { reject: RuleRejection } {
  const { agreementNumber, personalIdentityNumber, effectiveDate } = change;
  const employment = employments.find((candidate) => candidate.startDate <= effectiveDate) ?? employments.at(-1);
  if (!employment) {
    return { reject: { code: 'EMPLOYMENT_UNKNOWN', text: `${personalIdentityNumber} has no employment under agreement ${agreementNumber}.` } };
  }
  if (employment.endDate !== null && employment.endDate < effectiveDate) {
    return {
      reject: {
        code: 'EMPLOYMENT_ALREADY_ENDED',
        text: `The employment of ${personalIdentityNumber} under agreement ${agreementNumber} ended on ${employment.endDate}, before the effective date ${effectiveDate}.`,
      },
    };
  }
  const rejection = checkEffectiveDate(effectiveDate, {
    today: change.today,
    maxBackdateDays: change.maxBackdateDays,
    startDate: employment.startDate,
    startWhat: `start of the employment of ${personalIdentityNumber}`,
  });
  return rejection ? { reject: rejection } : { employment };
}

export interface AgreementCategory {
  readonly code: string;
  readonly name: string;
  readonly validFrom: IsoDate;
}

/**
 * An employee can be placed in a category (benefit group) only when the agreement
 * defines it, and only from the day it is valid: before then it has no premium rule.
 */
export function checkCategoryOn(
  categoryCode: string,
  effectiveDate: IsoDate,
  categories: ReadonlyMap<string, AgreementCategory>,
  agreementNumber: string,
): RuleRejection | undefined {
  const category = categories.get(categoryCode);
  if (!category) {
    const known = [...categories.keys()].sort().join(', ');
    return {
      code: 'CATEGORY_UNKNOWN',
      text: `Category ${categoryCode} is not defined on agreement ${agreementNumber}${known ? ` (defined: ${known})` : ''}; add it with AddCategories first.`,
    };
  }
  if (effectiveDate < category.validFrom) {
    return {
      code: 'CATEGORY_UNKNOWN',
      text: `Category ${categoryCode} (${category.name}) of agreement ${agreementNumber} is valid from ${category.validFrom}, after the effective date ${effectiveDate}.`,
    };
  }
  return undefined;
}
