import { Decimal } from 'decimal.js';
import { debitRunDate, type Quarter } from './banking-calendar.ts';
import { addDays, type IsoDate } from './calendar-date.ts';
import { levyYieldTax, quarterDebit, type Coverage, type Deposit, type HeldYieldTax, type ProductKind, type YieldTaxBasis } from './charges/charges.ts';
import { sumOre } from './charges/money.ts';
import { quarterSpan, type QuarterPeriod } from './charges/quarter-span.ts';
import type { YieldTaxRateTable } from './charges/yield-tax-rates.ts';

/**
 * One debit run, account by account: from the facts the ledger holds about each
 * insured custody account to the lines the DebitAccounts file carries — fixed charge,
 * capital charge, risk premium, yield tax (on the quarter's deposits, and in February
 * on the opening value) — and a sell order when the account's cash does not cover
 * the debit. Pure: the pipeline loads the facts and stores the result.
 *
 * Invariants:
 * - every amount comes from the charges engine (src/core/charges), unchanged: a line
 *   is never re-rounded here, and zero lines are left out (the file carries only
 *   positive amounts);
 * - the sell order is exactly what the cash lacks: debit total − available cash
 *   (cash below zero counts as zero);
 * - an account whose debit cannot be computed (no custody values yet) is held back
 *   with the reason, never debited a guess; an insurance not in force in the quarter
 *   is skipped without a word;
 * - a yield tax whose tax year has no rate yet holds back that line only, with its
 *   levy and reason (`heldTax`): the charges and risk premium are debited all the
 *   same. A tax an earlier run held back (`pendingTaxes`) is debited, once its rate is
 *   known, as a line of its own with its own basis and period (`heldBy` names the run
 *   that held it); the pipeline records that so no later run takes it again.
 */

/** The run key of the debit run covering a quarter, e.g. '2026-Q3'. */
export function debitRunKey(year: number, quarter: Quarter): string {
  return `${year}-Q${quarter}`;
}

/** Reads a run key back; undefined when it is not one. */
export function parseDebitRunKey(key: string): { year: number; quarter: Quarter } | undefined {
  const match = /^(\d{4})-Q([1-4])$/.exec(key);
  return match ? { year: Number(match[1]), quarter: Number(match[2]) as Quarter } : undefined;
}

/** One day's close of a custody account, as the custodian reported it. */
export interface Valuation {
  readonly asOf: IsoDate;
  readonly totalValue: string;
  readonly cash: string;
}

/** What the ledger knows of one insured custody account for one debit run. */
export interface AccountFacts {
  readonly accountNumber: string;
  readonly insuranceNumber: string;
  readonly kind: ProductKind;
  readonly insuredFrom: IsoDate;
  readonly insuredThrough?: IsoDate | undefined;
  /** SEK a year, from the insurance's fee history. */
  readonly annualFixedCharge: string;
  /** Percent a year, from the insurance's fee history. */
  readonly annualCapitalPercent: string;
  readonly birthDate: IsoDate;
  readonly coverages: readonly Coverage[];
  /** Deposits booked in the covered quarter. */
  readonly deposits: readonly Deposit[];
  /**
   * The account's valuations from the last one before the quarter through the last
   * one on or before the run date, in date order.
   */
  readonly valuations: readonly Valuation[];
  /** Yield taxes earlier runs held back for want of a rate and no run has debited yet. */
  readonly pendingTaxes?: readonly PendingTax[];
}

/** A yield tax line held back for want of its tax year's rate: its levy, the period it covers and why. */
export interface HeldTax extends HeldYieldTax {
  readonly periodFrom: IsoDate;
  readonly periodTo: IsoDate;
}

/** A tax an earlier run held back, not debited since. */
export interface PendingTax extends HeldTax {
  /** The run key of the run that held it back. */
  readonly heldBy: string;
}

/** A held-back tax this run debits now that its rate is known (amount '0.00': nothing to debit, but settled). */
export interface CaughtUpTax {
  readonly heldBy: string;
  readonly basis: YieldTaxBasis;
  readonly periodFrom: IsoDate;
  readonly periodTo: IsoDate;
  readonly amount: string;
}

/** AdvisorFee: an advisor firm's fee from its CommissionFile (src/core/advisor-fee-debit.ts), paid on to the firm. */
export type ChargeName = 'FixedCharge' | 'CapitalCharge' | 'RiskPremium' | 'YieldTax' | 'AdvisorFee';

export interface DebitLine {
  readonly charge: ChargeName;
  /** For YieldTax: what it is levied on. */
  readonly basis?: YieldTaxBasis;
  readonly amount: string;
  readonly periodFrom: IsoDate;
  readonly periodTo: IsoDate;
  /** For a yield tax an earlier run held back: that run's key. */
  readonly heldBy?: string;
}

export interface AccountDebit {
  readonly accountNumber: string;
  readonly insuranceNumber: string;
  readonly lines: readonly DebitLine[];
  readonly total: string;
  /** What must be sold so the cash covers the debit; undefined when it already does. */
  readonly sellOrder: string | undefined;
  /** False when a yield tax rate used is marked unconfirmed. */
  readonly rateConfirmed: boolean;
  /** Yield tax lines held back for want of a rate: not in the lines or the total. */
  readonly heldTax: readonly HeldTax[];
  /** Taxes earlier runs held back that this debit takes (in its lines when above zero). */
  readonly caughtUp: readonly CaughtUpTax[];
}

export interface HeldAccount {
  readonly accountNumber: string;
  readonly insuranceNumber: string;
  readonly reason: string;
}

export type AccountOutcome = { readonly debit: AccountDebit } | { readonly held: HeldAccount } | { readonly skipped: true };

/**
 * The value of each calendar day from `from` through `to`: the close of the latest
 * valuation on or before the day (a weekend or holiday carries the last banking day's
 * close). Days before the account's first valuation count as 0: the account held
 * nothing yet. Undefined when no valuation lies on or before `to`.
 */
export function dailyValues(valuations: readonly Valuation[], from: IsoDate, to: IsoDate): string[] | undefined {
  const sorted = [...valuations].sort((a, b) => a.asOf.localeCompare(b.asOf));
  if (!sorted.some((valuation) => valuation.asOf <= to)) return undefined;
  const values: string[] = [];
  let index = -1;
  for (let day = from; day <= to; day = addDays(day, 1)) {
    while (index + 1 < sorted.length && sorted[index + 1]!.asOf <= day) index++;
    values.push(index >= 0 ? sorted[index]!.totalValue : '0');
  }
  return values;
}

/** The latest valuation on or before a date. */
function valuationOn(valuations: readonly Valuation[], date: IsoDate): Valuation | undefined {
  return valuations.filter((valuation) => valuation.asOf <= date).sort((a, b) => b.asOf.localeCompare(a.asOf))[0];
}

/** Negative custody values (a trade settling) are counted as nothing held. */
function nonNegative(amount: string): string {
  return amount.startsWith('-') ? '0' : amount;
}

/** One account's outcome in the debit run covering `year` Q`quarter`. */
export function accountDebit(facts: AccountFacts, year: number, quarter: Quarter, yieldTaxRates?: YieldTaxRateTable): AccountOutcome {
  const { accountNumber, insuranceNumber } = facts;
  const span = quarterSpan({ year, quarter, insuredFrom: facts.insuredFrom, insuredThrough: facts.insuredThrough });
  if (span.insuredDays === 0 || span.firstInsuredDay === undefined) return { skipped: true };
  const insuredTo = facts.insuredThrough !== undefined && facts.insuredThrough < span.lastDay ? facts.insuredThrough : span.lastDay;
  const days = dailyValues(facts.valuations, span.firstInsuredDay, insuredTo);
  if (!days) return { held: { accountNumber, insuranceNumber, reason: `no custody values on or before ${insuredTo}` } };
  const yearEnd = quarter === 4 ? valuationOn(facts.valuations, span.lastDay) : undefined;
  let debit;
  try {
    debit = quarterDebit({
      kind: facts.kind, year, quarter, insuredFrom: facts.insuredFrom, insuredThrough: facts.insuredThrough,
      annualFixedCharge: facts.annualFixedCharge, annualCapitalPercent: facts.annualCapitalPercent,
      values: { dailyValues: days.map(nonNegative) }, birthDate: facts.birthDate, coverages: facts.coverages,
      deposits: facts.deposits, ...(quarter === 4 ? { yearEndValue: nonNegative(yearEnd?.totalValue ?? '0') } : {}),
      ...(yieldTaxRates ? { yieldTaxRates } : {}),
    });
  } catch (error) {
    if (error instanceof RangeError) return { held: { accountNumber, insuranceNumber, reason: error.message } };
    throw error;
  }
  const quarterPeriod = { periodFrom: span.firstInsuredDay, periodTo: insuredTo };
  const openingPeriod = { periodFrom: `${year + 1}-01-01`, periodTo: `${year + 1}-12-31` };
  const caught = catchUp(facts.pendingTaxes ?? [], yieldTaxRates);
  const candidates: DebitLine[] = [
    { charge: 'FixedCharge', amount: debit.fixedCharge, ...quarterPeriod },
    { charge: 'CapitalCharge', amount: debit.capitalCharge, ...quarterPeriod },
    { charge: 'RiskPremium', amount: debit.riskPremium, ...quarterPeriod },
    { charge: 'YieldTax', basis: 'Deposits', amount: debit.yieldTaxOnDeposits, ...quarterPeriod },
    { charge: 'YieldTax', basis: 'OpeningValue', amount: debit.yieldTaxOnOpeningValue, ...openingPeriod },
    ...caught.taxes.map(({ heldBy, basis, amount, periodFrom, periodTo }): DebitLine => ({ charge: 'YieldTax', basis, amount, periodFrom, periodTo, heldBy })),
  ];
  const lines = candidates.filter((line) => new Decimal(line.amount).greaterThan(0));
  const total = sumOre([debit.total, ...caught.taxes.map((tax) => tax.amount)]);
  const cash = valuationOn(facts.valuations, debitRunDate(year, quarter))?.cash ?? '0';
  const lacking = new Decimal(total).minus(Decimal.max(new Decimal(cash), 0));
  const heldTax = debit.heldYieldTax.map((held): HeldTax => ({ ...held, ...(held.basis === 'Deposits' ? quarterPeriod : openingPeriod) }));
  return {
    debit: {
      accountNumber, insuranceNumber, lines, total,
      sellOrder: lacking.greaterThan(0) ? lacking.toFixed(2) : undefined,
      rateConfirmed: debit.yieldTaxRateConfirmed && caught.rateConfirmed,
      heldTax, caughtUp: caught.taxes,
    },
  };
}

/** The pending taxes whose rate is known now, each at that rate; the others stay pending. */
function catchUp(pending: readonly PendingTax[], rates: YieldTaxRateTable | undefined): { taxes: CaughtUpTax[]; rateConfirmed: boolean } {
  const taxes: CaughtUpTax[] = [];
  let rateConfirmed = true;
  for (const tax of pending) {
    const part = levyYieldTax(tax, rates);
    if (!part) continue;
    taxes.push({ heldBy: tax.heldBy, basis: tax.basis, periodFrom: tax.periodFrom, periodTo: tax.periodTo, amount: part.amount });
    rateConfirmed &&= part.rateConfirmed;
  }
  return { taxes, rateConfirmed };
}

export interface DebitRunResult {
  readonly debits: readonly AccountDebit[];
  readonly held: readonly HeldAccount[];
}

/**
 * Every account's outcome in one debit run: the debits (those with lines, or with a
 * tax held back or settled) and the accounts held back.
 */
export function debitRun(accounts: readonly AccountFacts[], year: number, quarter: Quarter, yieldTaxRates?: YieldTaxRateTable): DebitRunResult {
  const debits: AccountDebit[] = [];
  const held: HeldAccount[] = [];
  for (const facts of accounts) {
    const outcome = accountDebit(facts, year, quarter, yieldTaxRates);
    if ('debit' in outcome && outcome.debit.lines.length + outcome.debit.heldTax.length + outcome.debit.caughtUp.length > 0) debits.push(outcome.debit);
    if ('held' in outcome) held.push(outcome.held);
  }
  return { debits, held };
}

/** The birth date a 12-digit personal identity number gives (a coordination number's day less 60). */
export function birthDateOf(personalIdentityNumber: string): IsoDate {
  const day = Number(personalIdentityNumber.slice(6, 8));
  return `${personalIdentityNumber.slice(0, 4)}-${personalIdentityNumber.slice(4, 6)}-${String(day > 60 ? day - 60 : day).padStart(2, '0')}`;
}

export type CoverageType = Coverage['type'];

/**
 * The coverages an insurance gets when nobody chose them (an InsurancePurchase, an
 * employee's insurance under a pension plan, the insurances from before coverages
 * were recorded): repayment protection on every capital insurance (docs/domain.md), none
 * on P and T. An insurance application names its own.
 */
export function standardCoverages(kind: ProductKind): CoverageType[] {
  return kind === 'K' ? ['repaymentProtection'] : [];
}

/**
 * The day payout begins: the first day of the payout's first month (`payouts.start_month`,
 * 'YYYY-MM'). Repayment protection ends the day before: its death benefit is due only
 * when the insured dies before payout begins, so from that day on it is neither in
 * force nor charged.
 */
export function payoutBeginsOn(startMonth: string): IsoDate {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(startMonth)) throw new RangeError(`not a month YYYY-MM: ${startMonth}`);
  return `${startMonth}-01`;
}

/**
 * The coverages an insurance carries in a quarter, as the charges engine prices them.
 * A premium waiver is priced on the savings premiums due in the quarter: the monthly
 * premium (in force at the quarter's end; none, or a paid-up insurance: 0) once for
 * each month of the quarter with a day in force. Repayment protection is priced only
 * for the days before payout begins (`payoutStartMonth`, the payout's first month).
 */
export function coveragesInQuarter(types: readonly CoverageType[], monthlyPremium: string | undefined, period: QuarterPeriod, payoutStartMonth?: string): Coverage[] {
  return types.map((type): Coverage => {
    switch (type) {
      case 'repaymentProtection':
        return payoutStartMonth === undefined ? { type } : { type, through: addDays(payoutBeginsOn(payoutStartMonth), -1) };
      case 'premiumWaiver':
        return { type, premiums: new Decimal(monthlyPremium ?? '0').times(monthsInForce(period)).toFixed(2) };
      default:
        return type satisfies never;
    }
  });
}

/** How many months of the quarter have at least one day in force. */
function monthsInForce(period: QuarterPeriod): number {
  const { firstDay } = quarterSpan(period);
  let months = 0;
  for (let month = 0; month < 3; month++) {
    const start = addMonths(firstDay, month);
    const end = addDays(addMonths(firstDay, month + 1), -1);
    const from = period.insuredFrom !== undefined && period.insuredFrom > start ? period.insuredFrom : start;
    const through = period.insuredThrough !== undefined && period.insuredThrough < end ? period.insuredThrough : end;
    if (from <= through) months++;
  }
  return months;
}

/** The first of the month `months` after the first of a month. */
function addMonths(firstOfMonth: IsoDate, months: number): IsoDate {
  const index = Number(firstOfMonth.slice(0, 4)) * 12 + Number(firstOfMonth.slice(5, 7)) - 1 + months;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-01`;
}
