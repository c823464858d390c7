import { checkAllocation, type AllocationLine, type RuleRejection } from '../../core/plan-rules.ts';
import { findSelectableFunds, insertAllocations, type InsuranceFacts, type NewAllocation } from '../../ledger/plan/plan.repository.ts';
import { childOf, childrenOf, textOf, type XmlElement } from '../xml-element.ts';
import { checkInsuranceDate, findItemInsurances, insuranceOfItem, readInsuranceItem } from './insurance-item.ts';
import type { Decision, PersonItem, PlanItemContext, PlanMessageSpec } from './plan-message.ts';

/**
 * What PredefinedDistributionPlan and Reallocate share: both give an existing
 * insurance a new fund allocation from a date — the first for the premiums still to
 * come, the second for the capital already there — and differ only in the purpose
 * they record and in that a paid-up insurance, which takes no premiums, can have its
 * capital reallocated but no new plan for premiums it will never receive.
 */
export interface InsuranceAllocationItem extends PersonItem {
  readonly insuranceNumber: string;
  readonly effectiveDate: string;
  readonly allocation: readonly AllocationLine[];
}

export interface InsuranceAllocationFacts {
  readonly insurances: Map<string, InsuranceFacts>;
  /** Selectable ISINs by product code, for the products of the insurances found. */
  readonly funds: Map<string, Set<string>>;
}

type AllocationSpec = Omit<PlanMessageSpec<InsuranceAllocationItem, InsuranceAllocationFacts, NewAllocation>, 'name' | 'responseName'>;

/** Reads a FundAllocation (Types.xsd) child named `Allocation`; the schema guarantees it is there. */
export function readAllocation(item: XmlElement): AllocationLine[] {
  const allocation = childOf(item, 'Allocation');
  if (!allocation) throw new Error(`<${item.name}> has no <Allocation> (the schema should have required it)`);
  return childrenOf(allocation, 'Fund').map((fund) => ({ isin: textOf(fund, 'Isin'), percent: textOf(fund, 'Percent') }));
}

/** The readItem/loadFacts/decide/write of an allocation document recording `purpose`. */
export function insuranceAllocationSpec(purpose: NewAllocation['purpose']): AllocationSpec {
  return {
    readItem: (item): InsuranceAllocationItem => ({
      ...readInsuranceItem(item),
      effectiveDate: textOf(item, 'EffectiveDate'),
      allocation: readAllocation(item),
    }),
    loadFacts: async (context, items) => {
      const insurances = await findItemInsurances(context, items);
      const funds = await findSelectableFunds(context.tx, [...insurances.values()].map((insurance) => insurance.productCode));
      return { insurances, funds };
    },
    decide: (context, facts, item) => decideAllocation(purpose, context, facts, item),
    write: (context, allocations) => insertAllocations(context.tx, context.messageId, allocations),
  };
}

function decideAllocation(
  purpose: NewAllocation['purpose'],
  context: PlanItemContext,
  facts: InsuranceAllocationFacts,
  item: InsuranceAllocationItem,
): Decision<NewAllocation> {
  const found = insuranceOfItem(context, facts.insurances, item);
  if ('reject' in found) return found;
  const { insurance } = found;
  const rejection =
    checkInsuranceDate(context, insurance, item.effectiveDate) ??
    (purpose === 'DistributionPlan' ? checkTakesPremiums(insurance, item.effectiveDate) : undefined) ??
    checkAllocationOf(
      `${purpose === 'DistributionPlan' ? 'Distribution plan' : 'Reallocation'} of insurance ${insurance.insuranceNumber}`,
      item.allocation,
      facts.funds.get(insurance.productCode) ?? new Set(),
      insurance.productCode,
    );
  if (rejection) return { reject: rejection };
  // Nothing in the facts changes: a second allocation of the same insurance in the document is simply a later history row.
  return { accept: { insuranceNumber: insurance.insuranceNumber, purpose, effectiveDate: item.effectiveDate, lines: item.allocation } };
}

/**
 * checkAllocation, its text saying which allocation it is about and, when a fund
 * cannot be chosen, which funds can: what the sender needs to correct the item.
 */
export function checkAllocationOf(
  subject: string,
  lines: readonly AllocationLine[],
  selectable: ReadonlySet<string>,
  productCode: string,
): RuleRejection | undefined {
  const rejection = checkAllocation(lines, selectable, productCode);
  if (!rejection) return undefined;
  const choices = rejection.code === 'FUND_NOT_SELECTABLE' ? ` Funds selectable in ${productCode}: ${[...selectable].sort().join(', ')}.` : '';
  return { code: rejection.code, text: `${subject}: ${rejection.text.charAt(0).toLowerCase()}${rejection.text.slice(1)}${choices}` };
}

/** A distribution plan invests future premiums, so it is refused from the day the insurance is paid-up. */
function checkTakesPremiums(insurance: InsuranceFacts, effectiveDate: string): RuleRejection | undefined {
  if (insurance.paidUpFrom === null || effectiveDate < insurance.paidUpFrom) return undefined;
  return {
    code: 'INSURANCE_PAID_UP',
    text:
      `Insurance ${insurance.insuranceNumber} is paid-up from ${insurance.paidUpFrom} and takes no premiums, so it can have no distribution plan ` +
      `from ${effectiveDate}; use Reallocate to change the funds of its capital.`,
  };
}
