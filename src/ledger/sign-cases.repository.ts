import type { Sql } from './database.ts';
import { accessFactsOf, customerAccessColumns, withoutAccessColumns, type AccessGate, type CustomerAccessRow } from './powers-of-attorney.repository.ts';
import type { CompletionData } from '../bankid/bankid-protocol.ts';
import type { SignatoryRole } from '../core/withdrawal-request.rules.ts';

/**
 * Sign cases (migrations 0027, 0028): the signatories of a withdrawal request by role
 * and personnummer (an organisation's company signatories share a role), and
 * every BankID order started for one of them with its last collected status. A
 * signatory counts as signed once an order completed by that very person (the
 * personnummer of the completion data) is recorded as theirs.
 */
export interface SignCaseSignatory {
  readonly role: SignatoryRole;
  readonly personalNumber: string;
  readonly signedAt: string | null;
}

export interface SignCaseRecord {
  readonly signCaseId: string;
  readonly requestId: string;
  readonly visibleText: string;
  readonly customerId: string;
  readonly custodianId: string;
  readonly requestStatus: string;
  /** How many company signatories must sign; null when the policyholder is a person. */
  readonly companySignaturesRequired: number | null;
  readonly signatories: readonly SignCaseSignatory[];
}

export interface SignOrderRecord {
  readonly orderRef: string;
  readonly role: SignatoryRole;
  /** The signatory the order is for (expected to sign it). */
  readonly personalNumber: string;
  readonly startedAt: Date;
  readonly autoStartToken: string;
  readonly qrStartToken: string;
  readonly qrStartSecret: string;
  readonly status: 'pending' | 'failed' | 'complete' | 'not-counted';
  readonly hintCode: string | null;
  readonly reason: string | null;
  /** The personnummer of whoever completed the order (counted or not). */
  readonly signedBy: string | null;
}

/**
 * A sign case with its signatories; undefined when there is none, or when `mayReach`
 * (the caller's access, asked in the same statement that finds the case) says no.
 */
export async function findSignCase(sql: Sql, signCaseId: string, mayReach?: AccessGate): Promise<SignCaseRecord | undefined> {
  const { rows } = await sql.query<Omit<SignCaseRecord, 'signatories'> & Partial<CustomerAccessRow>>(
    `SELECT c.sign_case_id AS "signCaseId", c.request_id AS "requestId", c.visible_text AS "visibleText", r.customer_id AS "customerId",
            a.custodian_id AS "custodianId", r.status AS "requestStatus",
            c.company_signatures_required AS "companySignaturesRequired"${mayReach ? `, ${customerAccessColumns('r.customer_id')}` : ''}
       FROM sign_cases c JOIN withdrawal_requests r ON r.request_id = c.request_id
       JOIN insurances i ON i.insurance_number = r.insurance_number JOIN custody_accounts a ON a.account_number = i.custody_account
      WHERE c.sign_case_id = $1`, [signCaseId],
  );
  const row = rows[0];
  if (!row || (mayReach && !mayReach(accessFactsOf(row as CustomerAccessRow), row.custodianId))) return undefined;
  const found = withoutAccessColumns(row);
  const signatories = await sql.query<{ role: SignatoryRole; personalNumber: string; signedAt: Date | string | null }>(
    `SELECT role, personal_number AS "personalNumber", signed_at AS "signedAt" FROM sign_case_signatories
      WHERE sign_case_id = $1 ORDER BY CASE role WHEN 'policyholder' THEN 0 WHEN 'company-signatory' THEN 1 ELSE 2 END, personal_number`, [signCaseId],
  );
  return { ...found, signatories: signatories.rows.map((s) => ({ ...s, signedAt: s.signedAt instanceof Date ? s.signedAt.toISOString() : s.signedAt })) };
}

const ORDER = `order_ref AS "orderRef", role, personal_number AS "personalNumber", started_at AS "startedAt", auto_start_token AS "autoStartToken", qr_start_token AS "qrStartToken",
  qr_start_secret AS "qrStartSecret", status, hint_code AS "hintCode", reason, completion_data->'user'->>'personalNumber' AS "signedBy"`;

export async function pendingSignOrder(sql: Sql, signCaseId: string, role: SignatoryRole, personalNumber: string): Promise<SignOrderRecord | undefined> {
  const { rows } = await sql.query<SignOrderRecord>(
    `SELECT ${ORDER} FROM sign_orders WHERE sign_case_id = $1 AND role = $2 AND personal_number = $3 AND status = 'pending'`, [signCaseId, role, personalNumber],
  );
  return rows[0];
}

export async function findSignOrder(sql: Sql, signCaseId: string, orderRef: string): Promise<SignOrderRecord | undefined> {
  const { rows } = await sql.query<SignOrderRecord>(`SELECT ${ORDER} FROM sign_orders WHERE sign_case_id = $1 AND order_ref = $2`, [signCaseId, orderRef]);
  return rows[0];
}

export interface NewSignOrder {
  readonly orderRef: string;
  readonly signCaseId: string;
  readonly role: SignatoryRole;
  readonly personalNumber: string;
  readonly startedAt: Date;
  readonly endUserIp: string;
  readonly autoStartToken: string;
  readonly qrStartToken: string;
  readonly qrStartSecret: string;
}

/** Records a started order; false when another order of the signatory is pending already (a concurrent Sign). */
export async function insertSignOrder(sql: Sql, order: NewSignOrder): Promise<boolean> {
  const { rows } = await sql.query(
    `INSERT INTO sign_orders (order_ref, sign_case_id, role, started_at, end_user_ip, auto_start_token, qr_start_token, qr_start_secret, personal_number)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING RETURNING order_ref`,
    [order.orderRef, order.signCaseId, order.role, order.startedAt, order.endUserIp, order.autoStartToken, order.qrStartToken, order.qrStartSecret, order.personalNumber],
  );
  return rows.length > 0;
}

export type OrderOutcome =
  | { readonly status: 'pending'; readonly hintCode: string }
  | { readonly status: 'failed'; readonly hintCode: string | null; readonly reason: string }
  | { readonly status: 'complete'; readonly completionData: CompletionData }
  | { readonly status: 'not-counted'; readonly reason: string; readonly completionData: CompletionData };

/** Records what a collect said; a finished order is not changed again. */
export async function recordOrderOutcome(sql: Sql, orderRef: string, outcome: OrderOutcome, at: Date): Promise<void> {
  const finished = outcome.status !== 'pending';
  await sql.query(
    `UPDATE sign_orders SET status = $2, hint_code = $3, reason = $4, completion_data = $5::jsonb, finished_at = $6
      WHERE order_ref = $1 AND status = 'pending'`,
    [orderRef, outcome.status, 'hintCode' in outcome ? outcome.hintCode : null, 'reason' in outcome ? outcome.reason : null,
      'completionData' in outcome ? JSON.stringify(outcome.completionData) : null, finished ? at : null],
  );
}

/** The signatory has signed with this order; false when they had signed already. */
export async function markSignatorySigned(sql: Sql, signCaseId: string, signatory: { role: SignatoryRole; personalNumber: string }, orderRef: string, at: Date): Promise<boolean> {
  const { rows } = await sql.query(
    `UPDATE sign_case_signatories SET signed_at = $4, order_ref = $3 WHERE sign_case_id = $1 AND role = $2 AND personal_number = $5 AND signed_at IS NULL RETURNING role`,
    [signCaseId, signatory.role, orderRef, at, signatory.personalNumber],
  );
  return rows.length > 0;
}
