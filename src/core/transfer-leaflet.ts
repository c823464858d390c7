import { addDays, type IsoDate } from './calendar-date.ts';
import { isValidOrganisationNumber, isValidPersonalIdentityNumber } from './identifiers.ts';
import type { RuleRejection } from './plan-rules.ts';
import type { ProductKind } from './transfer.rules.ts';

/**
 * The transfer leaflet (flyttblad): what the releasing insurer tells the receiving one
 * when an insurance moves to another insurer — which insurance, whose, what it is worth
 * and on which day, its tax category, and the conditions that follow the capital
 * (payout restrictions, the earliest payout age, repayment protection and the
 * beneficiary terms). The gateway writes one when an insurance of ours ends
 * transferred out to an insurer counterparty, and reads one from an insurer to register
 * a transfer in. Pure: the ledger facts come in, the leaflet or the rejections go out.
 *
 * Why these rules: a pension insurance (P, T) keeps its pension tax and its payout
 * restrictions with the capital — paid out monthly over five years at least, from age
 * 55 at the earliest, never surrendered — so a leaflet that says otherwise about a
 * pension would let the receiving insurer break them. A capital insurance (K) carries
 * no such restrictions.
 */
export type TaxCategory = 'P' | 'K';
export type PayoutRestriction = 'pension' | 'none';
export type BeneficiaryChoice = 'standard' | 'named';

/** The lowest age a pension may be paid out from (inkomstskattelagen 58 kap.). */
export const LOWEST_PENSION_PAYOUT_AGE = 55;
/** The shortest payout period of a pension, in months (five years). */
export const SHORTEST_PENSION_PAYOUT_MONTHS = 60;

export interface LeafletConditions {
  readonly payoutRestriction: PayoutRestriction;
  readonly earliestPayoutAge: number;
  /** The payout start agreed for the insurance, when one was. */
  readonly agreedPayoutFrom?: IsoDate | undefined;
  /** For a pension: the shortest payout period allowed, in months. */
  readonly minimumPayoutMonths?: number | undefined;
  readonly repaymentProtection: boolean;
  /** The beneficiary arrangement, where one is recorded. */
  readonly beneficiary?: { readonly choice: BeneficiaryChoice; readonly names: readonly string[] } | undefined;
}

export interface TransferLeaflet {
  /** The releasing insurer's id of the document. */
  readonly messageId: string;
  readonly createdAt: string;
  readonly releasingInsurer: string;
  readonly receivingInsurer: string;
  /** The releasing insurer's reference for the transfer, quoted by the receiving one. */
  readonly releasingReference: string;
  readonly insurance: {
    readonly insuranceNumber: string;
    readonly insuranceType: ProductKind;
    readonly taxCategory: TaxCategory;
    readonly startDate: IsoDate;
    readonly lastDayInForce: IsoDate;
    /** A personal identity number (12 digits) or an organisation number (10 digits). */
    readonly policyholder: string;
    readonly insured: string;
  };
  readonly value: { readonly amount: string; readonly valueDate: IsoDate };
  readonly conditions: LeafletConditions;
}

/** The tax category of an insurance type: pension insurance (P) for private and occupational pensions, capital insurance (K). */
export function taxCategoryOf(type: ProductKind): TaxCategory {
  return type === 'K' ? 'K' : 'P';
}

/** The conditions that follow the capital of an insurance of `type`, from its ledger facts. */
export function conditionsOf(facts: {
  readonly type: ProductKind;
  readonly payoutAge: number;
  readonly agreedPayoutFrom: IsoDate | null;
  readonly repaymentProtection: boolean;
  readonly beneficiary: { readonly choice: BeneficiaryChoice; readonly names: readonly string[] } | null;
}): LeafletConditions {
  const pension = taxCategoryOf(facts.type) === 'P';
  return {
    payoutRestriction: pension ? 'pension' : 'none',
    earliestPayoutAge: pension ? Math.max(facts.payoutAge, LOWEST_PENSION_PAYOUT_AGE) : facts.payoutAge,
    ...(facts.agreedPayoutFrom ? { agreedPayoutFrom: facts.agreedPayoutFrom } : {}),
    ...(pension ? { minimumPayoutMonths: SHORTEST_PENSION_PAYOUT_MONTHS } : {}),
    repaymentProtection: facts.repaymentProtection,
    ...(facts.beneficiary ? { beneficiary: facts.beneficiary } : {}),
  };
}

/** The ids of a leaflet the gateway sends for one of its insurances: one per insurance, so a retry names the same document. */
export function outgoingLeafletIds(insuranceNumber: string): { messageId: string; reference: string } {
  return { messageId: `TL-${insuranceNumber}`, reference: `FLYTT-${insuranceNumber}` };
}

/**
 * Why a received leaflet cannot be registered, every reason at once (none: it can).
 * `insurer` is our organisation number, `sender` the sending counterparty's.
 */
export function checkReceivedLeaflet(leaflet: TransferLeaflet, facts: { insurer: string; sender: string; today: IsoDate }): RuleRejection[] {
  const problems: RuleRejection[] = [];
  const { insurance, conditions } = leaflet;
  if (leaflet.receivingInsurer !== facts.insurer) {
    problems.push({ code: 'TRANSFER_LEAFLET_MISADDRESSED', text: `The leaflet is addressed to ${leaflet.receivingInsurer}; this insurer is ${facts.insurer}.` });
  }
  if (leaflet.releasingInsurer !== facts.sender) {
    problems.push({ code: 'INSURER_MISMATCH', text: `The leaflet names releasing insurer ${leaflet.releasingInsurer}, but it was sent by ${facts.sender}; an insurer sends leaflets only for its own insurances.` });
  }
  if (!isValidPersonalIdentityNumber(insurance.insured)) {
    problems.push({ code: 'PERSONAL_IDENTITY_NUMBER_INVALID', text: `Insured ${insurance.insured} is not a valid personal identity number.` });
  }
  if (!isValidPolicyholder(insurance.policyholder)) {
    problems.push({ code: 'PERSONAL_IDENTITY_NUMBER_INVALID', text: `Policyholder ${insurance.policyholder} is neither a valid personal identity number nor a valid organisation number.` });
  }
  const category = taxCategoryOf(insurance.insuranceType);
  if (insurance.taxCategory !== category) {
    problems.push({ code: 'TAX_CATEGORY_MISMATCH', text: `An insurance of type ${insurance.insuranceType} has tax category ${category}, not ${insurance.taxCategory}.` });
  }
  if (category === 'P') problems.push(...pensionConditionProblems(insurance.insuranceType, conditions));
  if (leaflet.value.valueDate > facts.today) {
    problems.push({ code: 'TRANSFER_VALUE_DATE_IN_FUTURE', text: `Value date ${leaflet.value.valueDate} is after today (${facts.today}): give the value on a day that has passed.` });
  }
  if (insurance.lastDayInForce < insurance.startDate) {
    problems.push({ code: 'TRANSFER_CONDITIONS_INVALID', text: `LastDayInForce ${insurance.lastDayInForce} is before the insurance's StartDate ${insurance.startDate}.` });
  }
  return problems;
}

function pensionConditionProblems(type: ProductKind, conditions: LeafletConditions): RuleRejection[] {
  const problems: string[] = [];
  if (conditions.payoutRestriction !== 'pension') problems.push(`PayoutRestriction must be pension (it is ${conditions.payoutRestriction})`);
  if (conditions.earliestPayoutAge < LOWEST_PENSION_PAYOUT_AGE) problems.push(`EarliestPayoutAge ${conditions.earliestPayoutAge} is below ${LOWEST_PENSION_PAYOUT_AGE}`);
  if (conditions.minimumPayoutMonths === undefined || conditions.minimumPayoutMonths < SHORTEST_PENSION_PAYOUT_MONTHS) {
    problems.push(`MinimumPayoutMonths must be at least ${SHORTEST_PENSION_PAYOUT_MONTHS} (${conditions.minimumPayoutMonths ?? 'none given'})`);
  }
  if (problems.length === 0) return [];
  return [{ code: 'TRANSFER_CONDITIONS_INVALID', text: `A pension insurance (type ${type}) keeps its payout restrictions: ${problems.join('; ')}.` }];
}

function isValidPolicyholder(id: string): boolean {
  return id.length === 12 ? isValidPersonalIdentityNumber(id) : isValidOrganisationNumber(id);
}

/** The day a transfer in starts with us: the day after its last day in force at the releasing insurer. */
export function transferInStartDate(lastDayInForce: IsoDate): IsoDate {
  return addDays(lastDayInForce, 1);
}
