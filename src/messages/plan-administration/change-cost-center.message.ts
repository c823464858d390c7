import { findAgreementCodes, findEmployments, type EmploymentFacts } from '../../ledger/plan/plan.repository.ts';
import { insertEmploymentHistory, type NewEmploymentValue } from '../../ledger/plan/employment-history.repository.ts';
import { textOf } from '../xml-element.ts';
import { employmentOfItem } from './employment-item.ts';
import { definePlanMessage, type PersonItem } from './plan-message.ts';

/**
 * ChangeCostCenter: the employer moves an employee to another cost center
 * (kostnadsställe) from an effective date, so that the employee's premiums are
 * invoiced and reported on that cost center. The cost center is a dated history row on
 * the employment that covers the effective date; earlier cost centers stay.
 * Writes: one employment_cost_centers row per accepted item.
 * Rejections: EMPLOYMENT_UNKNOWN, EMPLOYMENT_ALREADY_ENDED (ended before the date),
 * EFFECTIVE_DATE_TOO_OLD, EFFECTIVE_DATE_BEFORE_START (before the employment began),
 * COST_CENTER_UNKNOWN (not defined on the agreement).
 */
export interface ChangeCostCenterItem extends PersonItem {
  readonly effectiveDate: string;
  readonly costCenter: string;
}

interface ChangeCostCenterFacts {
  readonly employments: Map<string, EmploymentFacts[]>;
  readonly costCenters: ReadonlySet<string>;
}

export const changeCostCenter = definePlanMessage<ChangeCostCenterItem, ChangeCostCenterFacts, NewEmploymentValue>({
  name: 'ChangeCostCenter',
  readItem: (item): ChangeCostCenterItem => ({
    itemId: textOf(item, 'ItemId'),
    personalIdentityNumber: textOf(item, 'PersonalIdentityNumber'),
    effectiveDate: textOf(item, 'EffectiveDate'),
    costCenter: textOf(item, 'CostCenter'),
  }),
  loadFacts: async (context, items) => {
    const { agreementNumber } = context.agreement;
    const employments = await findEmployments(context.tx, agreementNumber, items.map((item) => item.personalIdentityNumber));
    const { costCenters } = await findAgreementCodes(context.tx, agreementNumber);
    return { employments, costCenters };
  },
  decide(context, facts, item) {
    const { agreementNumber } = context.agreement;
    const found = employmentOfItem(context, facts.employments, item);
    if ('reject' in found) return found;
    if (!facts.costCenters.has(item.costCenter)) {
      const known = [...facts.costCenters].sort().join(', ');
      return {
        reject: {
          code: 'COST_CENTER_UNKNOWN',
          text: `Cost center ${item.costCenter} is not defined on agreement ${agreementNumber}${known ? ` (defined: ${known})` : ''}.`,
        },
      };
    }
    // Nothing later items depend on changes: a cost-center change never ends an employment.
    return { accept: { employmentId: found.employment.id, value: item.costCenter, effectiveDate: item.effectiveDate } };
  },
  write: (context, changes) => insertEmploymentHistory(context.tx, context.messageId, 'costCenter', changes),
});
