import { Decimal } from 'decimal.js';
import { bankingDayOnOrAfter } from './banking-calendar.ts';
import { addDays, type IsoDate } from './calendar-date.ts';
import { decimal, sumOre, toOre, whole } from './charges/money.ts';
import type { RuleRejection } from './plan-rules.ts';

/**
 * The commission file's rules (docs/commission.md), pure: whether an advisor firm's fee
 * for a period of an insurance may be taken, what a percentage fee comes to, and when
 * and how the debited fees are paid to the firms.
 *
 * Invariants:
 * - a fee's period is whole calendar months, one to twelve of them;
 * - the product's cap is a year's worth; a period of n months may take n twelfths of it,
 *   computed exactly, compared exactly (never a rounded cap);
 * - no two accepted fees of one insurance share a day of their periods, whichever firm
 *   reported them;
 * - a percentage fee is rounded once, half up to öre, like every charge.
 */

export type CommissionFeeKind = 'Amount' | 'Percent';

export interface CommissionFee {
  readonly kind: CommissionFeeKind;
  /** SEK for Amount; percent of the custody value for Percent. */
  readonly value: string;
}

/** A product's cap on an advisor's fee, a year's worth. */
export interface AdvisorFeeCap {
  readonly maxPercent: string;
  readonly maxAmount: string;
}

export interface CommissionPeriod {
  readonly periodFrom: IsoDate;
  readonly periodTo: IsoDate;
}

/** The number of whole calendar months a period covers; undefined when it is not whole months. */
export function monthsOf(period: CommissionPeriod): number | undefined {
  const { periodFrom, periodTo } = period;
  if (!periodFrom.endsWith('-01') || addDays(periodTo, 1).slice(8) !== '01' || periodTo < periodFrom) return undefined;
  const index = (date: IsoDate) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7));
  return index(periodTo) - index(periodFrom) + 1;
}

/** Why a period cannot carry a fee: not whole months, more than twelve, or before the insurance began. */
export function checkCommissionPeriod(period: CommissionPeriod, insuranceStart: IsoDate): RuleRejection | undefined {
  const months = monthsOf(period);
  if (months === undefined) {
    return { code: 'COMMISSION_PERIOD_INVALID', text: `The period ${period.periodFrom}–${period.periodTo} is not whole calendar months: it runs from the first day of a month to the last day of a month.` };
  }
  if (months > 12) return { code: 'COMMISSION_PERIOD_INVALID', text: `The period ${period.periodFrom}–${period.periodTo} covers ${months} months; a fee covers at most twelve.` };
  if (period.periodFrom < insuranceStart) {
    return { code: 'COMMISSION_PERIOD_INVALID', text: `The period begins ${period.periodFrom}, before the insurance began on ${insuranceStart}.` };
  }
  return undefined;
}

/** The cap of a period of `months` months: that many twelfths of the year's cap, exact. */
export function capForMonths(cap: AdvisorFeeCap, months: number): { readonly percent: Decimal; readonly amount: Decimal } {
  return {
    percent: decimal(cap.maxPercent, 'maxPercent').times(months).dividedBy(12),
    amount: decimal(cap.maxAmount, 'maxAmount').times(months).dividedBy(12),
  };
}

/** Why a fee is above the product's cap for its period; undefined when within it. */
export function checkWithinCap(fee: CommissionFee, cap: AdvisorFeeCap, months: number, productCode: string): RuleRejection | undefined {
  const limit = capForMonths(cap, months);
  const value = decimal(fee.value, 'fee');
  const max = fee.kind === 'Amount' ? limit.amount : limit.percent;
  if (value.lessThanOrEqualTo(max)) return undefined;
  const unit = fee.kind === 'Amount' ? 'SEK' : '% of the custody value';
  const yearly = fee.kind === 'Amount' ? cap.maxAmount : cap.maxPercent;
  return {
    code: 'COMMISSION_ABOVE_CAP',
    text: `The fee ${fee.value} ${unit} is above product ${productCode}'s cap for ${months} month${months === 1 ? '' : 's'}: ${max.toDecimalPlaces(4, Decimal.ROUND_DOWN).toString()} ${unit} (${yearly} a year).`,
  };
}

/** The first charged period of the insurance that shares a day with `period`. */
export function overlappingPeriod(period: CommissionPeriod, charged: readonly CommissionPeriod[]): CommissionPeriod | undefined {
  return charged.find((other) => other.periodFrom <= period.periodTo && period.periodFrom <= other.periodTo);
}

/** The amount a fee comes to: an Amount as it is, a Percent of the custody value rounded half up to öre. */
export function feeAmount(fee: CommissionFee, custodyValue: string | undefined): string | undefined {
  if (fee.kind === 'Amount') return toOre(decimal(fee.value, 'fee'));
  if (custodyValue === undefined) return undefined;
  const value = custodyValue.startsWith('-') ? '0' : custodyValue;
  return toOre(decimal(value, 'custody value').times(decimal(fee.value, 'fee')).dividedBy(whole(100)));
}

// ---- Monthly payment ---------------------------------------------------------------

/** The month key of a commission payment, e.g. '2027-03'. */
export function isCommissionMonth(month: string): boolean {
  return /^\d{4}-(0[1-9]|1[0-2])$/.test(month);
}

/**
 * The banking day a month's commission is paid: the 5th, or the first banking day after.
 * It pays what the custodians had debited by the end of the month before.
 */
export function commissionPaymentDate(month: string): IsoDate {
  if (!isCommissionMonth(month)) throw new RangeError(`not a month YYYY-MM: ${month}`);
  return bankingDayOnOrAfter(`${month}-05`);
}

/** The last day whose debits a month's payment pays: the last day of the month before. */
export function commissionDebitedThrough(month: string): IsoDate {
  return addDays(`${month}-01`, -1);
}

/** The months whose payment day has come by `today`, the latest `count` of them, oldest first. */
export function dueCommissionMonths(today: IsoDate, count: number): string[] {
  const months: string[] = [];
  let year = Number(today.slice(0, 4));
  let month = Number(today.slice(5, 7));
  while (months.length < count) {
    const key = `${year}-${String(month).padStart(2, '0')}`;
    if (commissionPaymentDate(key) <= today) months.unshift(key);
    month -= 1;
    if (month === 0) {
      month = 12;
      year -= 1;
    }
    if (year < 2000) break;
  }
  return months;
}

/** A debited fee not paid yet. */
export interface DebitedFee {
  readonly lineId: string;
  readonly firmOrganisationNumber: string;
  readonly amount: string;
}

export interface FirmPayment<Fee extends DebitedFee> {
  readonly firmOrganisationNumber: string;
  readonly total: string;
  readonly fees: readonly Fee[];
}

/** The debited fees by firm, each firm's total exact to the öre; firms in organisation number order. */
export function paymentsByFirm<Fee extends DebitedFee>(fees: readonly Fee[]): FirmPayment<Fee>[] {
  const byFirm = new Map<string, Fee[]>();
  for (const fee of fees) byFirm.set(fee.firmOrganisationNumber, [...(byFirm.get(fee.firmOrganisationNumber) ?? []), fee]);
  return [...byFirm].sort(([a], [b]) => a.localeCompare(b)).map(([firmOrganisationNumber, own]) => ({
    firmOrganisationNumber, fees: own, total: sumOre(own.map((fee) => fee.amount)),
  }));
}

/** The id of a firm's statement of a month, also its payment's EndToEndId: CS-2027-03-5565555553. */
export function commissionStatementId(month: string, firmOrganisationNumber: string): string {
  return `CS-${month}-${firmOrganisationNumber}`;
}
