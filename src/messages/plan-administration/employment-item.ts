import { employmentForChange } from '../../core/employment-change.rules.ts';
import type { RuleRejection } from '../../core/plan-rules.ts';
import type { EmploymentFacts } from '../../ledger/plan/plan.repository.ts';
import type { PlanItemContext } from './plan-message.ts';

/**
 * The employment a dated change item (ChangeCategory, ChangeCostCenter) is about: the
 * named person's employment under the document's agreement that covers the effective
 * date, within the back-dating window (rules in core/employment-change.rules.ts).
 */
export function employmentOfItem(
  context: PlanItemContext,
  employments: ReadonlyMap<string, EmploymentFacts[]>,
  item: { readonly personalIdentityNumber: string; readonly effectiveDate: string },
): { readonly employment: EmploymentFacts } | { readonly reject: RuleRejection } {
  return employmentForChange(employments.get(item.personalIdentityNumber) ?? [], {
    agreementNumber: context.agreement.agreementNumber,
    personalIdentityNumber: item.personalIdentityNumber,
    effectiveDate: item.effectiveDate,
    today: context.today,
    maxBackdateDays: context.rules.maxBackdateDays,
  });
}
