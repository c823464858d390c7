import type { Decimal } from 'decimal.js';
import { daysBetween, type IsoDate } from '../calendar-date.ts';
import { decimal, sumOre, toOre, whole } from './money.ts';
import { ageOn, daysInYear, quarterSpan, type QuarterPeriod } from './quarter-span.ts';
import { DEMO_RISK_PREMIUM_RATES, type AgeBand, type RiskPremiumRates } from './risk-premium-rates.ts';
import { YIELD_TAX_RATES, type YieldTaxRateTable } from './yield-tax-rates.ts';
import { depositsLevy, levyYieldTax, missingYieldTaxRate, openingValueLevy, type Deposit, type ProductKind, type YieldTaxLevy, type YieldTaxPart } from './yield-tax.ts';

/**
 * The charges of a custody insurance, debited quarterly in arrears: the fixed charge,
 * the capital charge, the risk premiums and the yield tax. Pure: the debit run loads
 * the values, deposits and coverages and asks `quarterDebit` what to take.
 *
 * Invariants: amounts are decimal strings in SEK; each charge is computed exactly and
 * rounded to öre (half up) once, at its end (money.ts); a total is the sum of the
 * rounded charges, so the debit statement always adds up. What is owed is computed
 * whatever the account holds: whether it can pay is the debit run's concern.
 */

export { yieldTax, yieldTaxOnDeposits, yieldTaxOnOpeningValue, levyYieldTax, missingYieldTaxRate } from './yield-tax.ts';
export type { Deposit, ProductKind, YieldTax, YieldTaxBasis, YieldTaxInput, YieldTaxLevy, YieldTaxPart } from './yield-tax.ts';
export type { QuarterPeriod } from './quarter-span.ts';

/**
 * The quarter's custody values over the days the insurance was in force: one value a
 * calendar day (a weekend or holiday carries the last banking day's close), or their
 * average when the caller has already taken it.
 */
export type QuarterValues = { readonly dailyValues: readonly string[] } | { readonly averageValue: string };

/**
 * Σ value over the charged days: the base of every charge reckoned on the account
 * value. `counted` takes only the first days in force (a cover that ended before the
 * insurance did); default all of them.
 */
function valueDays(values: QuarterValues, days: number, counted = days): Decimal {
  if ('dailyValues' in values) {
    if (values.dailyValues.length !== days) {
      throw new RangeError(`${values.dailyValues.length} daily values for ${days} insured days: give one value per calendar day in force`);
    }
    return values.dailyValues.slice(0, counted).reduce((sum, value, i) => sum.plus(decimal(value, `dailyValues[${i}]`)), whole(0));
  }
  return decimal(values.averageValue, 'averageValue').times(counted);
}

export interface FixedChargeOptions {
  /** SEK a year. Default '360', i.e. 90 a quarter. */
  readonly annualFixedCharge?: string;
}

/**
 * The quarter's fixed charge: a quarter of the annual charge, pro rata by days when
 * the insurance started or ended inside the quarter.
 *
 * Day count: days in force / the quarter's own days (90, 91 or 92). So every full
 * quarter costs exactly a quarter of the annual charge, whatever its length — which
 * is how the charge is sold ("90 a quarter") — and a part quarter its share of it.
 *
 * @example fixedCharge({ year: 2024, quarter: 1, insuredFrom: '2024-02-15' }) // '45.49': 360 × 46 / (4 × 91)
 */
export function fixedCharge(period: QuarterPeriod, { annualFixedCharge = '360' }: FixedChargeOptions = {}): string {
  const { daysInQuarter, insuredDays } = quarterSpan(period);
  return toOre(decimal(annualFixedCharge, 'annualFixedCharge').times(insuredDays).dividedBy(4 * daysInQuarter));
}

export type CapitalChargeInput = {
  /** Percent a year of the account value, e.g. '0.4'. */
  readonly annualPercent: string;
  /** The calendar year of the quarter: its length (365 or 366 days) is the day count's denominator. */
  readonly year: number;
} & (
  | { readonly dailyValues: readonly string[] }
  | { readonly averageValue: string; /** The days the average covers (the days in force). */ readonly days: number }
);

/**
 * The quarter's capital charge: annual percent × account value × days / days in the
 * year, i.e. pro rata on the value of each day in force.
 *
 * Day count actual/actual: a quarter never spans two years, so the denominator is
 * simply that year's 365 or 366 days. Then a year's four charges come to exactly the
 * annual percent of the year's average value, in leap years too; actual/365 would
 * take 366/365 of the stated percent in a leap year.
 *
 * @example capitalCharge({ annualPercent: '0.4', year: 2023, averageValue: '1200000', days: 92 }) // '1209.86'
 */
export function capitalCharge(input: CapitalChargeInput): string {
  const days = 'dailyValues' in input ? input.dailyValues.length : input.days;
  if (!Number.isInteger(days) || days < 0 || days > 92) throw new RangeError(`not a number of days in a quarter: ${days}`);
  const base = valueDays(input, days);
  return toOre(base.times(decimal(input.annualPercent, 'annualPercent')).dividedBy(100 * daysInYear(input.year)));
}

/** A risk cover the insurance carries; its premium is debited with the quarter's charges. */
export type Coverage =
  | {
      readonly type: 'repaymentProtection';
      /**
       * The last day the protection is in force: the day before payout begins, since its
       * death benefit is due only before then. Default: in force all the days in force.
       */
      readonly through?: IsoDate;
    }
  | {
      readonly type: 'premiumWaiver';
      /** The savings premiums due in the quarter: what the waiver would pay if the insured fell ill. */
      readonly premiums: string;
    };

export interface RiskPremiumFacts {
  readonly period: QuarterPeriod;
  readonly birthDate: IsoDate;
  /** The custody values over the days in force: repayment protection costs per capital. */
  readonly values: QuarterValues;
  /** Default: the demo products' rates (risk-premium-rates.ts). */
  readonly rates?: RiskPremiumRates;
}

export interface RiskPremium {
  /** The sum of the coverages' premiums. */
  readonly total: string;
  /** Each coverage's premium, rounded on its own: each is a separate risk product on the statement. */
  readonly byCoverage: readonly { readonly type: Coverage['type']; readonly amount: string }[];
}

function bandRate(bands: readonly AgeBand[], age: number): string {
  // Bands rise by fromAge: the insured's band is the last one they have reached.
  const band = bands.filter((candidate) => candidate.fromAge <= age).at(-1);
  if (!band) throw new RangeError(`no repayment protection rate for age ${age}`);
  return band.monthlyPerThousand;
}

/**
 * The quarter's risk premium, per coverage.
 *
 * - Repayment protection: the age band's monthly rate per 1 000 SEK × the capital ×
 *   3 months, pro rata by days in force like the fixed charge, and only for the days
 *   through the protection's own last day (`through`: it ends when payout begins). The
 *   capital is the quarter's average custody value; the age is the insured's age in
 *   completed years on the first day in force in the quarter, so a birthday moves the
 *   band from the next quarter on.
 * - Premium waiver: the waiver percent of the premiums due in the quarter. It needs
 *   no pro rata: premiums are due only for days in force.
 */
export function riskPremium(coverages: readonly Coverage[], facts: RiskPremiumFacts): RiskPremium {
  const rates = facts.rates ?? DEMO_RISK_PREMIUM_RATES;
  const span = quarterSpan(facts.period);
  const types = new Set(coverages.map((coverage) => coverage.type));
  if (types.size !== coverages.length) throw new RangeError('each coverage may appear once');
  const byCoverage = coverages.map((coverage) => {
    switch (coverage.type) {
      case 'repaymentProtection': {
        const protectedDays = daysProtected(span.firstInsuredDay, span.insuredDays, coverage.through);
        if (span.firstInsuredDay === undefined || protectedDays === 0) return { type: coverage.type, amount: '0.00' };
        const monthly = decimal(bandRate(rates.repaymentProtection, ageOn(facts.birthDate, span.firstInsuredDay)), 'monthlyPerThousand');
        // avg × protected days / daysInQuarter × 3 months: one division, by 1 000 × the quarter's days.
        const premium = valueDays(facts.values, span.insuredDays, protectedDays).times(monthly).times(3).dividedBy(1000 * span.daysInQuarter);
        return { type: coverage.type, amount: toOre(premium) };
      }
      case 'premiumWaiver': {
        const premium = decimal(coverage.premiums, 'premiums').times(decimal(rates.premiumWaiverPercent, 'premiumWaiverPercent')).dividedBy(100);
        return { type: coverage.type, amount: toOre(premium) };
      }
      default:
        return coverage satisfies never;
    }
  });
  return { total: sumOre(byCoverage.map((line) => line.amount)), byCoverage };
}

/** Of the days in force from `firstDay`, how many fall on or before `through` (all when there is no such day). */
function daysProtected(firstDay: IsoDate | undefined, days: number, through: IsoDate | undefined): number {
  if (firstDay === undefined || through === undefined) return days;
  if (through < firstDay) return 0;
  return Math.min(days, daysBetween(firstDay, through) + 1);
}

export interface QuarterDebitInput {
  readonly kind: ProductKind;
  /** The quarter the debit covers, in arrears: Q4 of a year is debited in February of the next. */
  readonly year: number;
  readonly quarter: QuarterPeriod['quarter'];
  readonly insuredFrom?: IsoDate;
  /**
   * The last day in force when the insurance has ended (paid out, moved out,
   * surrendered, the insured's death): the charges stop there, deposits after it are
   * not taxed, and it owes no tax on an opening value it no longer has on 1 January.
   */
  readonly insuredThrough?: IsoDate;
  /** SEK a year; default '360'. */
  readonly annualFixedCharge?: string;
  /** The product's capital charge, percent a year. */
  readonly annualCapitalPercent: string;
  readonly values: QuarterValues;
  readonly birthDate: IsoDate;
  readonly coverages: readonly Coverage[];
  /** The deposits booked in the covered quarter; those outside the days in force are not taxed. */
  readonly deposits: readonly Deposit[];
  /**
   * The custody value at 31 December of `year`: the opening value of `year + 1`, taxed
   * in advance by the February run when the insurance is in force on 1 January of
   * `year + 1`. Required for quarter 4, refused for the others.
   */
  readonly yearEndValue?: string;
  /** Default: YIELD_TAX_RATES. */
  readonly yieldTaxRates?: YieldTaxRateTable;
  /** Default: DEMO_RISK_PREMIUM_RATES. */
  readonly riskPremiumRates?: RiskPremiumRates;
}

export interface QuarterDebit {
  readonly fixedCharge: string;
  readonly capitalCharge: string;
  readonly riskPremium: string;
  /** yieldTaxOnDeposits + yieldTaxOnOpeningValue. */
  readonly yieldTax: string;
  /** The sum of the four charges above. */
  readonly total: string;
  readonly riskPremiumByCoverage: RiskPremium['byCoverage'];
  /** On the covered quarter's deposits, at the covered year's rate ('0.00' for P and T). */
  readonly yieldTaxOnDeposits: string;
  /** On the next year's opening value, at the next year's rate: the February run only. */
  readonly yieldTaxOnOpeningValue: string;
  /** False when a yield tax rate used is marked unconfirmed: worth a line in the run's report. */
  readonly yieldTaxRateConfirmed: boolean;
  /**
   * The parts of the yield tax not taken because their tax year has no rate yet, each
   * with what it is levied on and which rate is missing. Not in the amounts above.
   */
  readonly heldYieldTax: readonly HeldYieldTax[];
}

/** A part of the yield tax held back for want of its tax year's rate. */
export interface HeldYieldTax extends YieldTaxLevy {
  /** Which rate is missing, and where to set it. */
  readonly reason: string;
}

/**
 * One account's debit for a debit run: the covered quarter's fixed charge, capital
 * charge, risk premiums and yield tax on its deposits and, in the February run
 * (quarter 4), also the yield tax on the new year's opening value — only for an
 * insurance in force on 1 January: one that ended in the year owes none.
 *
 * A part of the yield tax whose tax year has no rate (e.g. the February 2025 run for P
 * or T, until the 2025 rate is configured) is not taken and not guessed: it comes back
 * in `heldYieldTax`, and the charges and risk premiums are taken all the same. A part
 * whose base is nothing needs no rate. Throws RangeError for malformed input.
 */
export function quarterDebit(input: QuarterDebitInput): QuarterDebit {
  const { kind, year, quarter, insuredFrom, insuredThrough, values } = input;
  if ((quarter === 4) !== (input.yearEndValue !== undefined)) {
    throw new RangeError(`yearEndValue is required for quarter 4 (the February run) and refused for the others; quarter ${quarter} ${input.yearEndValue === undefined ? 'lacks' : 'has'} it`);
  }
  const period: QuarterPeriod = { year, quarter, insuredFrom, insuredThrough };
  const { insuredDays } = quarterSpan(period);
  const capitalValues = 'dailyValues' in values ? values : { averageValue: values.averageValue, days: insuredDays };
  const fixed = fixedCharge(period, { annualFixedCharge: input.annualFixedCharge });
  const capital = capitalCharge({ annualPercent: input.annualCapitalPercent, year, ...capitalValues });
  const risk = riskPremium(input.coverages, { period, birthDate: input.birthDate, values, rates: input.riskPremiumRates });
  const rates = input.yieldTaxRates ?? YIELD_TAX_RATES;
  const inForce = (date: IsoDate) => (insuredFrom === undefined || date >= insuredFrom) && (insuredThrough === undefined || date <= insuredThrough);
  const heldYieldTax: HeldYieldTax[] = [];
  const levied = (levy: YieldTaxLevy | undefined): YieldTaxPart => {
    const none = { amount: '0.00', rateConfirmed: true };
    if (!levy || decimal(levy.base, 'base').isZero()) return none;
    const part = levyYieldTax(levy, rates);
    if (part) return part;
    heldYieldTax.push({ ...levy, reason: missingYieldTaxRate(levy.kind, levy.taxYear, rates) });
    return none;
  };
  const onDeposits = levied(depositsLevy({ kind, year, quarter, deposits: input.deposits.filter((deposit) => inForce(deposit.date)) }));
  const onOpening = levied(
    input.yearEndValue === undefined || !inForce(`${year + 1}-01-01`) ? undefined : openingValueLevy({ kind, year: year + 1, openingValue: input.yearEndValue }),
  );
  const yieldTax = sumOre([onDeposits.amount, onOpening.amount]);
  return {
    fixedCharge: fixed,
    capitalCharge: capital,
    riskPremium: risk.total,
    yieldTax,
    total: sumOre([fixed, capital, risk.total, yieldTax]),
    riskPremiumByCoverage: risk.byCoverage,
    yieldTaxOnDeposits: onDeposits.amount,
    yieldTaxOnOpeningValue: onOpening.amount,
    yieldTaxRateConfirmed: onDeposits.rateConfirmed && onOpening.rateConfirmed,
    heldYieldTax,
  };
}
