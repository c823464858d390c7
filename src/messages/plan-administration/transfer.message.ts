import { checkEffectiveDate, type RuleRejection } from '../../core/plan-rules.ts';
import { checkPlanSelectable, checkProductKind, checkSomethingToMove, type DistributionPlan, type Holding } from '../../core/transfer.rules.ts';
import { findInsurances, type InsuranceFacts } from '../../ledger/plan/plan.repository.ts';
import {
  findDistributionPlans, findLatestTransferDates, findTargetProducts, insertTransfers, type NewTransfer, type TargetProduct,
} from '../../ledger/plan/transfer.repository.ts';
import { optionalTextOf, textOf } from '../xml-element.ts';
import { checkNotEnded, readInsuranceItem } from './insurance-item.ts';
import { definePlanMessage, type Decision, type PersonItem, type PlanItemContext } from './plan-message.ts';

/**
 * Transfer: the employer or administrator moves an insurance within the insurer from an
 * effective date — to another product of the same kind (say to the sustainable variant
 * of an occupational pension), to another custody account, or both. The insurance keeps
 * its number, capital and history; only where it is held changes.
 * Writes: one insurance_transfers row per accepted item (product and custody account
 * before and after), and sets insurances.product_code / custody_account to the new
 * current values. A later item of the same document about the same insurance starts
 * from where the earlier one left it.
 * Rejections: INSURANCE_UNKNOWN (not this person's insurance under the agreement),
 * INSURANCE_ENDED (it has ended: moved to another insurer, surrendered …), EFFECTIVE_DATE_TOO_OLD, EFFECTIVE_DATE_BEFORE_START (before the insurance began, or
 * before its latest transfer — history is kept in date order), PRODUCT_UNKNOWN,
 * PRODUCT_KIND_MISMATCH (P, T and K never mix), TRANSFER_NOTHING_TO_MOVE (same product
 * and account as now), FUND_NOT_SELECTABLE (a fund of the insurance's distribution
 * plan is not offered by the target product: change the plan first).
 */
export interface TransferItem extends PersonItem {
  readonly insuranceNumber: string;
  readonly effectiveDate: string;
  /** Absent when only the custody account moves. */
  readonly toProductCode: string | undefined;
  /** Absent when the custody account stays. */
  readonly toCustodyAccount: string | undefined;
}

/** Where an insurance is held now and since when; decide moves it, so later items see the move. */
interface CurrentHolding extends Holding {
  readonly lastTransferDate: string | null;
}

export interface TransferFacts {
  readonly insurances: Map<string, InsuranceFacts>;
  readonly holdings: Map<string, CurrentHolding>;
  readonly products: Map<string, TargetProduct>;
  readonly plans: Map<string, DistributionPlan[]>;
}

export const transfer = definePlanMessage<TransferItem, TransferFacts, NewTransfer>({
  name: 'Transfer',
  readItem: (item): TransferItem => ({
    ...readInsuranceItem(item),
    effectiveDate: textOf(item, 'EffectiveDate'),
    toProductCode: optionalTextOf(item, 'ToProductCode'),
    toCustodyAccount: optionalTextOf(item, 'ToCustodyAccount'),
  }),
  loadFacts: loadTransferFacts,
  decide: decideTransfer,
  write: (context, transfers) => insertTransfers(context.tx, context.messageId, transfers),
});

async function loadTransferFacts(context: PlanItemContext, items: readonly TransferItem[]): Promise<TransferFacts> {
  const insuranceNumbers = items.map((item) => item.insuranceNumber);
  const insurances = await findInsurances(context.tx, context.agreement.agreementNumber, insuranceNumbers);
  const known = [...insurances.keys()];
  const lastTransfers = await findLatestTransferDates(context.tx, known);
  const holdings = new Map(
    [...insurances.values()].map((insurance) => [
      insurance.insuranceNumber,
      { productCode: insurance.productCode, custodyAccount: insurance.custodyAccount, lastTransferDate: lastTransfers.get(insurance.insuranceNumber) ?? null },
    ]),
  );
  const targets = items.flatMap((item) => (item.toProductCode === undefined ? [] : [item.toProductCode]));
  const products = await findTargetProducts(context.tx, targets);
  const plans = await findDistributionPlans(context.tx, known);
  return { insurances, holdings, products, plans };
}

function decideTransfer(context: PlanItemContext, facts: TransferFacts, item: TransferItem): Decision<NewTransfer> {
  const insurance = facts.insurances.get(item.insuranceNumber);
  const from = facts.holdings.get(item.insuranceNumber);
  if (!insurance || !from || insurance.insuredPin !== item.personalIdentityNumber) {
    return {
      reject: {
        code: 'INSURANCE_UNKNOWN',
        text: `Insurance ${item.insuranceNumber} of ${item.personalIdentityNumber} is not known under agreement ${context.agreement.agreementNumber}.`,
      },
    };
  }
  const to: Holding = { productCode: item.toProductCode ?? from.productCode, custodyAccount: item.toCustodyAccount ?? from.custodyAccount };
  const rejection = checkNotEnded(insurance) ?? checkTransferDate(context, insurance, from, item.effectiveDate) ?? checkTarget(facts, insurance, from, to, item.effectiveDate);
  if (rejection) return { reject: rejection };
  facts.holdings.set(insurance.insuranceNumber, { ...to, lastTransferDate: item.effectiveDate });
  const moved: NewTransfer = {
    insuranceNumber: insurance.insuranceNumber,
    effectiveDate: item.effectiveDate,
    fromProductCode: from.productCode,
    toProductCode: to.productCode,
    fromCustodyAccount: from.custodyAccount,
    toCustodyAccount: to.custodyAccount,
  };
  return { accept: moved };
}

/** Within the back-dating window, and not before the insurance began nor before its latest transfer. */
function checkTransferDate(context: PlanItemContext, insurance: InsuranceFacts, from: CurrentHolding, effectiveDate: string): RuleRejection | undefined {
  const transferred = from.lastTransferDate;
  const afterTransfer = transferred !== null && transferred > insurance.startDate;
  return checkEffectiveDate(effectiveDate, {
    today: context.today,
    maxBackdateDays: context.rules.maxBackdateDays,
    startDate: afterTransfer ? transferred : insurance.startDate,
    startWhat: afterTransfer ? `latest transfer of insurance ${insurance.insuranceNumber}` : `start of insurance ${insurance.insuranceNumber}`,
  });
}

/** The target product exists, is of the insurance's kind and offers its plan's funds; and something moves. */
function checkTarget(facts: TransferFacts, insurance: InsuranceFacts, from: Holding, to: Holding, effectiveDate: string): RuleRejection | undefined {
  if (to.productCode === from.productCode) return checkSomethingToMove(insurance.insuranceNumber, from, to);
  const product = facts.products.get(to.productCode);
  if (!product) {
    return { code: 'PRODUCT_UNKNOWN', text: `Product ${to.productCode} is not known; ToProductCode must be one of the insurer's product codes.` };
  }
  return (
    checkProductKind(insurance.insuranceNumber, { code: from.productCode, kind: insurance.productKind }, product) ??
    checkPlanSelectable(insurance.insuranceNumber, facts.plans.get(insurance.insuranceNumber) ?? [], effectiveDate, product)
  );
}
