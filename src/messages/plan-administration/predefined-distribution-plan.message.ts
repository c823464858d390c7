import { definePlanMessage } from './plan-message.ts';
import { insuranceAllocationSpec } from './insurance-allocation.ts';

/**
 * PredefinedDistributionPlan: the employer or administrator registers an insurance's
 * distribution plan (fördelningsplan) — how its future premiums are spread over funds
 * — from an effective date. The plan is a dated history row: earlier plans stay, and
 * the plan in force on a date is the latest one effective on or before it.
 * Writes: fund_allocations (purpose 'DistributionPlan') and its fund_allocation_lines.
 * Rejections: INSURANCE_UNKNOWN (not this person's insurance under the agreement), INSURANCE_ENDED (it has ended),
 * EFFECTIVE_DATE_TOO_OLD, EFFECTIVE_DATE_BEFORE_START (before the insurance began),
 * INSURANCE_PAID_UP (paid-up on the effective date: a paid-up insurance takes no
 * premiums to invest), ALLOCATION_DUPLICATE_FUND, FUND_NOT_SELECTABLE (not a fund of
 * the insurance's product), ALLOCATION_NOT_100.
 */
export const predefinedDistributionPlan = definePlanMessage({
  name: 'PredefinedDistributionPlan',
  ...insuranceAllocationSpec('DistributionPlan'),
});
