import { Decimal } from 'decimal.js';
import type { IsoDate } from './calendar-date.ts';
import { sumOre } from './charges/money.ts';
import { feeAmount, type CommissionFee } from './commission.rules.ts';
import type { AccountDebit, DebitLine, Valuation } from './debit-run.ts';

/**
 * An account's advisor fees in a debit run: the accepted commission lines of its
 * insurance (docs/commission.md) join the account's debit as AdvisorFee lines, with the
 * period each fee is for, and the sell order grows by what the cash then lacks. Pure.
 *
 * Invariants:
 * - an Amount fee is debited as reported; a Percent fee on the custody value the ledger
 *   holds for the period's end (or the run date, when earlier), rounded once half up;
 * - a Percent fee with no custody value yet waits, with the reason, for a later run,
 *   never a guess; a fee that comes to 0.00 waits too (nothing to debit or pay);
 * - the sell order stays exactly what the cash lacks: the new total − cash on the run
 *   date (below zero counts as zero).
 */

export interface AdvisorFeeToDebit {
  readonly lineId: string;
  readonly insuranceNumber: string;
  readonly periodFrom: IsoDate;
  readonly periodTo: IsoDate;
  readonly fee: CommissionFee;
  readonly custodyValue: string | undefined;
}

export interface AdvisorFeesOutcome {
  readonly debit: AccountDebit;
  readonly ordered: readonly { readonly lineId: string; readonly amount: string }[];
  readonly waiting: readonly { readonly lineId: string; readonly reason: string }[];
}

/** The cash of the latest valuation on or before `date` ('0' without one). */
export function cashOn(valuations: readonly Valuation[], date: IsoDate): string {
  return [...valuations].filter((v) => v.asOf <= date).sort((a, b) => b.asOf.localeCompare(a.asOf))[0]?.cash ?? '0';
}

export function withAdvisorFees(debit: AccountDebit, fees: readonly AdvisorFeeToDebit[], cash: string): AdvisorFeesOutcome {
  const lines: DebitLine[] = [];
  const ordered: { lineId: string; amount: string }[] = [];
  const waiting: { lineId: string; reason: string }[] = [];
  for (const fee of fees) {
    const amount = feeAmount(fee.fee, fee.custodyValue);
    if (amount === undefined) {
      waiting.push({ lineId: fee.lineId, reason: `no custody value on or before ${fee.periodTo} for a fee in percent` });
    } else if (!new Decimal(amount).greaterThan(0)) {
      waiting.push({ lineId: fee.lineId, reason: 'the fee comes to 0.00' });
    } else {
      lines.push({ charge: 'AdvisorFee', amount, periodFrom: fee.periodFrom, periodTo: fee.periodTo });
      ordered.push({ lineId: fee.lineId, amount });
    }
  }
  if (lines.length === 0) return { debit, ordered, waiting };
  const total = sumOre([debit.total, ...lines.map((line) => line.amount)]);
  const lacking = new Decimal(total).minus(Decimal.max(new Decimal(cash), 0));
  return {
    debit: { ...debit, lines: [...debit.lines, ...lines], total, sellOrder: lacking.greaterThan(0) ? lacking.toFixed(2) : undefined },
    ordered, waiting,
  };
}
