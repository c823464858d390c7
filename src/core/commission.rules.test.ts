import { describe, expect, test } from '@jest/globals';
import { withAdvisorFees } from './advisor-fee-debit.ts';
import {
  checkCommissionPeriod, checkWithinCap, commissionDebitedThrough, commissionPaymentDate, commissionStatementId, dueCommissionMonths, feeAmount, monthsOf,
  overlappingPeriod, paymentsByFirm,
} from './commission.rules.ts';
import type { AccountDebit } from './debit-run.ts';

const CAP = { maxPercent: '1.0000', maxAmount: '6000.00' };

describe('commission periods', () => {
  test('whole calendar months are counted; anything else is not a period', () => {
    expect(monthsOf({ periodFrom: '2026-10-01', periodTo: '2026-12-31' })).toBe(3);
    expect(monthsOf({ periodFrom: '2026-02-01', periodTo: '2026-02-28' })).toBe(1);
    expect(monthsOf({ periodFrom: '2028-02-01', periodTo: '2028-02-28' })).toBeUndefined();
    expect(monthsOf({ periodFrom: '2026-11-01', periodTo: '2027-10-31' })).toBe(12);
    expect(monthsOf({ periodFrom: '2026-10-02', periodTo: '2026-12-31' })).toBeUndefined();
    expect(monthsOf({ periodFrom: '2026-12-01', periodTo: '2026-10-31' })).toBeUndefined();
  });

  test('a period of more than twelve months, or one before the insurance began, is refused', () => {
    expect(checkCommissionPeriod({ periodFrom: '2026-01-01', periodTo: '2027-01-31' }, '2020-01-01')?.code).toBe('COMMISSION_PERIOD_INVALID');
    expect(checkCommissionPeriod({ periodFrom: '2026-02-01', periodTo: '2026-03-31' }, '2026-03-01')?.text).toMatch(/before the insurance began on 2026-03-01/);
    expect(checkCommissionPeriod({ periodFrom: '2026-03-01', periodTo: '2026-03-31' }, '2026-03-01')).toBeUndefined();
  });

  test('a period sharing a day with one already charged is found', () => {
    const charged = [{ periodFrom: '2026-10-01', periodTo: '2026-12-31' }];
    expect(overlappingPeriod({ periodFrom: '2026-12-01', periodTo: '2027-02-28' }, charged)).toEqual(charged[0]);
    expect(overlappingPeriod({ periodFrom: '2027-01-01', periodTo: '2027-03-31' }, charged)).toBeUndefined();
  });
});

describe("the product's cap", () => {
  test('a period may take its months\' twelfths of the yearly cap, exactly', () => {
    expect(checkWithinCap({ kind: 'Amount', value: '500.00' }, CAP, 1, 'TJP-DEPA')).toBeUndefined();
    expect(checkWithinCap({ kind: 'Amount', value: '500.01' }, CAP, 1, 'TJP-DEPA')?.code).toBe('COMMISSION_ABOVE_CAP');
    expect(checkWithinCap({ kind: 'Percent', value: '0.25' }, CAP, 3, 'TJP-DEPA')).toBeUndefined();
    expect(checkWithinCap({ kind: 'Percent', value: '0.2501' }, CAP, 3, 'TJP-DEPA')?.text).toBe(
      "The fee 0.2501 % of the custody value is above product TJP-DEPA's cap for 3 months: 0.25 % of the custody value (1.0000 a year).");
    // 1 % over 7 months is 0.58333…: 0.5833 is within it, 0.5834 is not (no rounded cap).
    expect(checkWithinCap({ kind: 'Percent', value: '0.5833' }, CAP, 7, 'P')).toBeUndefined();
    expect(checkWithinCap({ kind: 'Percent', value: '0.5834' }, CAP, 7, 'P')?.code).toBe('COMMISSION_ABOVE_CAP');
    expect(checkWithinCap({ kind: 'Amount', value: '1' }, { maxPercent: '0', maxAmount: '0' }, 12, 'X')?.code).toBe('COMMISSION_ABOVE_CAP');
  });
});

describe('fee amounts', () => {
  test('a percentage of the custody value is rounded once, half up to öre; without a value it cannot be computed', () => {
    expect(feeAmount({ kind: 'Percent', value: '0.25' }, '405000.00')).toBe('1012.50');
    expect(feeAmount({ kind: 'Percent', value: '0.125' }, '1000.20')).toBe('1.25');
    expect(feeAmount({ kind: 'Percent', value: '0.1' }, '-500.00')).toBe('0.00');
    expect(feeAmount({ kind: 'Percent', value: '0.1' }, undefined)).toBeUndefined();
    expect(feeAmount({ kind: 'Amount', value: '1200.0000' }, undefined)).toBe('1200.00');
  });

  const debit: AccountDebit = {
    accountNumber: 'A', insuranceNumber: 'I', total: '300.00', sellOrder: undefined, rateConfirmed: true, heldTax: [], caughtUp: [],
    lines: [{ charge: 'FixedCharge', amount: '300.00', periodFrom: '2026-10-01', periodTo: '2026-12-31' }],
  };

  test("an account's fees join its debit as AdvisorFee lines and the sell order grows by what the cash lacks", () => {
    const outcome = withAdvisorFees(debit, [
      { lineId: '1', insuranceNumber: 'I', periodFrom: '2026-10-01', periodTo: '2026-12-31', fee: { kind: 'Amount', value: '1200.00' }, custodyValue: undefined },
      { lineId: '2', insuranceNumber: 'I', periodFrom: '2026-10-01', periodTo: '2026-12-31', fee: { kind: 'Percent', value: '0.5' }, custodyValue: undefined },
    ], '1000.00');
    expect(outcome.debit.lines.map((line) => [line.charge, line.amount])).toEqual([['FixedCharge', '300.00'], ['AdvisorFee', '1200.00']]);
    expect(outcome.debit.total).toBe('1500.00');
    expect(outcome.debit.sellOrder).toBe('500.00');
    expect(outcome.ordered).toEqual([{ lineId: '1', amount: '1200.00' }]);
    expect(outcome.waiting).toEqual([{ lineId: '2', reason: 'no custody value on or before 2026-12-31 for a fee in percent' }]);
  });

  test('without fees the debit is unchanged; with enough cash there is no sell order', () => {
    expect(withAdvisorFees(debit, [], '0').debit).toBe(debit);
    const covered = withAdvisorFees(debit, [{ lineId: '1', insuranceNumber: 'I', periodFrom: '2026-10-01', periodTo: '2026-10-31', fee: { kind: 'Amount', value: '10' }, custodyValue: undefined }], '310.00');
    expect(covered.debit.sellOrder).toBeUndefined();
  });
});

describe('the monthly payment', () => {
  test('is made on the 5th or the first banking day after, for what was debited by the month before', () => {
    expect(commissionPaymentDate('2027-03')).toBe('2027-03-05');
    expect(commissionPaymentDate('2026-12')).toBe('2026-12-07');
    expect(commissionDebitedThrough('2027-03')).toBe('2027-02-28');
    expect(dueCommissionMonths('2027-03-04', 2)).toEqual(['2027-01', '2027-02']);
    expect(dueCommissionMonths('2027-03-05', 2)).toEqual(['2027-02', '2027-03']);
    expect(dueCommissionMonths('2027-01-10', 2)).toEqual(['2026-12', '2027-01']);
  });

  test('pays each firm one total, exact to the öre, under an id made of the month and the firm', () => {
    const payments = paymentsByFirm([
      { lineId: '1', firmOrganisationNumber: '5567777775', amount: '0.10' },
      { lineId: '2', firmOrganisationNumber: '5565555553', amount: '1012.50' },
      { lineId: '3', firmOrganisationNumber: '5565555553', amount: '0.20' },
    ]);
    expect(payments.map((p) => [p.firmOrganisationNumber, p.total, p.fees.length])).toEqual([['5565555553', '1012.70', 2], ['5567777775', '0.10', 1]]);
    expect(commissionStatementId('2027-03', '5565555553')).toBe('CS-2027-03-5565555553');
  });
});
