import type { Logger } from 'pino';
import { debitRunDate, debitRunsOf, type Quarter } from '../core/banking-calendar.ts';
import { stockholmDate } from '../core/calendar-date.ts';
import { quarterSpan } from '../core/charges/quarter-span.ts';
import { withConfiguredRates, type YieldTaxRateTable } from '../core/charges/yield-tax-rates.ts';
import type { GatewayConfig } from '../config/config.schema.ts';
import { birthDateOf, coveragesInQuarter, debitRun, debitRunKey, parseDebitRunKey, type AccountDebit, type CaughtUpTax, type HeldAccount } from '../core/debit-run.ts';
import type { Database, Sql } from '../ledger/database.ts';
import {
  custodiansDone, depositsOf, insertLines, insertRun, insuredAccounts, lockRun, undeliveredRunDocuments, valuationsOf, type StoredLine,
} from '../ledger/custody/debit-runs.repository.ts';
import { markHeldTaxesDebited, pendingHeldTaxes, recordHeldTaxes, type HeldTaxOfAccount } from '../ledger/custody/held-yield-taxes.repository.ts';
import { coveragesOn, monthlyPremiumsOn } from '../ledger/plan/insurance-coverages.repository.ts';
import { markAdvisorFeesOrdered } from '../ledger/custody/commission.repository.ts';
import { deliveryTargetsOf } from '../ledger/messages/outgoing-documents.repository.ts';
import { DEBIT_ACCOUNTS, debitAccountsXml, type DebitAccountsAccount, type DebitAccountsRun } from '../messages/debit-accounts.document.ts';
import { advisorFirmDirectory, withAdvisorFeesOf, type AdvisorFirmCounterparty } from './advisor-fees.ts';
import type { CalendarJob } from './calendar.scheduler.ts';
import { outgoingDeliveryKey } from '../pipeline/deliver-outgoing.ts';
import type { StageScheduler } from '../pipeline/pipeline-deps.ts';
import { waitingAt, withoutSwitching } from './custodian-switch-runs.ts';

/**
 * The quarterly debit run: reads each insured custody account's facts, asks the pure
 * debit run (src/core/debit-run.ts) what to debit, and stores the lines and one
 * DebitAccounts document per custodian — its bytes, counterparty and file name — in
 * the caller's transaction. Once that has committed, the run's undelivered documents
 * are handed to the deliver stage (deliver-outgoing.ts), which sends them as it sends
 * responses: retried with backoff, every attempt recorded, replayable.
 *
 * Invariants:
 * - one run key (`2026-Q3`, the quarter covered) and custodian give at most one
 *   document: everything happens in the caller's transaction under the run key's
 *   advisory lock, and a custodian that already has its row is skipped, so a repeat
 *   (CLI re-run, a scheduler fire, a retry) produces nothing new;
 * - nothing leaves the gateway inside the transaction: a run that rolls back has sent
 *   nothing, and a committed one has recorded exactly the bytes and the file name
 *   (`debit-run-<run>.DebitAccounts.xml`, id `DA-<run>-<custodian>`) that are
 *   delivered — after a crash between commit and delivery, the deliver queue, the
 *   reconciler or the run made again deliver that same file, never a new one;
 * - a custodian whose accounts are all held back gets no row and no file: the run
 *   made again (CLI) once its values are in produces the file;
 * - an insurance that has ended (insurances.end_date) is charged to its end date and
 *   is not read at all by the runs of the quarters after it;
 * - the risk premium is charged for the coverages the insurance carries at the
 *   quarter's end (insurance_coverages), whatever its product kind; repayment
 *   protection only for the days before the payout's first month (payouts);
 * - a yield tax line whose tax year has no rate is held back alone (held_yield_taxes,
 *   with the reason) and the rest of the account debited; the first later run that
 *   knows the rate debits it and marks it in its own transaction, the rows locked
 *   while it decides, so no two runs take the same held tax.
 */

/** What a run needs besides the transaction. */
export interface RunDeps {
  /** Configured custodian counterparties by id: their organisation numbers go in the header. */
  readonly custodians: ReadonlyMap<string, { readonly organisationNumber: string }>;
  /** The insurer's organisation number. */
  readonly insurerOrganisationNumber: string;
  /** Where the run's documents are handed for delivery once the run has committed: the deliver stage. */
  readonly scheduler: StageScheduler;
  readonly log: Logger;
  /** Default: the built-in table (YIELD_TAX_RATES); with the configuration's rates, withConfiguredRates. */
  readonly yieldTaxRates?: YieldTaxRateTable;
  /** The insurer's own account, which payout runs put its payments (a death benefit's 1 %) in payment orders from; none: they wait. */
  readonly insurerAccount?: GatewayConfig['insurerAccount'];
  /** The advisor-firm counterparties the monthly commission payment pays (commission-payments.job.ts). */
  readonly advisorFirms?: ReadonlyMap<string, AdvisorFirmCounterparty>;
}

export interface CustodianRunSummary {
  readonly custodianId: string;
  readonly documentId: string | undefined;
  readonly fileName: string | undefined;
  readonly accounts: number;
  readonly total: string;
  readonly held: readonly HeldAccount[];
  /** Debit runs: yield tax lines held back for want of their rate (not in the total). */
  readonly heldTax?: readonly HeldTaxOfAccount[];
  /** Debit runs: yield taxes earlier runs held back, debited by this one (in the total). */
  readonly caughtUpTax?: readonly (CaughtUpTax & { readonly insuranceNumber: string; readonly accountNumber: string })[];
}

export interface RunSummary {
  readonly runKey: string;
  readonly runDate: string;
  /** Custodians this call produced a document (or a held-only row) for; empty on a repeat. */
  readonly created: readonly CustodianRunSummary[];
  /** The run key's recorded documents not delivered yet: new ones, and ones an earlier run left undelivered. */
  readonly undelivered: readonly string[];
  /** With dryRun: the documents that would be made, not stored. */
  readonly documents?: readonly { readonly custodianId: string; readonly body: string }[];
}

/** A run made and handed to the deliver stage (makeRun). */
export interface RunOutcome extends RunSummary {
  /** Documents delivered by the time makeRun returned, with where they went. */
  readonly delivered: readonly { readonly documentId: string; readonly target: string }[];
}

/** The runs' dependencies from the configuration: the custodians, the insurer's number, the yield tax rates. */
export function runDepsFrom(
  config: Pick<GatewayConfig, 'counterparties' | 'ssek' | 'charges' | 'insurerAccount'>, scheduler: StageScheduler, log: Logger,
): RunDeps {
  return {
    custodians: custodianDirectory(config.counterparties), insurerOrganisationNumber: config.ssek.organisationNumber, scheduler, log,
    yieldTaxRates: withConfiguredRates(config.charges.yieldTaxRates), ...(config.insurerAccount ? { insurerAccount: config.insurerAccount } : {}),
    advisorFirms: advisorFirmDirectory(config.counterparties),
  };
}

/** The configured custodians by id, from the counterparties. */
export function custodianDirectory(counterparties: Iterable<{ id: string; role: string; organisationNumber: string }>): Map<string, { organisationNumber: string }> {
  return new Map([...counterparties].filter((c) => c.role === 'custodian').map((c) => [c.id, { organisationNumber: c.organisationNumber }]));
}

export function documentIdOf(runKey: string, custodianId: string): string {
  return `DA-${runKey}-${custodianId}`;
}

export interface DebitRunOptions {
  readonly dryRun?: boolean;
  /** Orders one insurance's lines that waited for its custodian switch, at its new custodian, under the run key `<run key>-<switch id>`. */
  readonly caughtUp?: { readonly insuranceNumber: string; readonly switchId: string };
}

/** Runs (or, with dryRun, only computes) the debit run covering `year` Q`quarter`, inside the caller's transaction. */
export async function runDebitRun(sql: Sql, deps: RunDeps, covered: { year: number; quarter: Quarter }, now: Date, options: DebitRunOptions = {}): Promise<RunSummary> {
  const { year, quarter } = covered;
  const runKey = options.caughtUp ? `${debitRunKey(year, quarter)}-${options.caughtUp.switchId}` : debitRunKey(year, quarter);
  const runDate = debitRunDate(year, quarter);
  await lockRun(sql, runKey);
  const done = await custodiansDone(sql, runKey);
  const span = quarterSpan({ year, quarter });
  const insured = (await insuredAccounts(sql, span.firstDay, span.lastDay, done)).filter((row) => !options.caughtUp || row.insuranceNumber === options.caughtUp.insuranceNumber);
  // An insurance whose custodian is being switched waits (custodian-switch-runs.ts).
  const { rows, waiting } = await withoutSwitching(sql, insured, { runKey, kind: 'debit', now, dryRun: options.dryRun === true });
  const accountNumbers = rows.map((row) => row.accountNumber);
  const valuations = await valuationsOf(sql, accountNumbers, span.firstDay, runDate > span.lastDay ? runDate : span.lastDay);
  const deposits = await depositsOf(sql, accountNumbers, span.firstDay, span.lastDay);
  const insuranceNumbers = rows.map((row) => row.insuranceNumber);
  const coverages = await coveragesOn(sql, insuranceNumbers, span.lastDay);
  const monthlyPremiums = await monthlyPremiumsOn(sql, insuranceNumbers, span.lastDay);
  const pendingTaxes = await pendingHeldTaxes(sql, insuranceNumbers, runKey, { lock: options.dryRun !== true });

  const created: CustodianRunSummary[] = [];
  const documents: { custodianId: string; body: string }[] = [];
  for (const custodianId of [...new Set(rows.map((row) => row.custodianId))]) {
    const custodian = deps.custodians.get(custodianId);
    const own = rows.filter((row) => row.custodianId === custodianId);
    if (!custodian) {
      deps.log.warn({ runKey, custodianId, accounts: own.length }, 'debit run: custody accounts at a custodian that is not a configured counterparty; not debited');
      continue;
    }
    const unpriced = own.filter((row) => row.annualCapitalPercent === null);
    const result = await withAdvisorFeesOf(sql, debitRun(
      own.filter((row) => row.annualCapitalPercent !== null).map((row) => ({
        accountNumber: row.accountNumber, insuranceNumber: row.insuranceNumber, kind: row.kind, insuredFrom: row.startDate, insuredThrough: row.endDate ?? undefined,
        annualFixedCharge: row.annualFixedCharge ?? '360', annualCapitalPercent: row.annualCapitalPercent ?? '0',
        birthDate: birthDateOf(row.insuredPin),
        coverages: coveragesInQuarter(coverages.get(row.insuranceNumber) ?? [], monthlyPremiums.get(row.insuranceNumber), {
          year, quarter, insuredFrom: row.startDate, insuredThrough: row.endDate ?? undefined,
        }, row.payoutStartMonth ?? undefined),
        deposits: deposits.get(row.accountNumber) ?? [], valuations: valuations.get(row.accountNumber) ?? [],
        pendingTaxes: pendingTaxes.get(row.insuranceNumber) ?? [],
      })),
      year, quarter, deps.yieldTaxRates,
    ), { valuations, lastDay: span.lastDay, runDate, lock: options.dryRun !== true });
    if (result.waiting.length > 0) deps.log.warn({ runKey, custodianId, waiting: result.waiting }, 'debit run: advisor fees wait for a later run');
    const held = [...result.held, ...unpriced.map((row) => ({ accountNumber: row.accountNumber, insuranceNumber: row.insuranceNumber, reason: 'no capital charge in the fee history' })), ...waitingAt(waiting, custodianId)];
    if (held.length > 0) deps.log.warn({ runKey, custodianId, held }, 'debit run: accounts held back');
    if (result.debits.some((debit) => !debit.rateConfirmed)) deps.log.warn({ runKey, custodianId }, 'debit run: a yield tax rate used is unconfirmed');
    const ofAccount = (debit: AccountDebit) => ({ insuranceNumber: debit.insuranceNumber, accountNumber: debit.accountNumber });
    const heldTax = result.debits.flatMap((debit) => debit.heldTax.map((tax) => ({ ...ofAccount(debit), ...tax })));
    const caughtUpTax = result.debits.flatMap((debit) => debit.caughtUp.map((tax) => ({ ...ofAccount(debit), ...tax })));
    if (heldTax.length > 0) deps.log.warn({ runKey, custodianId, heldTax: heldTax.map(({ accountNumber, basis, taxYear, reason }) => ({ accountNumber, basis, taxYear, reason })) }, 'debit run: yield tax held back for want of its rate');
    const debited = result.debits.filter((debit) => debit.lines.length > 0);
    const summary = await storeCustodianRun(sql, deps, {
      runKey, custodianId, custodianOrganisationNumber: custodian.organisationNumber, runDate, now,
      run: { kind: 'debit', year, quarter, runDate },
      accounts: debited.map((debit) => accountOf(debit, runDate)),
      lines: debited.flatMap((debit) => linesOf(debit, runDate)),
      held, dryRun: options.dryRun === true, fileName: `debit-run-${runKey}.${DEBIT_ACCOUNTS}.xml`,
    });
    // With the run's row: a run that stores no row (nothing to send) holds and takes nothing, and is made again whole.
    if (!options.dryRun && summary.documentId) {
      await recordHeldTaxes(sql, runKey, custodianId, heldTax);
      await markHeldTaxesDebited(sql, runKey, custodianId, caughtUpTax);
      await markAdvisorFeesOrdered(sql, runKey, custodianId, result.ordered);
    }
    created.push({ ...summary, total: sumTotals(debited), heldTax, caughtUpTax });
    if (summary.body) documents.push({ custodianId, body: summary.body });
  }
  if (options.dryRun) return { runKey, runDate, created, undelivered: [], documents };
  return { runKey, runDate, created, undelivered: await undeliveredRunDocuments(sql, runKey) };
}

function accountOf(debit: AccountDebit, runDate: string): DebitAccountsAccount {
  return {
    accountNumber: debit.accountNumber, insuranceNumber: debit.insuranceNumber, debits: debit.lines,
    sellOrders: debit.sellOrder ? [{ reason: 'Debit', amount: debit.sellOrder, sellBy: runDate }] : [],
  };
}

function linesOf(debit: AccountDebit, runDate: string): StoredLine[] {
  const lines: StoredLine[] = debit.lines.map((line) => ({ ...line, accountNumber: debit.accountNumber, insuranceNumber: debit.insuranceNumber }));
  if (debit.sellOrder) lines.push({ accountNumber: debit.accountNumber, insuranceNumber: debit.insuranceNumber, charge: 'SellOrder', amount: debit.sellOrder, periodFrom: runDate, periodTo: runDate });
  return lines;
}

function sumTotals(debits: readonly AccountDebit[]): string {
  // Öre as integers: every total is already exact to the öre.
  const ore = debits.reduce((sum, debit) => sum + BigInt(debit.total.replace('.', '')), 0n);
  const text = ore.toString().padStart(3, '0');
  return `${text.slice(0, -2)}.${text.slice(-2)}`;
}

/** Builds and (unless dryRun) stores one custodian's run row, lines and document. */
export async function storeCustodianRun(
  sql: Sql,
  deps: RunDeps,
  input: {
    runKey: string; custodianId: string; custodianOrganisationNumber: string; runDate: string; now: Date; run: DebitAccountsRun;
    accounts: readonly DebitAccountsAccount[]; lines: readonly StoredLine[]; held: readonly HeldAccount[]; dryRun: boolean; fileName: string;
  },
): Promise<Omit<CustodianRunSummary, 'total'> & { body: string | undefined }> {
  const { runKey, custodianId, now } = input;
  const documentId = input.accounts.length > 0 ? documentIdOf(runKey, custodianId) : undefined;
  const body = documentId
    ? debitAccountsXml({
        messageId: documentId, createdAt: now, insurerOrganisationNumber: deps.insurerOrganisationNumber,
        custodianOrganisationNumber: input.custodianOrganisationNumber, run: input.run, accounts: input.accounts,
      })
    : undefined;
  const fileName = documentId ? input.fileName : undefined;
  // Nothing to send (every account held back, or nothing owed): no row, so the run made
  // again once the custodian's values are in still produces the custodian's file.
  if (!input.dryRun && documentId) {
    await insertRun(sql, {
      runKey, custodianId, kind: input.run.kind, runDate: input.runDate, held: input.held, createdAt: now,
      document: documentId && body && fileName ? { documentId, documentType: DEBIT_ACCOUNTS, fileName, body } : undefined,
    });
    await insertLines(sql, runKey, custodianId, input.lines);
  }
  return { custodianId, documentId, fileName, accounts: input.accounts.length, held: input.held, body };
}

/**
 * Hands recorded documents to the deliver stage, one job each (its key is its job id,
 * so the reconciler putting it back too makes no second job). Call it after the run's
 * transaction has committed. A hand-over that fails (Redis away; in-process, the
 * delivery itself) is logged: the document stays recorded and undelivered, and the
 * reconciler or the run made again hands it over later.
 */
export async function handOverRunDocuments(deps: Pick<RunDeps, 'scheduler' | 'log'>, documentIds: readonly string[]): Promise<void> {
  for (const documentId of documentIds) {
    try {
      await deps.scheduler.enqueue('deliver', [outgoingDeliveryKey(documentId)], { separately: true });
    } catch (error) {
      deps.log.warn({ documentId, err: (error as Error).message }, 'run document not delivered yet; it stays recorded and is delivered later');
    }
  }
}

/**
 * Makes a run (runDebitRun, runPayoutRun) in a transaction of its own and, once it has
 * committed, hands its undelivered documents to the deliver stage: what an operator's
 * command does. With the in-process scheduler the documents are delivered before this
 * returns; `delivered` says which, with where they went.
 */
export async function makeRun(db: Database, deps: Pick<RunDeps, 'scheduler' | 'log'>, run: (tx: Sql) => Promise<RunSummary>): Promise<RunOutcome> {
  const summary = await db.transaction(run);
  await handOverRunDocuments(deps, summary.undelivered);
  const targets = await deliveryTargetsOf(db, summary.undelivered);
  return {
    ...summary,
    undelivered: summary.undelivered.filter((id) => !targets.has(id)),
    delivered: [...targets].map(([documentId, target]) => ({ documentId, target })),
  };
}

// ---- Calendar job ------------------------------------------------------------------

export const DEBIT_RUN_JOB = 'debit-runs';
/** Wakes the job each weekday morning; it runs a debit run once its run date has come. */
export const DEBIT_RUN_PATTERNS = ['0 6 * * 1-5'] as const;
/** How many of the latest debit runs a start after an outage still makes. */
export const DEFAULT_DEBIT_CATCH_UP_RUNS = 2;

/** The debit runs as a calendar job: a period is the run key of the quarter covered, due on its run date (Stockholm). */
export function debitRunJob(deps: RunDeps & { readonly catchUpRuns?: number }): CalendarJob {
  return {
    name: DEBIT_RUN_JOB,
    patterns: DEBIT_RUN_PATTERNS,
    duePeriods(now) {
      const today = stockholmDate(now);
      const year = Number(today.slice(0, 4));
      const due = [...debitRunsOf(year - 1), ...debitRunsOf(year)].filter((run) => run.runDate <= today);
      return due.slice(-(deps.catchUpRuns ?? DEFAULT_DEBIT_CATCH_UP_RUNS)).map((run) => debitRunKey(run.coveredYear, run.coveredQuarter));
    },
    async run({ sql, period, firedAt, afterCommit }) {
      const covered = parseDebitRunKey(period);
      if (!covered) throw new RangeError(`not a debit run key: ${period}`);
      const { undelivered } = await runDebitRun(sql, deps, covered, firedAt);
      afterCommit(() => handOverRunDocuments(deps, undelivered));
    },
  };
}
