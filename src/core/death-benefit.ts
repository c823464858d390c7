import { decimal, toOre } from './charges/money.ts';
import type { ProductKind } from './charges/charges.ts';

/**
 * The death benefit of repayment protection (DOMAIN.md): when the insured of a capital
 * insurance dies before payout starts, 101 % of the custody value is paid out. The
 * custodian can only pay what the account holds, so the benefit is two payments: the
 * custody value, sold and paid out in full by the custodian, and 1 % of it, which the
 * insurer pays from its own funds. Pure: the ledger gives the facts and the value.
 */

/** Whether a death pays a death benefit, and when not, why nothing more is ordered. */
export type DeathBenefitDecision = 'due' | 'not-capital-insurance' | 'no-repayment-protection' | 'in-payout';

export function decideDeathBenefit(facts: { kind: ProductKind; repaymentProtection: boolean; inPayout: boolean }): DeathBenefitDecision {
  if (facts.kind !== 'K') return 'not-capital-insurance';
  if (!facts.repaymentProtection) return 'no-repayment-protection';
  if (facts.inPayout) return 'in-payout';
  return 'due';
}

/** The insurer's 1 % of a custody value, half up to öre; a negative value counts as nothing held. */
export function insurerShare(custodyValue: string): string {
  if (custodyValue.startsWith('-')) return '0.00';
  return toOre(decimal(custodyValue, 'custody value').dividedBy(100));
}
