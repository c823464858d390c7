import type { Sql } from '../database.ts';
import { accessFactsOf, customerAccessColumns, withoutAccessColumns, type AccessGate, type CustomerAccessRow } from './powers-of-attorney.repository.ts';
import type { BankAccount } from '../../core/bank-account.ts';
import type { IsoDate } from '../../core/calendar-date.ts';
import { isFullySigned } from '../../core/company-signatories.rules.ts';
import type { SignatoryRole, StoredWithdrawalStatus, WithdrawalStatus } from '../../core/withdrawal-request.rules.ts';

/**
 * Withdrawal requests (migration 0027): made with their sign case in one transaction,
 * decided by staff, ordered once. The status read here follows the order further: `sent`
 * once its DebitAccounts document is delivered, `paid-out` once the custodian reports a
 * Withdrawal or Payout of the amount on the account on or after the order day.
 */
export interface NewWithdrawalRequest {
  readonly requestId: string;
  readonly insuranceNumber: string;
  readonly customerId: string;
  readonly amount: string;
  readonly account: BankAccount;
  readonly requestedAt: Date;
  readonly requestedBy: string;
  /** Kept as the `requested` event's reason: how a request registered by staff came (channel and reference). */
  readonly note?: string;
}

export interface WithdrawalEvent {
  readonly event: 'requested' | 'approved' | 'rejected' | 'signed' | 'ordered' | 'sent' | 'paid-out';
  readonly at: string;
  readonly by: string;
  readonly reason: string | null;
}

export interface WithdrawalRequestRecord {
  readonly requestId: string;
  readonly signCaseId: string;
  readonly insuranceNumber: string;
  readonly customerId: string;
  readonly custodianId: string;
  readonly amount: string;
  readonly accountNumber: string;
  readonly bankName: string;
  readonly status: WithdrawalStatus;
  readonly requestedAt: string;
  readonly requestedBy: string;
  readonly decision: 'approved' | 'rejected' | null;
  readonly documentId: string | null;
  readonly history: readonly WithdrawalEvent[];
}

export async function insertWithdrawalRequest(tx: Sql, request: NewWithdrawalRequest): Promise<void> {
  await tx.query(
    `INSERT INTO withdrawal_requests (request_id, insurance_number, customer_id, amount, account_digits, bank_name, requested_at, requested_by)
     VALUES ($1, $2, $3, $4::numeric, $5, $6, $7, $8)`,
    [request.requestId, request.insuranceNumber, request.customerId, request.amount, request.account.digits, request.account.bankName, request.requestedAt, request.requestedBy],
  );
  await addWithdrawalEvent(tx, request.requestId, 'requested', request.requestedAt, request.requestedBy, request.note ?? null);
}

export async function addWithdrawalEvent(tx: Sql, requestId: string, event: WithdrawalEvent['event'], at: Date, by: string, reason: string | null): Promise<void> {
  await tx.query('INSERT INTO withdrawal_request_events (request_id, event, at, by, reason) VALUES ($1, $2, $3, $4, $5)', [requestId, event, at, by, reason]);
}

const RECORD_COLUMNS = `
         r.request_id AS "requestId", c.sign_case_id AS "signCaseId", r.insurance_number AS "insuranceNumber", r.customer_id AS "customerId",
         a.custodian_id AS "custodianId", r.amount::text AS amount, r.account_digits AS "accountNumber", r.bank_name AS "bankName",
         r.status AS "storedStatus", r.requested_at AS "requestedAt", r.requested_by AS "requestedBy", r.decision,
         dr.document_id AS "documentId", o.delivered_at AS "deliveredAt",
         (SELECT min(t.trade_date)::text FROM custody_transactions t
           WHERE r.ordered_on IS NOT NULL AND t.account_number = i.custody_account AND t.transaction_type IN ('Withdrawal', 'Payout')
             AND abs(t.amount) = r.amount AND t.trade_date >= r.ordered_on) AS "paidOn"`;
const RECORD_FROM = `
    FROM withdrawal_requests r
    JOIN sign_cases c ON c.request_id = r.request_id
    JOIN insurances i ON i.insurance_number = r.insurance_number
    JOIN custody_accounts a ON a.account_number = i.custody_account
    LEFT JOIN debit_runs dr ON dr.run_key = r.run_key AND dr.custodian_id = r.custodian_id
    LEFT JOIN outgoing_documents o ON o.document_id = dr.document_id`;
const RECORD = `SELECT ${RECORD_COLUMNS} ${RECORD_FROM}`;
const RECORD_WITH_ACCESS = `SELECT ${RECORD_COLUMNS}, ${customerAccessColumns('r.customer_id')} ${RECORD_FROM}`;

interface RecordRow extends Omit<WithdrawalRequestRecord, 'status' | 'history' | 'requestedAt'> {
  storedStatus: StoredWithdrawalStatus;
  requestedAt: Date | string;
  deliveredAt: Date | string | null;
  paidOn: IsoDate | null;
}

/**
 * A request with its history; undefined when there is none, or when `mayReach` (the
 * caller's access, asked in the same statement that finds the request) says no.
 */
export async function findWithdrawalRequest(sql: Sql, requestId: string, mayReach?: AccessGate): Promise<WithdrawalRequestRecord | undefined> {
  const { rows } = await sql.query<RecordRow & Partial<CustomerAccessRow>>(`${mayReach ? RECORD_WITH_ACCESS : RECORD} WHERE r.request_id = $1`, [requestId]);
  const found = rows[0];
  if (!found || (mayReach && !mayReach(accessFactsOf(found as CustomerAccessRow), found.custodianId))) return undefined;
  const row = withoutAccessColumns(found);
  const events = await sql.query<WithdrawalEvent & { at: Date | string }>(
    'SELECT event, at, by, reason FROM withdrawal_request_events WHERE request_id = $1 ORDER BY id', [requestId],
  );
  const history: WithdrawalEvent[] = events.rows.map((event) => ({ ...event, at: iso(event.at) }));
  if (row.deliveredAt) history.push({ event: 'sent', at: iso(row.deliveredAt), by: 'deliver', reason: row.documentId });
  if (row.paidOn) history.push({ event: 'paid-out', at: row.paidOn, by: row.custodianId, reason: 'reported by the custodian' });
  return { ...recordOf(row), history };
}

export type WithdrawalSummary = Omit<WithdrawalRequestRecord, 'history'>;

/** Requests, oldest first; by stored status when one is given. */
export async function listWithdrawalRequests(sql: Sql, status: StoredWithdrawalStatus | undefined, limit: number): Promise<WithdrawalSummary[]> {
  const { rows } = await sql.query<RecordRow>(
    `${RECORD} WHERE $1::text IS NULL OR r.status = $1 ORDER BY r.requested_at, r.request_id LIMIT $2`, [status ?? null, limit],
  );
  return rows.map(recordOf);
}

/** The request locked for a change in the caller's transaction. */
export async function lockWithdrawalRequest(tx: Sql, requestId: string): Promise<{ status: StoredWithdrawalStatus; decision: 'approved' | 'rejected' | null; fullySigned: boolean } | undefined> {
  const { rows } = await tx.query<{ status: StoredWithdrawalStatus; decision: 'approved' | 'rejected' | null }>(
    'SELECT status, decision FROM withdrawal_requests WHERE request_id = $1 FOR UPDATE', [requestId],
  );
  const row = rows[0];
  if (!row) return undefined;
  // Read after the lock, in a statement of its own: it sees a signature committed by whoever held the lock before.
  const signatures = await tx.query<{ role: SignatoryRole; signedAt: Date | null; required: number | null }>(
    `SELECT s.role, s.signed_at AS "signedAt", c.company_signatures_required AS required
       FROM sign_cases c JOIN sign_case_signatories s ON s.sign_case_id = c.sign_case_id WHERE c.request_id = $1`, [requestId],
  );
  return { status: row.status, decision: row.decision, fullySigned: isFullySigned(signatures.rows, signatures.rows[0]?.required ?? null) };
}

export async function recordDecision(tx: Sql, requestId: string, decision: 'approved' | 'rejected', by: string, reason: string, at: Date): Promise<void> {
  await tx.query('UPDATE withdrawal_requests SET decision = $2, decided_at = $3, decided_by = $4, decision_reason = $5 WHERE request_id = $1',
    [requestId, decision, at, by, reason]);
  await addWithdrawalEvent(tx, requestId, decision, at, by, reason);
}

export async function setWithdrawalStatus(tx: Sql, requestId: string, status: Exclude<StoredWithdrawalStatus, 'ordered'>): Promise<void> {
  await tx.query('UPDATE withdrawal_requests SET status = $2 WHERE request_id = $1', [requestId, status]);
}

export interface WithdrawalOrderFacts {
  readonly insuranceNumber: string;
  /** The custody account sold from. */
  readonly accountNumber: string;
  readonly custodianId: string;
  readonly amount: string;
  /** The validated bank account of the request, paid to. */
  readonly toAccount: string;
}

/** What the sell order and payout need: the insurance's custody account and custodian, the amount, the account paid to. */
export async function withdrawalOrderFacts(tx: Sql, requestId: string): Promise<WithdrawalOrderFacts | undefined> {
  const { rows } = await tx.query<WithdrawalOrderFacts>(
    `SELECT r.insurance_number AS "insuranceNumber", i.custody_account AS "accountNumber", a.custodian_id AS "custodianId", r.amount::text AS amount,
            r.account_digits AS "toAccount"
       FROM withdrawal_requests r JOIN insurances i ON i.insurance_number = r.insurance_number JOIN custody_accounts a ON a.account_number = i.custody_account
      WHERE r.request_id = $1`, [requestId],
  );
  return rows[0];
}

export async function markOrdered(tx: Sql, requestId: string, order: { runKey: string; custodianId: string; orderedOn: IsoDate }): Promise<void> {
  await tx.query(`UPDATE withdrawal_requests SET status = 'ordered', run_key = $2, custodian_id = $3, ordered_on = $4 WHERE request_id = $1`,
    [requestId, order.runKey, order.custodianId, order.orderedOn]);
}

/** Locks the insurance for a new request, so two requests at once cannot both take what is left. */
export async function lockInsuranceForRequest(tx: Sql, insuranceNumber: string): Promise<void> {
  await tx.query('SELECT 1 FROM insurances WHERE insurance_number = $1 FOR UPDATE', [insuranceNumber]);
}

function recordOf(row: RecordRow): WithdrawalSummary {
  const { storedStatus, deliveredAt, paidOn, ...rest } = row;
  const status: WithdrawalStatus = storedStatus !== 'ordered' ? storedStatus : paidOn ? 'paid-out' : deliveredAt ? 'sent' : 'ordered';
  return { ...rest, requestedAt: iso(row.requestedAt), status };
}

function iso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : value;
}
