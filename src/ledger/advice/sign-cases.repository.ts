import type { Sql } from '../database.ts';
import { accessFactsOf, customerAccessColumns, withoutAccessColumns, type AccessGate, type CustomerAccessRow } from './powers-of-attorney.repository.ts';
import type { SignatoryRole } from '../../core/withdrawal-request.rules.ts';

/**
 * Sign cases (migrations 0027, 0028, 0032): what a customer signs — a withdrawal request,
 * and the other requests that take effect only once signed (the subject) — with its
 * signatories by role and personnummer (an organisation's company signatories share a
 * role), and every BankID order started for one of them with its last collected status.
 * A signatory counts as signed once an order completed by that very person (the
 * personnummer of the completion data) is recorded as theirs. A case is made in the
 * transaction that makes its subject, and closed (nobody signs it any more) in the one
 * that rejects or ends it. An application's case is reached by the firm that made the
 * application as well as by those who reach its customer.
 */

/** What a sign case is for: a withdrawal request, the insured's payout request (migration 0034), an application (migration 0041), or a custodian switch (migration 0047). */
export type SignCaseSubjectKind = 'withdrawal' | 'payout' | 'application' | 'custodian-switch';

export interface SignCaseSubject {
  readonly kind: SignCaseSubjectKind;
  /** The request's own id (a withdrawal request's `WR-…`, a payout request's `PR-…`, an application's `IA-…` or `PA-…`). */
  readonly id: string;
}
export interface SignCaseSignatory {
  readonly role: SignatoryRole;
  readonly personalNumber: string;
  readonly signedAt: string | null;
}

export interface SignCaseRecord {
  readonly signCaseId: string;
  readonly subject: SignCaseSubject;
  readonly visibleText: string;
  /** The customer whose request it is (the policyholder; the insured of a payout request; the employer of a plan). */
  readonly customerId: string;
  /** The custodian holding the insurance (or chosen in an application); its access is to this case. */
  readonly custodianId: string | null;
  /** Why nobody may sign any more (the request was rejected); null while it may be signed. */
  readonly closedReason: string | null;
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

export interface NewSignCase {
  readonly signCaseId: string;
  readonly subject: SignCaseSubject;
  readonly customerId: string;
  readonly custodianId: string | null;
  /** The text every signatory reads in the BankID app and signs (simpleMarkdownV1). */
  readonly visibleText: string;
  readonly signatories: readonly { readonly role: SignatoryRole; readonly personalNumber: string }[];
  /** How many company signatories must sign (an organisation); null otherwise. */
  readonly companySignaturesRequired: number | null;
  readonly createdAt: Date;
}

/** Makes a sign case with its signatories, in the transaction that makes its subject. */
export async function insertSignCase(tx: Sql, signCase: NewSignCase): Promise<void> {
  await tx.query(
    `INSERT INTO sign_cases (sign_case_id, subject_kind, subject_id, request_id, customer_id, custodian_id, visible_text, created_at, company_signatures_required)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [signCase.signCaseId, signCase.subject.kind, signCase.subject.id, signCase.subject.kind === 'withdrawal' ? signCase.subject.id : null,
      signCase.customerId, signCase.custodianId, signCase.visibleText, signCase.createdAt, signCase.companySignaturesRequired],
  );
  for (const signatory of signCase.signatories) {
    await tx.query('INSERT INTO sign_case_signatories (sign_case_id, role, personal_number) VALUES ($1, $2, $3)',
      [signCase.signCaseId, signatory.role, signatory.personalNumber]);
  }
}

/** Closes the subject's sign case: nobody signs it any more, for the reason given (kept and told to who tries). */
export async function closeSignCase(tx: Sql, subject: SignCaseSubject, reason: string, at: Date): Promise<void> {
  await tx.query(
    'UPDATE sign_cases SET closed_at = $3, closed_reason = $4 WHERE subject_kind = $1 AND subject_id = $2 AND closed_at IS NULL',
    [subject.kind, subject.id, at, reason],
  );
}

interface SignCaseRow extends Omit<SignCaseRecord, 'signatories' | 'subject'> {
  subjectKind: SignCaseSubjectKind;
  subjectId: string;
}

/**
 * The caller's access to a sign case, asked in the same statement that finds it: to the
 * customer's data (`customer`: a power of attorney, or the custodian the case names), or,
 * for an application's case, as the firm that made the application (`applicationFirm`).
 */
export interface SignCaseAccess {
  readonly customer: AccessGate;
  readonly applicationFirm: (firmOrganisationNumber: string) => boolean;
}

/**
 * A sign case with its signatories; undefined when there is none, or when `mayReach`
 * (the caller's access, asked in the same statement that finds the case) says no.
 */
export async function findSignCase(sql: Sql, signCaseId: string, mayReach?: SignCaseAccess): Promise<SignCaseRecord | undefined> {
  const { rows } = await sql.query<SignCaseRow & Partial<CustomerAccessRow> & { applicationFirm?: string | null }>(
    `SELECT c.sign_case_id AS "signCaseId", c.subject_kind AS "subjectKind", c.subject_id AS "subjectId", c.visible_text AS "visibleText",
            c.customer_id AS "customerId", c.custodian_id AS "custodianId", c.closed_reason AS "closedReason",
            c.company_signatures_required AS "companySignaturesRequired"${mayReach ? `, ${customerAccessColumns('c.customer_id')},
            (SELECT a.firm_organisation_number FROM applications a WHERE c.subject_kind = 'application' AND a.application_id = c.subject_id) AS "applicationFirm"` : ''}
       FROM sign_cases c WHERE c.sign_case_id = $1`, [signCaseId],
  );
  const row = rows[0];
  if (!row || (mayReach && !reaches(mayReach, row))) return undefined;
  const { subjectKind, subjectId, applicationFirm: _firm, ...found } = withoutAccessColumns(row);
  void _firm;
  const signatories = await sql.query<{ role: SignatoryRole; personalNumber: string; signedAt: Date | string | null }>(
    `SELECT role, personal_number AS "personalNumber", signed_at AS "signedAt" FROM sign_case_signatories
      WHERE sign_case_id = $1 ORDER BY CASE role WHEN 'policyholder' THEN 0 WHEN 'company-signatory' THEN 1 ELSE 2 END, personal_number`, [signCaseId],
  );
  return { ...found, subject: { kind: subjectKind, id: subjectId }, signatories: signatories.rows.map((s) => ({ ...s, signedAt: s.signedAt instanceof Date ? s.signedAt.toISOString() : s.signedAt })) };
}

function reaches(access: SignCaseAccess, row: SignCaseRow & Partial<CustomerAccessRow> & { applicationFirm?: string | null }): boolean {
  if (row.applicationFirm && access.applicationFirm(row.applicationFirm)) return true;
  return access.customer(accessFactsOf(row as CustomerAccessRow), row.custodianId ?? undefined);
}

/** The sign case of a subject (a request, an application), when it has one. */
export async function findSignCaseOf(sql: Sql, subject: SignCaseSubject): Promise<SignCaseRecord | undefined> {
  const { rows } = await sql.query<{ signCaseId: string }>(
    'SELECT sign_case_id AS "signCaseId" FROM sign_cases WHERE subject_kind = $1 AND subject_id = $2', [subject.kind, subject.id],
  );
  return rows[0] && findSignCase(sql, rows[0].signCaseId);
}

const ORDER = `order_ref AS "orderRef", role, personal_number AS "personalNumber", started_at AS "startedAt", auto_start_token AS "autoStartToken", qr_start_token AS "qrStartToken",
  qr_start_secret AS "qrStartSecret", status, hint_code AS "hintCode", reason, completion_data->'user'->>'personalNumber' AS "signedBy"`;

export async function pendingSignOrder(sql: Sql, signCaseId: string, role: SignatoryRole, personalNumber: string): Promise<SignOrderRecord | undefined> {
  const { rows } = await sql.query<SignOrderRecord>(
    `SELECT ${ORDER} FROM sign_orders WHERE sign_case_id = $1 AND role = $2 AND personal_number = $3 AND status = 'pending'`, [signCaseId, role, personalNumber],
  );
  return rows[0];
}

/** The signatory's most recent order, whatever became of it (the signing page shows how the last try ended). */
export async function latestSignOrder(sql: Sql, signCaseId: string, role: SignatoryRole, personalNumber: string): Promise<SignOrderRecord | undefined> {
  const { rows } = await sql.query<SignOrderRecord>(
    `SELECT ${ORDER} FROM sign_orders WHERE sign_case_id = $1 AND role = $2 AND personal_number = $3 ORDER BY started_at DESC, order_ref DESC LIMIT 1`, [signCaseId, role, personalNumber],
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

/** What a collect said of an order; `completionData` is BankID's, stored as it came (JSON). */
export type OrderOutcome =
  | { readonly status: 'pending'; readonly hintCode: string }
  | { readonly status: 'failed'; readonly hintCode: string | null; readonly reason: string }
  | { readonly status: 'complete'; readonly completionData: object }
  | { readonly status: 'not-counted'; readonly reason: string; readonly completionData: object };

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
