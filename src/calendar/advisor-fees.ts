import { cashOn, withAdvisorFees } from '../core/advisor-fee-debit.ts';
import type { IsoDate } from '../core/calendar-date.ts';
import type { AccountDebit, DebitRunResult, Valuation } from '../core/debit-run.ts';
import type { GatewayConfig } from '../config/config.schema.ts';
import type { Sql } from '../ledger/database.ts';
import { pendingAdvisorFees } from '../ledger/custody/commission.repository.ts';

/**
 * A debit run's advisor fees (docs/commission.md): the commission lines accepted from
 * advisor firms' CommissionFiles and not yet taken, added as AdvisorFee lines to the
 * debits of their insurances' accounts (src/core/advisor-fee-debit.ts). The lines are
 * read locked in the run's transaction; the run marks the ones it debits
 * (markAdvisorFeesOrdered) with its row, so no two runs take one fee, and a run that
 * stores nothing takes none. A fee of an account the run holds back or does not debit
 * waits for a later run.
 */
export interface RunWithAdvisorFees extends DebitRunResult {
  /** The fees the run debits, by commission line. */
  readonly ordered: readonly { readonly lineId: string; readonly accountNumber: string; readonly amount: string }[];
  readonly waiting: readonly { readonly lineId: string; readonly insuranceNumber: string; readonly reason: string }[];
}

export async function withAdvisorFeesOf(
  sql: Sql, result: DebitRunResult,
  run: { readonly valuations: ReadonlyMap<string, readonly Valuation[]>; readonly lastDay: IsoDate; readonly runDate: IsoDate; readonly lock: boolean },
): Promise<RunWithAdvisorFees> {
  const fees = await pendingAdvisorFees(sql, result.debits.map((debit) => debit.insuranceNumber), run.lastDay, run.runDate, { lock: run.lock });
  const debits: AccountDebit[] = [];
  const ordered: RunWithAdvisorFees['ordered'][number][] = [];
  const waiting: RunWithAdvisorFees['waiting'][number][] = [];
  for (const debit of result.debits) {
    const own = fees.get(debit.insuranceNumber) ?? [];
    const outcome = withAdvisorFees(debit, own, cashOn(run.valuations.get(debit.accountNumber) ?? [], run.runDate));
    debits.push(outcome.debit);
    ordered.push(...outcome.ordered.map((line) => ({ ...line, accountNumber: debit.accountNumber })));
    waiting.push(...outcome.waiting.map((line) => ({ ...line, insuranceNumber: debit.insuranceNumber })));
  }
  return { debits, held: result.held, ordered, waiting };
}

/** An advisor firm as a configured counterparty: where its statement goes and its commission is paid. */
export interface AdvisorFirmCounterparty {
  readonly counterpartyId: string;
  readonly name: string;
  readonly iban: string | undefined;
}

/** The configured advisor firms by organisation number, from the counterparties. */
export function advisorFirmDirectory(counterparties: readonly GatewayConfig['counterparties'][number][]): Map<string, AdvisorFirmCounterparty> {
  return new Map(counterparties.filter((c) => c.role === 'advisor-firm').map((c) => [c.organisationNumber, { counterpartyId: c.id, name: c.name, iban: c.commissionIban }]));
}
