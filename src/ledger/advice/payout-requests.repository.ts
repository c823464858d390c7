import type { Sql } from '../database.ts';
import { accessFactsOf, customerAccessColumns, withoutAccessColumns, type AccessGate, type CustomerAccessRow } from './powers-of-attorney.repository.ts';
import type { BankAccount } from '../../core/bank-account.ts';
import { isFullySigned } from '../../core/company-signatories.rules.ts';
import type { YearMonth } from '../../core/payout-plan.ts';
import type { SignatoryRole } from '../../core/withdrawal-request.rules.ts';

/**
 * Payout requests (migration 0034): made with their sign case in one transaction, open
 * (`requested`) until signed by all, then `registered` or `refused` once, in the
 * transaction of the last signature; `closed` when another request or a staff
 * registration came first. A request is the insured's: the access to it is decided on
 * the insured's facts (and the custodian holding the insurance), read in the statement
 * that finds it.
 */
export type PayoutRequestStatus = 'requested' | 'registered' | 'refused' | 'closed';

export interface PayoutRequestEvent {
  readonly event: 'requested' | 'signed' | 'registered' | 'refused' | 'closed';
  readonly at: string;
  readonly by: string;
  readonly reason: string | null;
}

export interface NewPayoutRequest {
  readonly requestId: string;
  readonly insuranceNumber: string;
  readonly insuredPin: string;
  readonly policyholder: string;
  readonly months: number;
  readonly firstMonth: YearMonth;
  readonly account: BankAccount;
  readonly requestedAt: Date;
  readonly requestedBy: string;
}

export interface PayoutRequestRecord {
  readonly requestId: string;
  readonly signCaseId: string;
  readonly insuranceNumber: string;
  readonly insuredPin: string;
  readonly policyholder: string;
  readonly custodianId: string;
  readonly months: number;
  readonly firstMonth: string;
  readonly accountNumber: string;
  readonly bankName: string;
  readonly status: PayoutRequestStatus;
  readonly requestedAt: string;
  readonly requestedBy: string;
  readonly history: readonly PayoutRequestEvent[];
}

export async function insertPayoutRequest(tx: Sql, request: NewPayoutRequest): Promise<void> {
  await tx.query(
    `INSERT INTO payout_requests (request_id, insurance_number, insured_pin, policyholder, months, first_month, account_digits, bank_name, requested_at, requested_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [request.requestId, request.insuranceNumber, request.insuredPin, request.policyholder, request.months, request.firstMonth,
      request.account.digits, request.account.bankName, request.requestedAt, request.requestedBy],
  );
  await addPayoutRequestEvent(tx, request.requestId, 'requested', request.requestedAt, request.requestedBy, null);
}

export async function addPayoutRequestEvent(tx: Sql, requestId: string, event: PayoutRequestEvent['event'], at: Date, by: string, reason: string | null): Promise<void> {
  await tx.query('INSERT INTO payout_request_events (request_id, event, at, by, reason) VALUES ($1, $2, $3, $4, $5)', [requestId, event, at, by, reason]);
}

const RECORD_COLUMNS = `
  r.request_id AS "requestId", c.sign_case_id AS "signCaseId", r.insurance_number AS "insuranceNumber", r.insured_pin AS "insuredPin",
  r.policyholder, a.custodian_id AS "custodianId", r.months, r.first_month AS "firstMonth", r.account_digits AS "accountNumber",
  r.bank_name AS "bankName", r.status, r.requested_at AS "requestedAt", r.requested_by AS "requestedBy"`;
const RECORD_FROM = `
    FROM payout_requests r
    JOIN sign_cases c ON c.subject_kind = 'payout' AND c.subject_id = r.request_id
    JOIN insurances i ON i.insurance_number = r.insurance_number
    JOIN custody_accounts a ON a.account_number = i.custody_account`;

type RecordRow = Omit<PayoutRequestRecord, 'history' | 'requestedAt'> & { requestedAt: Date | string };

/**
 * A request with its history; undefined when there is none, or when `mayReach` (the
 * caller's access to the insured, asked in the same statement that finds the request)
 * says no.
 */
export async function findPayoutRequest(sql: Sql, requestId: string, mayReach?: AccessGate): Promise<PayoutRequestRecord | undefined> {
  const { rows } = await sql.query<RecordRow & Partial<CustomerAccessRow>>(
    `SELECT ${RECORD_COLUMNS}${mayReach ? `, ${customerAccessColumns('r.insured_pin')}` : ''} ${RECORD_FROM} WHERE r.request_id = $1`, [requestId],
  );
  const found = rows[0];
  if (!found || (mayReach && !mayReach(accessFactsOf(found as CustomerAccessRow), found.custodianId))) return undefined;
  const row = withoutAccessColumns(found);
  const events = await sql.query<PayoutRequestEvent & { at: Date | string }>(
    'SELECT event, at, by, reason FROM payout_request_events WHERE request_id = $1 ORDER BY id', [requestId],
  );
  return { ...row, requestedAt: iso(row.requestedAt), history: events.rows.map((event) => ({ ...event, at: iso(event.at) })) };
}

/** What the last signature needs of a request, read under its row lock in the caller's transaction. */
export interface LockedPayoutRequest {
  readonly insuranceNumber: string;
  readonly insuredPin: string;
  readonly status: PayoutRequestStatus;
  readonly months: number;
  readonly firstMonth: string;
  readonly accountDigits: string;
  readonly fullySigned: boolean;
}

/** The insurance a request is for (unlocked: to lock the insurance first, as every payout change does). */
export async function payoutRequestInsurance(sql: Sql, requestId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ insuranceNumber: string }>('SELECT insurance_number AS "insuranceNumber" FROM payout_requests WHERE request_id = $1', [requestId]);
  return rows[0]?.insuranceNumber;
}

export async function lockPayoutRequest(tx: Sql, requestId: string): Promise<LockedPayoutRequest | undefined> {
  const { rows } = await tx.query<Omit<LockedPayoutRequest, 'fullySigned'>>(
    `SELECT insurance_number AS "insuranceNumber", insured_pin AS "insuredPin", status, months, first_month AS "firstMonth", account_digits AS "accountDigits"
       FROM payout_requests WHERE request_id = $1 FOR UPDATE`, [requestId],
  );
  const row = rows[0];
  if (!row) return undefined;
  // Read after the lock, in a statement of its own: it sees a signature committed by whoever held the lock before.
  const signatures = await tx.query<{ role: SignatoryRole; signedAt: Date | null; required: number | null }>(
    `SELECT s.role, s.signed_at AS "signedAt", c.company_signatures_required AS required
       FROM sign_cases c JOIN sign_case_signatories s ON s.sign_case_id = c.sign_case_id WHERE c.subject_kind = 'payout' AND c.subject_id = $1`, [requestId],
  );
  return { ...row, fullySigned: isFullySigned(signatures.rows, signatures.rows[0]?.required ?? null) };
}

/** Moves an open request to its outcome; false when it was no longer open. */
export async function decidePayoutRequest(tx: Sql, requestId: string, status: Exclude<PayoutRequestStatus, 'requested'>, at: Date): Promise<boolean> {
  const { rows } = await tx.query(`UPDATE payout_requests SET status = $2, decided_at = $3 WHERE request_id = $1 AND status = 'requested' RETURNING request_id`, [requestId, status, at]);
  return rows.length > 0;
}

/** The open request of an insurance, when there is one (at most one is: migration 0034). */
export async function openPayoutRequestOf(tx: Sql, insuranceNumber: string): Promise<string | undefined> {
  const { rows } = await tx.query<{ requestId: string }>(
    `SELECT request_id AS "requestId" FROM payout_requests WHERE insurance_number = $1 AND status = 'requested' FOR UPDATE`, [insuranceNumber],
  );
  return rows[0]?.requestId;
}

function iso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : value;
}
