import { checkEffectiveDate, checkFeeBounds, type FeeType } from '../../core/plan-rules.ts';
import { findInsurances, insertFees, type InsuranceFacts, type NewFee } from '../../ledger/plan.repository.ts';
import { textOf } from '../xml-element.ts';
import { definePlanMessage, type PlanItem } from './plan-message.ts';

/**
 * ChangeFee: the employer or administrator changes an insurance's fixed or capital
 * charge from an effective date. The new fee is a dated history row; earlier fees stay.
 * Rejections: INSURANCE_UNKNOWN (not this person's insurance under the agreement),
 * EFFECTIVE_DATE_TOO_OLD, EFFECTIVE_DATE_BEFORE_START, FEE_OUT_OF_BOUNDS.
 */
export interface ChangeFeeItem extends PlanItem {
  readonly insuranceNumber: string;
  readonly effectiveDate: string;
  readonly feeType: FeeType;
  readonly value: string;
}

export const changeFee = definePlanMessage<ChangeFeeItem, Map<string, InsuranceFacts>, NewFee>({
  name: 'ChangeFee',
  readItem: (item): ChangeFeeItem => ({
    itemId: textOf(item, 'ItemId'),
    personalIdentityNumber: textOf(item, 'PersonalIdentityNumber'),
    insuranceNumber: textOf(item, 'InsuranceNumber'),
    effectiveDate: textOf(item, 'EffectiveDate'),
    feeType: textOf(item, 'FeeType') as FeeType,
    value: textOf(item, 'Value'),
  }),
  loadFacts: (context, items) => findInsurances(context.tx, context.agreement.agreementNumber, items.map((item) => item.insuranceNumber)),
  decide(context, insurances, item) {
    const insurance = insurances.get(item.insuranceNumber);
    if (!insurance || insurance.insuredPin !== item.personalIdentityNumber) {
      return {
        reject: {
          code: 'INSURANCE_UNKNOWN',
          text: `Insurance ${item.insuranceNumber} of ${item.personalIdentityNumber} is not known under agreement ${context.agreement.agreementNumber}.`,
        },
      };
    }
    const rejection =
      checkEffectiveDate(item.effectiveDate, {
        today: context.today,
        maxBackdateDays: context.rules.maxBackdateDays,
        startDate: insurance.startDate,
        startWhat: `start of insurance ${insurance.insuranceNumber}`,
      }) ?? checkFeeBounds(item.feeType, item.value, insurance, insurance.productCode);
    if (rejection) return { reject: rejection };
    const fee: NewFee = { insuranceNumber: insurance.insuranceNumber, feeType: item.feeType, value: item.value, effectiveDate: item.effectiveDate };
    return { accept: fee };
  },
  write: (context, fees) => insertFees(context.tx, context.messageId, fees),
});
