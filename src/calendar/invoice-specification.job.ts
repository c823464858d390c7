import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/config.schema.ts';
import { stockholmDate } from '../core/calendar-date.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { invoiceSpecification } from '../core/invoice-specification.ts';
import { addMonths, requireYearMonth, type YearMonth } from '../core/payout-plan.ts';
import { renderInvoiceSpecificationPdf } from '../documents/invoice-specification-pdf.ts';
import type { Database, Sql } from '../ledger/database.ts';
import {
  agreementHistories, agreementsToSpecify, insertInvoiceSpecification, markInvoiceSpecificationForDelivery, type AgreementToSpecify,
} from '../ledger/plan/invoice-specifications.repository.ts';
import { appendStaffAudit } from '../ledger/staff/staff-audit.repository.ts';
import {
  invoiceSpecificationFileName, invoiceSpecificationId, invoiceSpecificationXml,
} from '../messages/invoice-specification.document.ts';
import type { CalendarJob } from './calendar.scheduler.ts';
import { handOverRunDocuments } from './debit-run.ts';
import type { StageScheduler } from '../pipeline/pipeline-deps.ts';

/**
 * The monthly invoice specification: on the configured day of each month every
 * pension-plan agreement's employer gets the specification of what it is invoiced for
 * the month (src/core/invoice-specification.ts), as an InvoiceSpecification document
 * over its channel and as a PDF kept for staff.
 *
 * Invariants:
 * - one specification per agreement and month: the month's run holds its advisory lock,
 *   skips the agreements already specified, and `invoice_specifications` is keyed by
 *   agreement and month, so a repeat (a cron fire, the catch-up after downtime, staff's
 *   command) makes nothing new;
 * - nothing leaves inside the transaction: the document's bytes and file name are
 *   recorded with the specification, and once committed the deliver stage sends that
 *   file (retried, put back by the reconciler, never a second document). A run killed
 *   before its commit has recorded nothing and is made again by the catch-up;
 * - "send again" marks the recorded document undelivered and hands it to the deliver
 *   stage: the same bytes under the same name, the staff action audited;
 * - an agreement whose employer (or an administrator of the agreement) is no configured
 *   counterparty gets no row and is logged: the run made again once it is configured
 *   specifies it.
 */

export interface InvoiceSpecificationDeps {
  readonly counterparties: readonly { readonly id: string; readonly name: string; readonly role: string; readonly organisationNumber: string }[];
  readonly insurerOrganisationNumber: string;
  readonly scheduler: StageScheduler;
  readonly log: Logger;
  /** The day of the month (1–28, Stockholm) the month's specifications are made. Default 5. */
  readonly dayOfMonth?: number;
  /** How many months back a start after an outage still makes specifications. Default 2. */
  readonly catchUpMonths?: number;
}

export interface InvoiceSpecificationRunSummary {
  readonly month: YearMonth;
  readonly created: readonly { readonly agreementNumber: string; readonly documentId: string; readonly counterpartyId: string; readonly total: string }[];
  readonly skipped: readonly { readonly agreementNumber: string; readonly reason: string }[];
  /** The month's documents recorded and not delivered yet (new ones, and ones an earlier run left). */
  readonly undelivered: readonly string[];
}

const LOCK = 4_711_045;

/** The specifications' dependencies from the configuration: the counterparties, the insurer's number, the day and catch-up. */
export function invoiceSpecificationDepsFrom(
  config: Pick<GatewayConfig, 'counterparties' | 'ssek' | 'invoiceSpecifications'>, scheduler: StageScheduler, log: Logger,
): InvoiceSpecificationDeps {
  return {
    counterparties: config.counterparties, insurerOrganisationNumber: config.ssek.organisationNumber, scheduler, log,
    dayOfMonth: config.invoiceSpecifications.dayOfMonth, catchUpMonths: config.invoiceSpecifications.catchUpMonths,
  };
}

/** The counterparty an agreement's specification goes to: the employer's own, else an administrator of the agreement. */
export function recipientOf(agreement: AgreementToSpecify, counterparties: InvoiceSpecificationDeps['counterparties']) {
  return counterparties.find((c) => c.role === 'employer' && c.organisationNumber === agreement.employerOrganisationNumber)
    ?? counterparties.find((c) => c.role === 'administrator' && agreement.administrators.includes(c.organisationNumber));
}

/** Makes the month's specifications not made yet, inside the caller's transaction. */
export async function runInvoiceSpecifications(sql: Sql, deps: InvoiceSpecificationDeps, month: YearMonth, now: Date): Promise<InvoiceSpecificationRunSummary> {
  requireYearMonth(month);
  await sql.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK, month]);
  const created: InvoiceSpecificationRunSummary['created'][number][] = [];
  const skipped: InvoiceSpecificationRunSummary['skipped'][number][] = [];
  for (const agreement of await agreementsToSpecify(sql, month)) {
    const recipient = recipientOf(agreement, deps.counterparties);
    if (!recipient) {
      const reason = `neither the employer ${agreement.employerOrganisationNumber} nor an administrator of the agreement is a configured counterparty`;
      deps.log.warn({ agreementNumber: agreement.agreementNumber, month }, `invoice specification: ${reason}; not made`);
      skipped.push({ agreementNumber: agreement.agreementNumber, reason });
      continue;
    }
    const content = invoiceSpecification(agreement.agreementNumber, month, await agreementHistories(sql, agreement.agreementNumber));
    const documentId = invoiceSpecificationId(agreement.agreementNumber, month);
    const body = invoiceSpecificationXml({
      messageId: documentId, createdAt: now, insurerOrganisationNumber: deps.insurerOrganisationNumber,
      employerOrganisationNumber: agreement.employerOrganisationNumber, content,
    });
    const pdf = await renderInvoiceSpecificationPdf({ documentId, employerName: agreement.name, employerOrganisationNumber: agreement.employerOrganisationNumber, content }, now);
    await insertInvoiceSpecification(sql, {
      agreementNumber: agreement.agreementNumber, month, documentId, counterpartyId: recipient.id,
      fileName: invoiceSpecificationFileName(agreement.agreementNumber, month), body, pdf, insuredCount: content.totals.insuredCount,
      premiums: content.totals.premiums, extraPremiums: content.totals.extraPremiums, total: content.totals.total, createdAt: now,
    });
    created.push({ agreementNumber: agreement.agreementNumber, documentId, counterpartyId: recipient.id, total: content.totals.total });
  }
  const { rows } = await sql.query<{ document_id: string }>(
    `SELECT s.document_id FROM invoice_specifications s JOIN outgoing_documents o ON o.document_id = s.document_id
      WHERE s.month = $1 AND o.delivered_at IS NULL ORDER BY s.document_id`,
    [month],
  );
  return { month, created, skipped, undelivered: rows.map((row) => row.document_id) };
}

/** Makes a month's specifications in a transaction of its own and hands the undelivered ones to the deliver stage (staff's command). */
export async function makeInvoiceSpecifications(db: Database, deps: InvoiceSpecificationDeps, month: YearMonth, now: Date): Promise<InvoiceSpecificationRunSummary> {
  const summary = await db.transaction((tx) => runInvoiceSpecifications(tx, deps, month, now));
  await handOverRunDocuments(deps, summary.undelivered);
  return summary;
}

/** Staff's "send again": the recorded document once more to its counterparty, audited. */
export async function sendInvoiceSpecificationAgain(
  db: Database, deps: Pick<InvoiceSpecificationDeps, 'scheduler' | 'log'>, documentId: string, staff: { username: string; reason: string | null }, now: Date,
): Promise<void> {
  const found = await db.transaction(async (tx) => {
    const marked = await markInvoiceSpecificationForDelivery(tx, documentId);
    await appendStaffAudit(tx, { at: now, username: staff.username, action: 'send-again', subject: documentId, reason: staff.reason, outcome: marked ? 'done' : 'refused: no such invoice specification' });
    return marked;
  });
  if (!found) throw new GatewayError('RESOURCE_NOT_FOUND', `No invoice specification ${documentId}.`);
  await handOverRunDocuments(deps, [documentId]);
}

// ---- Calendar job ------------------------------------------------------------------

export const INVOICE_SPECIFICATION_JOB = 'invoice-specifications';
export const DEFAULT_INVOICE_SPECIFICATION_DAY = 5;
export const DEFAULT_INVOICE_SPECIFICATION_CATCH_UP_MONTHS = 2;

/** The months whose specification day has come by `now`, the latest `count`, oldest first. */
export function dueInvoiceMonths(now: Date, dayOfMonth: number, count: number): YearMonth[] {
  const today = stockholmDate(now);
  const current = today.slice(0, 7);
  const latest = today.slice(8) >= String(dayOfMonth).padStart(2, '0') ? current : addMonths(current, -1);
  return Array.from({ length: count }, (_, i) => addMonths(latest, i - count + 1));
}

/** The specifications as a calendar job: a period is a month 'YYYY-MM', due from its configured day at 06:00 (Stockholm). */
export function invoiceSpecificationJob(deps: InvoiceSpecificationDeps): CalendarJob {
  const day = deps.dayOfMonth ?? DEFAULT_INVOICE_SPECIFICATION_DAY;
  return {
    name: INVOICE_SPECIFICATION_JOB,
    // The day itself, and each weekday morning so a run that failed is tried again within days.
    patterns: [`0 6 ${day} * *`, '15 6 * * 1-5'],
    duePeriods: (now) => dueInvoiceMonths(now, day, deps.catchUpMonths ?? DEFAULT_INVOICE_SPECIFICATION_CATCH_UP_MONTHS),
    async run({ sql, period, firedAt, afterCommit }) {
      const { undelivered } = await runInvoiceSpecifications(sql, deps, period, firedAt);
      afterCommit(() => handOverRunDocuments(deps, undelivered));
    },
  };
}
