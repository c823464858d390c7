import { payoutDeadline } from '../core/banking-calendar.ts';
import { stockholmDate } from '../core/calendar-date.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { addMonths, nextInstallment, requireYearMonth, type Installment, type PayoutTerms, type YearMonth } from '../core/payout-plan.ts';
import type { Sql } from '../ledger/database.ts';
import { custodiansDone, lockRun, undeliveredRunDocuments, type StoredLine } from '../ledger/custody/debit-runs.repository.ts';
import { dueDeathBenefits, markDeathBenefitsOrdered } from '../ledger/plan/death-benefits.repository.ts';
import { endInsurance } from '../ledger/plan/insurance-end.repository.ts';
import { DEBIT_ACCOUNTS, type DebitAccountsAccount } from '../messages/debit-accounts.document.ts';
import type { CalendarJob } from './calendar.scheduler.ts';
import { deathBenefitOrderDays, deathBenefitOrders } from './death-benefit-orders.ts';
import { orderInsurerShares } from './death-benefit-payments.ts';
import { waitingAt, withoutSwitching } from './custodian-switch-runs.ts';
import { handOverRunDocuments, storeCustodianRun, type CustodianRunSummary, type RunDeps, type RunSummary } from './debit-run.ts';

/**
 * The monthly payout run: every insurance in payout gets its month's sell order (to
 * reach the custodian by the 10th) and payout (paid by the 22nd), in one
 * DebitAccounts document per custodian, until it is paid out. Installment amounts come
 * from src/core/payout-plan.ts on the account's latest custody value.
 *
 * Invariants:
 * - an insurance is paid at most once a month: `payout_orders` is keyed by insurance
 *   and month, and the run, like the debit run, is one transaction per run key under
 *   its lock that skips custodians already done — a repeat produces nothing new;
 * - an insurance that has ended (insurances.end_date: paid out, or ended by staff — a
 *   death, a move to another insurer, a surrender) gets no more orders and cannot be
 *   put in payout. A payout ends its insurance: the final installment records the end
 *   (cause `paid-out`, by `payout-run`) on its pay-by day, in the run's transaction, so
 *   the debit runs charge to that day and never after;
 * - the insured is told once that payout can begin: the daily payout-start check
 *   (payout-start.job.ts) writes the `payout_notices` row on the day it can, and the
 *   first installment records its month there (a payout put in place without that
 *   notice gets it with the first installment). payout-notices.job.ts tells the insured
 *   (by mail, or by a letter to print) and mails customer service a copy;
 * - a death benefit of repayment protection (death-benefit-orders.ts) is ordered once, in
 *   the first run of its custodian after the death and the beneficiary's account were
 *   recorded: one sell order of the whole account and one final payout to that account,
 *   recorded on the benefit in the run's transaction; the insurer's 1 % of it goes in a
 *   payment order (pain.001) made in the same transaction (death-benefit-payments.ts);
 * - delivery as in debit-run.ts: the document's bytes and file name are recorded with
 *   the month's orders, and the deliver stage sends that file once the run has
 *   committed — retried, never a second document.
 */

/**
 * The payout the insured started, as staff registered it from a paper form
 * (src/http/staff/payout-start.routes.ts) or the insured's signed request registered it
 * (src/requests/payout-request.ts): the audit of the payout.
 */
export interface PayoutRegistration {
  /** Clearing number and account number, digits only: validated as the insured's (src/requests/payout-start-check.ts). */
  readonly withdrawalAccount: string;
  /** `staff:<user>`, `cli:<account>` or `bankid:<the insured's personnummer>`; the payout's `created_at` says when. */
  readonly registeredBy: string;
}

/** Puts an insurance in payout from a month, over a number of months or at a monthly amount, paid to the registered account. */
export async function schedulePayout(
  sql: Sql, input: { insuranceNumber: string; startMonth: YearMonth; terms: PayoutTerms; registration: PayoutRegistration }, now: Date,
): Promise<void> {
  requireYearMonth(input.startMonth);
  const months = 'months' in input.terms ? input.terms.months : null;
  const monthly = 'monthlyAmount' in input.terms ? input.terms.monthlyAmount : null;
  const { registration } = input;
  const { rows } = await sql.query<{ insurance_number: string }>(
    `INSERT INTO payouts (insurance_number, start_month, months, monthly_amount, created_at, withdrawal_account, registered_by)
     SELECT insurance_number, $2, $3, $4::numeric, $5, $6, $7 FROM insurances WHERE insurance_number = $1 AND end_date IS NULL
     ON CONFLICT (insurance_number) DO NOTHING RETURNING insurance_number`,
    [input.insuranceNumber, input.startMonth, months, monthly, now,
      registration.withdrawalAccount, registration.registeredBy],
  );
  if (rows.length === 0) {
    throw new GatewayError('REQUEST_INVALID', `${input.insuranceNumber} is not an insurance in force, or is already in payout.`, { details: { insuranceNumber: input.insuranceNumber } });
  }
}

interface DuePayout {
  readonly insuranceNumber: string;
  readonly accountNumber: string;
  readonly custodianId: string;
  readonly months: number | null;
  readonly monthlyAmount: string | null;
  readonly made: number;
  /** The pay-by day of its latest order, when it has one. */
  readonly lastPayBy: string | null;
  readonly value: string | null;
  /** The account paid to; none on a payout put in place before accounts were recorded with it (held back). */
  readonly toAccount: string | null;
}

async function duePayouts(sql: Sql, month: YearMonth, asOf: string, excluded: readonly string[]): Promise<DuePayout[]> {
  const { rows } = await sql.query<DuePayout>(
    `SELECT p.insurance_number AS "insuranceNumber", i.custody_account AS "accountNumber", a.custodian_id AS "custodianId",
            p.months, p.monthly_amount::text AS "monthlyAmount", p.withdrawal_account AS "toAccount",
            (SELECT count(*)::int FROM payout_orders o WHERE o.insurance_number = p.insurance_number) AS made,
            (SELECT max(o.pay_by)::text FROM payout_orders o WHERE o.insurance_number = p.insurance_number) AS "lastPayBy",
            (SELECT v.total_value::text FROM custody_valuations v WHERE v.account_number = i.custody_account AND v.as_of <= $2
              ORDER BY v.as_of DESC LIMIT 1) AS value
       FROM payouts p
       JOIN insurances i ON i.insurance_number = p.insurance_number
       JOIN custody_accounts a ON a.account_number = i.custody_account
      WHERE p.status <> 'completed' AND p.start_month <= $1 AND i.end_date IS NULL AND NOT (a.custodian_id = ANY($3::text[]))
        AND NOT EXISTS (SELECT 1 FROM payout_orders o WHERE o.insurance_number = p.insurance_number AND o.month = $1)
      ORDER BY a.custodian_id, i.custody_account`,
    [month, asOf, excluded],
  );
  return rows;
}

export interface PayoutRunOptions {
  readonly dryRun?: boolean;
  /** Orders one insurance's payout that waited for its custodian switch, at its new custodian, under the run key `<month>-<switch id>`. */
  readonly caughtUp?: { readonly insuranceNumber: string; readonly switchId: string };
}

/** Runs (or, with dryRun, only computes) the payout run of a month, inside the caller's transaction. */
export async function runPayoutRun(sql: Sql, deps: RunDeps, month: YearMonth, now: Date, options: PayoutRunOptions = {}): Promise<RunSummary> {
  requireYearMonth(month);
  const runKey = options.caughtUp ? `${month}-${options.caughtUp.switchId}` : month;
  const runDate = stockholmDate(now);
  await lockRun(sql, runKey);
  const done = await custodiansDone(sql, runKey);
  const duePaid = (await duePayouts(sql, month, runDate, done)).filter((payout) => !options.caughtUp || payout.insuranceNumber === options.caughtUp.insuranceNumber);
  // An insurance whose custodian is being switched waits (custodian-switch-runs.ts).
  const { rows: due, waiting } = await withoutSwitching(sql, duePaid, { runKey, kind: 'payout', now, dryRun: options.dryRun === true });
  const deaths = options.caughtUp ? [] : await dueDeathBenefits(sql, runDate, deathBenefitOrderDays(month).sellBy, done);
  const created: CustodianRunSummary[] = [];
  const documents: { custodianId: string; body: string }[] = [];
  for (const custodianId of [...new Set([...due, ...deaths].map((payout) => payout.custodianId))]) {
    const custodian = deps.custodians.get(custodianId);
    if (!custodian) {
      deps.log.warn({ runKey, custodianId }, 'payout run: payouts at a custodian that is not a configured counterparty; not paid');
      continue;
    }
    const atCustodian = due.filter((payout) => payout.custodianId === custodianId);
    // Money goes only to an account registered in advance: a payout without one is held back, every run, until it has one.
    const held = atCustodian.filter((payout) => payout.toAccount === null)
      .map((payout) => ({ accountNumber: payout.accountNumber, insuranceNumber: payout.insuranceNumber, reason: 'no payout account registered for the insured' }))
      .concat(waitingAt(waiting, custodianId));
    if (held.length > 0) deps.log.warn({ runKey, custodianId, held }, 'payout run: payouts held back');
    const installments: { payout: DuePayout & { toAccount: string }; installment: Installment | undefined }[] = atCustodian
      .flatMap((payout) => (payout.toAccount === null ? [] : [{ ...payout, toAccount: payout.toAccount }]))
      .map((payout) => ({
        payout,
        installment: nextInstallment({
          month, installment: payout.made + 1, value: payout.value ?? '0',
          terms: payout.months !== null ? { months: payout.months } : { monthlyAmount: payout.monthlyAmount ?? '0' },
        }),
      }));
    const paying = installments.flatMap(({ payout, installment }) => (installment ? [{ payout, installment }] : []));
    const accounts: DebitAccountsAccount[] = paying.map(({ payout, installment }) => ({
      accountNumber: payout.accountNumber, insuranceNumber: payout.insuranceNumber, debits: [],
      sellOrders: [{ reason: 'Payout', amount: installment.amount, sellBy: installment.sellBy }],
      payout: { amount: installment.amount, payBy: installment.payBy, installment: installment.installment, final: installment.final, toAccount: payout.toAccount },
    }));
    const lines: StoredLine[] = paying.map(({ payout, installment }) => ({
      accountNumber: payout.accountNumber, insuranceNumber: payout.insuranceNumber, charge: 'SellOrder', basis: 'Payout',
      amount: installment.amount, periodFrom: installment.sellBy, periodTo: installment.sellBy,
    }));
    const custodianDeaths = deaths.filter((benefit) => benefit.custodianId === custodianId);
    const deathOrders = deathBenefitOrders(custodianDeaths, month);
    const summary = await storeCustodianRun(sql, deps, {
      runKey, custodianId, custodianOrganisationNumber: custodian.organisationNumber, runDate, now, run: { kind: 'payout', month },
      accounts: [...accounts, ...deathOrders.accounts], lines: [...lines, ...deathOrders.lines], held, dryRun: options.dryRun === true,
      fileName: `payout-${runKey}.${DEBIT_ACCOUNTS}.xml`,
    });
    if (!options.dryRun) {
      await recordInstallments(sql, runKey, custodianId, month, installments, now);
      await markDeathBenefitsOrdered(sql, { runKey, custodianId, ...deathBenefitOrderDays(month) }, custodianDeaths);
    }
    const amounts = [...paying.map(({ installment }) => installment.amount), ...custodianDeaths.map((benefit) => benefit.custodyValue)];
    const total = amounts.reduce((sum, amount) => sum + BigInt(amount.replace('.', '')), 0n).toString().padStart(3, '0');
    created.push({ ...summary, total: `${total.slice(0, -2)}.${total.slice(-2)}` });
    if (summary.body) documents.push({ custodianId, body: summary.body });
  }
  if (options.dryRun) return { runKey, runDate, created, undelivered: [], documents };
  // The insurer's 1 % of the death benefits ordered (now or by an earlier run): one payment order, in this transaction.
  await orderInsurerShares(sql, deps, { runKey, runDate, now });
  return { runKey, runDate, created, undelivered: await undeliveredRunDocuments(sql, runKey) };
}

/** Stores the month's orders, moves each payout on (paying / completed) and records the first-payout notices. */
async function recordInstallments(
  sql: Sql, runKey: string, custodianId: string, month: YearMonth,
  installments: readonly { payout: DuePayout; installment: Installment | undefined }[], now: Date,
): Promise<void> {
  for (const { payout, installment } of installments) {
    if (!installment) {
      // No custody value reported yet is not "paid out": wait for the custodian's values.
      if (payout.value === null) continue;
      await sql.query(`UPDATE payouts SET status = 'completed', completed_month = $2 WHERE insurance_number = $1`, [payout.insuranceNumber, month]);
      // The account is empty: the last money left on its latest order's pay-by day (none: nothing was left to pay this month).
      const [year, monthOfYear] = month.split('-').map(Number) as [number, number];
      await recordPaidOut(sql, payout.insuranceNumber, payout.lastPayBy ?? payoutDeadline(year, monthOfYear), now);
      continue;
    }
    await sql.query(
      `INSERT INTO payout_orders (insurance_number, month, installment, amount, sell_by, pay_by, final, run_key, custodian_id)
       VALUES ($1, $2, $3, $4::numeric, $5, $6, $7, $8, $9)`,
      [payout.insuranceNumber, month, installment.installment, installment.amount, installment.sellBy, installment.payBy, installment.final, runKey, custodianId],
    );
    await sql.query(
      `UPDATE payouts SET status = $2, completed_month = CASE WHEN $2 = 'completed' THEN $3 END WHERE insurance_number = $1`,
      [payout.insuranceNumber, installment.final ? 'completed' : 'paying', month],
    );
    if (installment.final) await recordPaidOut(sql, payout.insuranceNumber, installment.payBy, now);
    if (installment.installment === 1) {
      await sql.query(
        `INSERT INTO payout_notices (insurance_number, first_month, recorded_at) VALUES ($1, $2, $3)
         ON CONFLICT (insurance_number) DO UPDATE SET first_month = EXCLUDED.first_month WHERE payout_notices.first_month IS NULL`,
        [payout.insuranceNumber, month, now],
      );
    }
  }
}

/** Ends a paid-out insurance on the day its last money leaves (an ended one is not in payout: see duePayouts). */
async function recordPaidOut(sql: Sql, insuranceNumber: string, endDate: string, now: Date): Promise<void> {
  await endInsurance(sql, { insuranceNumber, endDate, cause: 'paid-out', endedBy: 'payout-run' }, now);
}

// ---- Calendar job ------------------------------------------------------------------

export const PAYOUT_RUN_JOB = 'payout-runs';
/** The 1st of each month, and each weekday morning so a run that failed is tried again well before the 10th. */
export const PAYOUT_RUN_PATTERNS = ['0 7 1 * *', '0 7 * * 1-5'] as const;
/** How many months back a start after an outage still makes a payout run: this month and the one before. */
export const DEFAULT_PAYOUT_CATCH_UP_MONTHS = 2;

/** The payout runs as a calendar job: a period is a month 'YYYY-MM', due from its 1st (Stockholm). */
export function payoutRunJob(deps: RunDeps & { readonly catchUpMonths?: number }): CalendarJob {
  return {
    name: PAYOUT_RUN_JOB,
    patterns: PAYOUT_RUN_PATTERNS,
    duePeriods(now) {
      const current = stockholmDate(now).slice(0, 7);
      const count = deps.catchUpMonths ?? DEFAULT_PAYOUT_CATCH_UP_MONTHS;
      return Array.from({ length: count }, (_, i) => addMonths(current, i - count + 1));
    },
    async run({ sql, period, firedAt, afterCommit }) {
      const { undelivered } = await runPayoutRun(sql, deps, period, firedAt);
      afterCommit(() => handOverRunDocuments(deps, undelivered));
    },
  };
}
