import { checkFeeBounds, type FeeType } from '../../core/plan-rules.ts';
import { insertFees, type InsuranceFacts, type NewFee } from '../../ledger/plan/plan.repository.ts';
import { textOf } from '../xml-element.ts';
import { checkInsuranceDate, findItemInsurances, insuranceOfItem, readInsuranceItem } from './insurance-item.ts';
import { definePlanMessage, type PersonItem } from './plan-message.ts';

/**
 * ChangeFee: the employer or administrator changes an insurance's fixed or capital
 * charge from an effective date. The new fee is a dated history row; earlier fees stay.
 * Rejections: INSURANCE_UNKNOWN (not this person's insurance under the agreement), INSURANCE_ENDED (it has ended),
 * EFFECTIVE_DATE_TOO_OLD, EFFECTIVE_DATE_BEFORE_START, FEE_OUT_OF_BOUNDS.
 */
export interface ChangeFeeItem extends PersonItem {
  readonly insuranceNumber: string;
  readonly effectiveDate: string;
  readonly feeType: FeeType;
  readonly value: string;
}

export const changeFee = definePlanMessage<ChangeFeeItem, Map<string, InsuranceFacts>, NewFee>({
  name: 'ChangeFee',
  readItem: (item): ChangeFeeItem => ({
    ...readInsuranceItem(item),
    effectiveDate: textOf(item, 'EffectiveDate'),
    feeType: textOf(item, 'FeeType') as FeeType,
    value: textOf(item, 'Value'),
  }),
  loadFacts: (context, items) => findItemInsurances(context, items),
  decide(context, insurances, item) {
    const found = insuranceOfItem(context, insurances, item);
    if ('reject' in found) return found;
    const { insurance } = found;
    const rejection = checkInsuranceDate(context, insurance, item.effectiveDate) ?? checkFeeBounds(item.feeType, item.value, insurance, insurance.productCode);
    if (rejection) return { reject: rejection };
    const fee: NewFee = { insuranceNumber: insurance.insuranceNumber, feeType: item.feeType, value: item.value, effectiveDate: item.effectiveDate };
    return { accept: fee };
  },
  write: (context, fees) => insertFees(context.tx, context.messageId, fees),
});
