import type { Logger } from 'pino';
import { join } from 'node:path';
import { stockholmDate } from '../core/calendar-date.ts';
import {
  commissionDebitedThrough, commissionPaymentDate, commissionStatementId, dueCommissionMonths, isCommissionMonth, paymentsByFirm,
} from '../core/commission.rules.ts';
import { PROJECT_ROOT } from '../config/load-config.ts';
import type { GatewayConfig } from '../config/config.schema.ts';
import type { Sql } from '../ledger/database.ts';
import { debitedUnpaidFees, insertCommissionStatement, matchDebitedFees, type DebitedFeeRow } from '../ledger/custody/commission.repository.ts';
import { insertPaymentOrder } from '../ledger/custody/payment-orders.repository.ts';
import { COMMISSION_STATEMENT, commissionStatementXml } from '../messages/commission-statement.document.ts';
import { controlSum, paymentOrderXml, type CreditTransfer } from '../messages/payment-order.document.ts';
import { PaymentOrderSchema } from '../messages/payment-order.schema.ts';
import type { AdvisorFirmCounterparty } from './advisor-fees.ts';
import type { CalendarJob } from './calendar.scheduler.ts';
import { handOverRunDocuments } from './debit-run.ts';
import type { StageScheduler } from '../pipeline/pipeline-deps.ts';

/**
 * The monthly commission payment (docs/commission.md): on the 5th (or the first banking
 * day after) it finds, in the custodians' Transactions, the Fee debits that show the
 * advisor fees the debit runs ordered, and pays every firm what was debited by the end of
 * the month before and not paid yet — one aggregated amount a firm — in one pain.001
 * payment order for the insurer's finance (payment_orders, `depot-gateway
 * payment-orders`), and sends each firm its CommissionStatement over its channel.
 *
 * Invariants:
 * - a month runs once (calendar_runs, in the same transaction), and a fee is paid by one
 *   statement only (`commission_lines.statement_id`, set with the statement);
 * - the payment order's id (PO-COMMISSION-YYYY-MM) and each statement's id, also its
 *   payment's EndToEndId (CS-YYYY-MM-<firm>), are made from the month and the firm, so
 *   they are never reused and a statement delivered again is the same file;
 * - the statement's total is the payment's amount, the sum of its lines, exact to the öre;
 * - a firm that is not a configured advisor-firm counterparty with a `commissionIban`, or
 *   every firm while no `insurerAccount` is configured, is not paid: its fees wait, logged,
 *   for the first month that can pay them;
 * - nothing leaves inside the transaction: the statements are handed to the deliver stage
 *   after commit, as DebitAccounts are.
 */

export interface CommissionPaymentDeps {
  /** Configured advisor-firm counterparties by organisation number. */
  readonly advisorFirms: ReadonlyMap<string, AdvisorFirmCounterparty>;
  readonly insurerAccount?: GatewayConfig['insurerAccount'];
  readonly insurerOrganisationNumber: string;
  readonly scheduler: StageScheduler;
  readonly log: Logger;
  /** How many of the latest months a start after an outage still pays (default 2). */
  readonly catchUpMonths?: number;
}

export interface CommissionPaymentSummary {
  readonly month: string;
  readonly matched: number;
  readonly paymentOrderId: string | undefined;
  readonly statements: readonly { readonly statementId: string; readonly firmOrganisationNumber: string; readonly total: string; readonly fees: number }[];
  readonly waiting: readonly { readonly firmOrganisationNumber: string; readonly total: string; readonly reason: string }[];
}

/** Pays a month's commission in the caller's transaction; the statements to deliver are the summary's statement ids. */
export async function runCommissionPayment(sql: Sql, deps: CommissionPaymentDeps, month: string, now: Date): Promise<CommissionPaymentSummary> {
  if (!isCommissionMonth(month)) throw new RangeError(`not a month YYYY-MM: ${month}`);
  const through = commissionDebitedThrough(month);
  const matched = await matchDebitedFees(sql, through);
  const groups = paymentsByFirm(await debitedUnpaidFees(sql, through));
  const waiting: { firmOrganisationNumber: string; total: string; reason: string }[] = [];
  const payable = groups.flatMap((group) => {
    const firm = deps.advisorFirms.get(group.firmOrganisationNumber);
    const reason = !deps.insurerAccount ? 'no insurerAccount configured to pay from'
      : !firm ? 'not a configured advisor-firm counterparty' : !firm.iban ? 'its counterparty has no commissionIban' : undefined;
    if (reason !== undefined || !firm?.iban) {
      waiting.push({ firmOrganisationNumber: group.firmOrganisationNumber, total: group.total, reason: reason ?? 'no account' });
      return [];
    }
    return [{ ...group, firm: { ...firm, iban: firm.iban } }];
  });
  if (waiting.length > 0) deps.log.warn({ month, waiting }, 'commission payment: fees debited but not paid; they wait for a later month');
  const account = deps.insurerAccount;
  if (payable.length === 0 || !account) return { month, matched, paymentOrderId: undefined, statements: [], waiting };

  const paymentOrderId = `PO-COMMISSION-${month}`;
  const paymentDate = commissionPaymentDate(month);
  const transfers: CreditTransfer[] = payable.map((group) => ({
    endToEndId: commissionStatementId(month, group.firmOrganisationNumber), amount: group.total, creditorName: group.firm.name.slice(0, 140),
    creditorIban: group.firm.iban, remittance: `Advisor commission ${month}, statement ${commissionStatementId(month, group.firmOrganisationNumber)}`,
  }));
  const body = paymentOrderXml({
    messageId: paymentOrderId, createdAt: now, requestedExecutionDate: paymentDate, payments: transfers,
    initiatingParty: { name: account.name, organisationNumber: deps.insurerOrganisationNumber },
    debtor: { name: account.name, iban: account.iban, bic: account.bic },
  });
  const errors = validatePaymentOrder(body);
  if (errors.length > 0) throw new Error(`commission payment ${month}: the payment order is not valid pain.001.001.03: ${errors.map((e) => e.text).join('; ')}`);
  await insertPaymentOrder(sql, {
    paymentOrderId, purpose: 'advisor-commission', runKey: `commission-${month}`, createdAt: now, requestedExecutionDate: paymentDate,
    transactions: transfers.length, controlSum: controlSum(transfers), fileName: `${paymentOrderId}.pain.001.001.03.xml`, body,
  });
  const statements: CommissionPaymentSummary['statements'][number][] = [];
  for (const group of payable) {
    const statementId = commissionStatementId(month, group.firmOrganisationNumber);
    const document = commissionStatementXml({
      statementId, createdAt: now, insurerOrganisationNumber: deps.insurerOrganisationNumber, firmOrganisationNumber: group.firmOrganisationNumber,
      month, paymentDate, paymentReference: statementId, toAccount: group.firm.iban, total: group.total, lines: group.fees.map(statementLineOf),
    });
    await sql.query(
      `INSERT INTO outgoing_documents (document_id, counterparty_id, document_type, file_name, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [statementId, group.firm.counterpartyId, COMMISSION_STATEMENT, `${statementId}.${COMMISSION_STATEMENT}.xml`, document, now],
    );
    await insertCommissionStatement(sql, {
      statementId, firmOrganisationNumber: group.firmOrganisationNumber, counterpartyId: group.firm.counterpartyId, month, total: group.total,
      paymentOrderId, endToEndId: statementId, documentId: statementId, createdAt: now, lineIds: group.fees.map((fee) => fee.lineId),
    });
    statements.push({ statementId, firmOrganisationNumber: group.firmOrganisationNumber, total: group.total, fees: group.fees.length });
  }
  deps.log.info({ month, paymentOrderId, statements }, 'commission payment: payment order and statements made');
  return { month, matched, paymentOrderId, statements, waiting };
}

function statementLineOf(fee: DebitedFeeRow) {
  return {
    insuranceNumber: fee.insuranceNumber, commissionFileId: fee.commissionFileId, itemId: fee.itemId, periodFrom: fee.periodFrom, periodTo: fee.periodTo,
    fee: fee.fee, amount: fee.amount, debitedOn: fee.debitedOn, runKey: fee.runKey,
  };
}

function validatePaymentOrder(body: string): readonly { text: string }[] {
  const schema = PaymentOrderSchema.load(PaymentOrderSchema.fileIn(join(PROJECT_ROOT, 'schemas')));
  try {
    return schema.validate(body);
  } finally {
    schema.dispose();
  }
}

// ---- Calendar job ------------------------------------------------------------------

export const COMMISSION_PAYMENT_JOB = 'commission-payments';
/** Wakes the job each weekday morning; a month runs once its payment day has come. */
export const COMMISSION_PAYMENT_PATTERNS = ['15 7 * * 1-5'] as const;

export function commissionPaymentJob(deps: CommissionPaymentDeps): CalendarJob {
  return {
    name: COMMISSION_PAYMENT_JOB,
    patterns: COMMISSION_PAYMENT_PATTERNS,
    duePeriods: (now) => dueCommissionMonths(stockholmDate(now), deps.catchUpMonths ?? 2),
    async run({ sql, period, firedAt, afterCommit }) {
      const summary = await runCommissionPayment(sql, deps, period, firedAt);
      const documents = summary.statements.map((statement) => statement.statementId);
      if (documents.length > 0) afterCommit(() => handOverRunDocuments(deps, documents));
    },
  };
}
