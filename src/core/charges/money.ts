import { Decimal } from 'decimal.js';

/**
 * Money and rates for the charges engine: decimal strings in, decimal strings in SEK
 * out, never a JS number in between.
 *
 * Every charge is computed exactly and rounded once, to öre with ROUND_HALF_UP, at its
 * end. Exactly, because each charge multiplies first and divides once, last: decimal.js
 * divides correctly rounded, so a quotient that is exactly half an öre stays exactly
 * half an öre and rounds up. The 50 significant digits keep every product before that
 * division exact for any amount a custody account can hold.
 */
const Exact = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_UP });

// Plain decimals only: decimal.js would also read '1e3', '0x10' and 'Infinity', none of
// which is an amount any of our documents or tables carries.
const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;

/** A non-negative decimal string as an exact Decimal; `what` names it in the error. */
export function decimal(value: string, what: string): Decimal {
  if (!PLAIN_DECIMAL.test(value)) throw new RangeError(`${what} must be a non-negative decimal string such as '1234.50', not '${value}'`);
  return new Exact(value);
}

/** A whole number as an exact Decimal (day counts, months). */
export function whole(value: number): Decimal {
  return new Exact(value);
}

/** Rounds a charge to öre, half up, as the string the ledger and the statement show. */
export function toOre(amount: Decimal): string {
  return amount.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
}

/** Adds amounts already rounded to öre; the sum is exact, so it needs no rounding. */
export function sumOre(amounts: readonly string[]): string {
  return amounts.reduce((sum, amount) => sum.plus(amount), new Exact(0)).toFixed(2);
}
