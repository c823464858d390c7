import type { Quarter } from '../banking-calendar.ts';
import type { IsoDate } from '../calendar-date.ts';
import { decimal, sumOre, toOre, whole } from './money.ts';
import { quarterOf, requireDate, requireYear } from './quarter-span.ts';
import { YIELD_TAX_RATES, type YieldTaxRate, type YieldTaxRateTable } from './yield-tax-rates.ts';

/**
 * Yield tax (avkastningsskatt), docs/domain.md "Yield tax", split the way the debit
 * calendar takes it:
 *
 * - On the opening value (the custody value at 31 December of the year before), all
 *   kinds: opening value × the tax year's rate, taken in advance by the February run.
 * - On deposits, K only (for P and T the base is the opening value alone): the base
 *   takes a deposit made 1 January–30 June in full and one made 1 July–31 December at
 *   half. Each quarterly run takes the tax on its own quarter's deposits: Q1 and Q2
 *   deposits × rate, Q3 and Q4 deposits × rate / 2. Both halves of the year split
 *   cleanly on quarter ends, so the four quarters' parts are exactly the deposit term
 *   of the annual base, each rounded on its own; the Q4 part, at the tax year's rate,
 *   is taken in February of the year after.
 *
 * Rounding each quarter's part on its own means the year's deposit tax as debited may
 * differ from the annual base × rate rounded once by at most 2 öre. We keep it: each
 * debit must be explainable from its own quarter's deposits, and the insurer declares
 * the tax on all its policies together, not policy by policy.
 */

export type ProductKind = 'P' | 'T' | 'K';

export interface Deposit {
  /** The day the premium was booked to the insurance: it decides the half of the year. */
  readonly date: IsoDate;
  readonly amount: string;
}

/** One part of the yield tax and whether the rate behind it is confirmed. */
export interface YieldTaxPart {
  readonly amount: string;
  readonly rateConfirmed: boolean;
}

/** What a part of the yield tax is levied on. */
export type YieldTaxBasis = 'Deposits' | 'OpeningValue';

/**
 * One part of the yield tax before its rate is applied: what it is levied on and for
 * which tax year. A debit run that finds no rate for the year keeps the levy (a
 * held-back tax), so the run that finds the rate takes exactly what would have been
 * taken.
 */
export interface YieldTaxLevy {
  readonly kind: ProductKind;
  readonly basis: YieldTaxBasis;
  readonly taxYear: number;
  /** SEK: the quarter's deposits in force (Deposits) or the opening value (OpeningValue). */
  readonly base: string;
  /** Deposits made 1 July–31 December count at half. */
  readonly halfBase: boolean;
}

/** The rate of a kind and tax year; undefined when the table has none. */
export function yieldTaxRateOf(kind: ProductKind, year: number, rates: YieldTaxRateTable = YIELD_TAX_RATES): YieldTaxRate | undefined {
  requireYear(year);
  const row = rates[year];
  return kind === 'K' ? row?.k : row?.pt;
}

/** Which rate is missing and what to do about it: the reason a held-back tax is given. */
export function missingYieldTaxRate(kind: ProductKind, year: number, rates: YieldTaxRateTable = YIELD_TAX_RATES): string {
  const known = Object.keys(rates).filter((candidate) => yieldTaxRateOf(kind, Number(candidate), rates) !== undefined);
  return (
    `No yield tax rate for ${kind === 'K' ? 'K' : 'P/T'} in tax year ${year} (rates are known for ${known.join(', ')}): ` +
    'add the year under charges.yieldTaxRates in the configuration once its statslåneränta is set.'
  );
}

/** A levy's tax at its tax year's rate; undefined while the table has no rate for that year. */
export function levyYieldTax(levy: YieldTaxLevy, rates: YieldTaxRateTable = YIELD_TAX_RATES): YieldTaxPart | undefined {
  const rate = yieldTaxRateOf(levy.kind, levy.taxYear, rates);
  if (!rate) return undefined;
  const tax = decimal(levy.base, 'base').times(decimal(rate.percent, 'rate')).dividedBy(levy.halfBase ? 200 : 100);
  return { amount: toOre(tax), rateConfirmed: rate.confirmed };
}

/** A levy's tax; throws RangeError naming the missing rate when the year has none. */
function levyOrThrow(levy: YieldTaxLevy, rates: YieldTaxRateTable): YieldTaxPart {
  const part = levyYieldTax(levy, rates);
  if (!part) throw new RangeError(missingYieldTaxRate(levy.kind, levy.taxYear, rates));
  return part;
}

/** The levy on a year's opening value (the custody value at 31 December of the year before). */
export function openingValueLevy(input: { kind: ProductKind; year: number; openingValue: string }): YieldTaxLevy {
  decimal(input.openingValue, 'openingValue');
  return { kind: input.kind, basis: 'OpeningValue', taxYear: input.year, base: input.openingValue, halfBase: false };
}

/** The tax on a year's opening value (the custody value at 31 December of the year before). */
export function yieldTaxOnOpeningValue(input: { kind: ProductKind; year: number; openingValue: string; rates?: YieldTaxRateTable }): YieldTaxPart {
  return levyOrThrow(openingValueLevy(input), input.rates ?? YIELD_TAX_RATES);
}

/**
 * The levy on one quarter's deposits: undefined for P and T (their base is the opening
 * value alone), for K the deposits' sum, at half in Q3 and Q4. Each deposit must lie in
 * the quarter.
 */
export function depositsLevy(input: { kind: ProductKind; year: number; quarter: Quarter; deposits: readonly Deposit[] }): YieldTaxLevy | undefined {
  const { kind, year, quarter, deposits } = input;
  let sum = whole(0);
  deposits.forEach((deposit, i) => {
    requireDate(deposit.date, `deposits[${i}].date`);
    if (Number(deposit.date.slice(0, 4)) !== year || quarterOf(deposit.date) !== quarter) {
      throw new RangeError(`deposits[${i}] on ${deposit.date} is outside Q${quarter} ${year}`);
    }
    sum = sum.plus(decimal(deposit.amount, `deposits[${i}].amount`));
  });
  if (kind !== 'K') return undefined;
  return { kind, basis: 'Deposits', taxYear: year, base: sum.toFixed(), halfBase: quarter > 2 };
}

/**
 * The tax on one quarter's deposits: '0.00' for P and T (no rate looked up: none is
 * needed), for K the deposits × the year's rate, at half in Q3 and Q4.
 */
export function yieldTaxOnDeposits(input: {
  kind: ProductKind;
  year: number;
  quarter: Quarter;
  deposits: readonly Deposit[];
  rates?: YieldTaxRateTable;
}): YieldTaxPart {
  const levy = depositsLevy(input);
  if (!levy) return { amount: '0.00', rateConfirmed: true };
  return levyOrThrow(levy, input.rates ?? YIELD_TAX_RATES);
}

export interface YieldTaxInput {
  readonly kind: ProductKind;
  /** The tax year. */
  readonly year: number;
  /** The custody value at 31 December of the year before. */
  readonly openingValue: string;
  /** The year's deposits (ignored for P and T, but still checked to lie in the year). */
  readonly deposits: readonly Deposit[];
  /** Default: YIELD_TAX_RATES. */
  readonly rates?: YieldTaxRateTable;
}

export interface YieldTax {
  /** Taken by the February run of the tax year. */
  readonly onOpeningValue: string;
  /** Taken by the run covering each quarter (Q4's in February of the year after). */
  readonly onDepositsByQuarter: Readonly<Record<Quarter, string>>;
  /** The four quarters' parts added up. */
  readonly onDeposits: string;
  readonly total: string;
  readonly rateConfirmed: boolean;
}

/**
 * A year's yield tax for one insurance. P/T: opening value × rate(year).pt. K:
 * (opening value + first-half deposits + half of second-half deposits) × rate(year).k,
 * returned in the parts the debit runs take.
 *
 * @example yieldTax({ kind: 'K', year: 2024, openingValue: '500000', deposits: [] }).onOpeningValue // '5430.00'
 */
export function yieldTax(input: YieldTaxInput): YieldTax {
  const { kind, year, deposits, rates } = input;
  requireYear(year);
  deposits.forEach((deposit, i) => {
    requireDate(deposit.date, `deposits[${i}].date`);
    if (!deposit.date.startsWith(`${year}-`)) throw new RangeError(`deposits[${i}] on ${deposit.date} is outside tax year ${year}`);
  });
  const opening = yieldTaxOnOpeningValue({ kind, year, openingValue: input.openingValue, rates });
  const parts = ([1, 2, 3, 4] as const).map((quarter) => {
    const own = deposits.filter((deposit) => quarterOf(deposit.date) === quarter);
    return yieldTaxOnDeposits({ kind, year, quarter, deposits: own, rates });
  });
  const [q1, q2, q3, q4] = parts.map((part) => part.amount) as [string, string, string, string];
  const onDeposits = sumOre([q1, q2, q3, q4]);
  return {
    onOpeningValue: opening.amount,
    onDepositsByQuarter: { 1: q1, 2: q2, 3: q3, 4: q4 },
    onDeposits,
    total: sumOre([opening.amount, onDeposits]),
    rateConfirmed: opening.rateConfirmed && parts.every((part) => part.rateConfirmed),
  };
}
