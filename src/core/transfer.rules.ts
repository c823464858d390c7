import type { IsoDate } from './calendar-date.ts';
import type { RuleRejection } from './plan-rules.ts';

/**
 * Rules of moving an insurance within the insurer (Transfer) that need no I/O: the
 * target product must be of the insurance's own kind — the tax rules of occupational
 * pension, private pension and capital insurance differ, so a move across kinds would
 * be a surrender and a new purchase — the move must change something, and the funds
 * that future premiums go to must be offered by the target product.
 */
export type ProductKind = 'P' | 'T' | 'K';

const KIND_NAMES: Readonly<Record<ProductKind, string>> = { P: 'a private pension', T: 'an occupational pension', K: 'a capital insurance' };

export interface ProductRef {
  readonly code: string;
  readonly kind: ProductKind;
}

/** Where an insurance is held: its product and custody account. */
export interface Holding {
  readonly productCode: string;
  readonly custodyAccount: string | null;
}

/** A distribution plan: from which day future premiums go to which funds. */
export interface DistributionPlan {
  readonly effectiveDate: IsoDate;
  readonly isins: readonly string[];
}

/** An insurance may only move to a product of its own kind (P, T or K). */
export function checkProductKind(insuranceNumber: string, from: ProductRef, to: ProductRef): RuleRejection | undefined {
  if (from.kind === to.kind) return undefined;
  return {
    code: 'PRODUCT_KIND_MISMATCH',
    text: `Insurance ${insuranceNumber} is ${KIND_NAMES[from.kind]} (kind ${from.kind}, product ${from.code}) but product ${to.code} is ${KIND_NAMES[to.kind]} (kind ${to.kind}); choose a product of kind ${from.kind}.`,
  };
}

/** A transfer must change the product, the custody account or both. */
export function checkSomethingToMove(insuranceNumber: string, from: Holding, to: Holding): RuleRejection | undefined {
  if (from.productCode !== to.productCode || from.custodyAccount !== to.custodyAccount) return undefined;
  const account = from.custodyAccount === null ? 'no custody account' : `custody account ${from.custodyAccount}`;
  return {
    code: 'TRANSFER_NOTHING_TO_MOVE',
    text: `Insurance ${insuranceNumber} already has product ${from.productCode} and ${account}; name another product or custody account.`,
  };
}

/**
 * The plans that direct premiums from `date` on: the one in force that day (the
 * latest on or before it) and every later one. `plans` is in effective-date order;
 * of plans with the same date the last recorded counts.
 */
export function plansInForceFrom(plans: readonly DistributionPlan[], date: IsoDate): DistributionPlan[] {
  const current = plans.filter((plan, index) => plans[index + 1]?.effectiveDate !== plan.effectiveDate);
  let inForce = 0;
  current.forEach((plan, index) => {
    if (plan.effectiveDate <= date) inForce = index;
  });
  return current.slice(inForce);
}

/** Every fund the insurance's distribution plan uses from `date` on must be selectable in the target product. */
export function checkPlanSelectable(
  insuranceNumber: string,
  plans: readonly DistributionPlan[],
  date: IsoDate,
  target: { readonly code: string; readonly funds: ReadonlySet<string> },
): RuleRejection | undefined {
  for (const plan of plansInForceFrom(plans, date)) {
    const isin = plan.isins.find((candidate) => !target.funds.has(candidate));
    if (isin !== undefined) {
      return {
        code: 'FUND_NOT_SELECTABLE',
        text: `Fund ${isin} of the distribution plan of insurance ${insuranceNumber} from ${plan.effectiveDate} cannot be chosen in product ${target.code}; change the distribution plan to funds of ${target.code} before the transfer.`,
      };
    }
  }
  return undefined;
}
