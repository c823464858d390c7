import { definePlanMessage } from './plan-message.ts';
import { insuranceAllocationSpec } from './insurance-allocation.ts';

/**
 * Reallocate: the employer or administrator changes the funds a fund insurance's
 * existing capital is invested in (omplacering), from a trade date. The reallocation
 * is a dated history row; the custody account's holdings are to follow it. A paid-up
 * insurance may be reallocated: it keeps its capital though it takes no premiums.
 * Future premiums follow the distribution plan (PredefinedDistributionPlan), not this.
 *
 * The response is ReallocateResponse: the specification names none, so the gateway
 * follows the <Type>Response pattern of every other document (also documented in
 * schemas/ReallocateResponse.xsd).
 *
 * Writes: fund_allocations (purpose 'Reallocation') and its fund_allocation_lines.
 * Rejections: INSURANCE_UNKNOWN (not this person's insurance under the agreement), INSURANCE_ENDED (it has ended),
 * EFFECTIVE_DATE_TOO_OLD, EFFECTIVE_DATE_BEFORE_START (trade date before the insurance
 * began), ALLOCATION_DUPLICATE_FUND, FUND_NOT_SELECTABLE (not a fund of the
 * insurance's product), ALLOCATION_NOT_100.
 */
export const reallocate = definePlanMessage({
  name: 'Reallocate',
  responseName: 'ReallocateResponse',
  ...insuranceAllocationSpec('Reallocation'),
});
