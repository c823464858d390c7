import { Decimal } from 'decimal.js';
import type { IsoDate } from './calendar-date.ts';
import type { RuleRejection } from './plan-rules.ts';

/**
 * Rules of a custodian's yearly CostAndCharges report that need no I/O.
 *
 * - The three cost categories (InvestmentServices, ThirdPartyPayments,
 *   InvestmentProductCost) must sum exactly, to the öre, to the account's total costs
 *   after any refund or discount: categories = TotalCosts − Refund. When they do not,
 *   the rejection states both sums and the difference, so the custodian can find the
 *   error without asking us.
 * - The reported year must be a finished year, and not older than
 *   `MAX_COST_REPORT_AGE_YEARS` before the current one: costs are reported in
 *   March–April for the previous year, and a correction of a few years back is
 *   plausible, a year that has not ended is not.
 *
 * Amounts are decimal strings (any xs:decimal lexical form) and are computed with
 * decimal.js, never a JS number.
 */

/** How many years back a CostAndCharges report may reach (the previous year is 1 back). */
export const MAX_COST_REPORT_AGE_YEARS = 5;

/** One account's reported costs for one year, amounts in SEK as decimal strings. */
export interface AccountCosts {
  readonly investmentServices: string;
  readonly thirdPartyPayments: string;
  readonly investmentProductCost: string;
  /** Refund or discount given back on the costs; absent means none. */
  readonly refund?: string;
  readonly totalCosts: string;
}

/** The amounts of an account as the ledger stores them: two decimals each, refund 0.00 when absent. */
export interface NormalisedCosts {
  readonly investmentServices: string;
  readonly thirdPartyPayments: string;
  readonly investmentProductCost: string;
  readonly refund: string;
  readonly totalCosts: string;
}

const XS_DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

function amount(value: string, what: string): Decimal {
  const trimmed = value.trim();
  if (!XS_DECIMAL.test(trimmed)) throw new RangeError(`${what} must be a decimal amount such as '1234.50', not '${value}'`);
  return new Decimal(trimmed);
}

function ore(value: Decimal): string {
  // Adding zero turns a negative zero into zero, so "-0.00" never reaches a text.
  return value.plus(0).toFixed(2);
}

/** The account's amounts rounded to two decimals (the schema allows no more), refund 0.00 when absent. */
export function normaliseCosts(costs: AccountCosts): NormalisedCosts {
  return {
    investmentServices: ore(amount(costs.investmentServices, 'InvestmentServices')),
    thirdPartyPayments: ore(amount(costs.thirdPartyPayments, 'ThirdPartyPayments')),
    investmentProductCost: ore(amount(costs.investmentProductCost, 'InvestmentProductCost')),
    refund: ore(amount(costs.refund ?? '0', 'Refund')),
    totalCosts: ore(amount(costs.totalCosts, 'TotalCosts')),
  };
}

/**
 * The sum rule: InvestmentServices + ThirdPartyPayments + InvestmentProductCost must
 * equal TotalCosts − Refund. The rejection's text reads, for example, "InvestmentServices
 * 120.00 + ThirdPartyPayments 30.00 + InvestmentProductCost 800.00 = 950.00, but TotalCosts
 * 1000.00 − Refund 40.00 = 960.00: the categories are 10.00 short."
 */
export function checkCostCategories(costs: AccountCosts): RuleRejection | undefined {
  const services = amount(costs.investmentServices, 'InvestmentServices');
  const thirdParty = amount(costs.thirdPartyPayments, 'ThirdPartyPayments');
  const product = amount(costs.investmentProductCost, 'InvestmentProductCost');
  const refund = amount(costs.refund ?? '0', 'Refund');
  const total = amount(costs.totalCosts, 'TotalCosts');
  const categories = services.plus(thirdParty).plus(product);
  const net = total.minus(refund);
  const difference = categories.minus(net);
  if (difference.isZero()) return undefined;
  const direction = difference.isNegative() ? 'short' : 'over';
  return {
    code: 'COST_CATEGORIES_MISMATCH',
    text:
      `InvestmentServices ${ore(services)} + ThirdPartyPayments ${ore(thirdParty)} + ` +
      `InvestmentProductCost ${ore(product)} = ${ore(categories)}, but TotalCosts ${ore(total)} − Refund ${ore(refund)} = ${ore(net)}: ` +
      `the categories are ${ore(difference.abs())} ${direction}.`,
  };
}

/**
 * The year rule: a report covers a finished year, at most `MAX_COST_REPORT_AGE_YEARS`
 * back from today's year. Rejects the whole report (the year is the report's, not an
 * account's).
 */
export function checkCostReportYear(year: number, today: IsoDate): RuleRejection | undefined {
  const current = Number(today.slice(0, 4));
  const latest = current - 1;
  const earliest = current - MAX_COST_REPORT_AGE_YEARS;
  if (year > latest) {
    return {
      code: 'REPORT_YEAR_OUT_OF_RANGE',
      text: `Year ${year} has not ended yet (today is ${today}): report the costs of a year after it ends; the latest year accepted now is ${latest}.`,
    };
  }
  if (year < earliest) {
    return {
      code: 'REPORT_YEAR_OUT_OF_RANGE',
      text: `Year ${year} is more than ${MAX_COST_REPORT_AGE_YEARS} years back; years ${earliest}–${latest} are accepted now.`,
    };
  }
  return undefined;
}

/** A custody account's open period, as the ledger has it. */
export interface AccountPeriod {
  readonly openedOn: IsoDate;
  readonly closedOn: IsoDate | null;
}

/** An account can only have costs for a year it was open in, at least one day. */
export function checkAccountOpenInYear(accountNumber: string, period: AccountPeriod, year: number): RuleRejection | undefined {
  const first = `${year}-01-01`;
  const last = `${year}-12-31`;
  if (period.openedOn > last) {
    return { code: 'CUSTODY_ACCOUNT_UNKNOWN', text: `Custody account ${accountNumber} was opened on ${period.openedOn}, after ${year}: it has no costs for that year.` };
  }
  if (period.closedOn !== null && period.closedOn < first) {
    return { code: 'CUSTODY_ACCOUNT_UNKNOWN', text: `Custody account ${accountNumber} was closed on ${period.closedOn}, before ${year}: it has no costs for that year.` };
  }
  return undefined;
}
