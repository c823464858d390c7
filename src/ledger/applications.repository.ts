import type { Database, Sql } from './database.ts';
import type { ApplicationFacts, InsuranceApplicationInput } from '../core/insurance-application.rules.ts';
import { issueInsurance } from './issue-application.repository.ts';

/**
 * Applications made through the REST API and their status history, and the ledger
 * facts an application is checked against.
 */

export type ApplicationStatus = 'received' | 'under-review' | 'approved' | 'rejected' | 'issued';

export interface StatusChange {
  readonly status: ApplicationStatus;
  readonly at: string;
  readonly by: string;
  readonly reason: string | null;
}

export interface ApplicationRecord {
  readonly applicationId: string;
  readonly kind: 'insurance' | 'plan';
  readonly firmOrganisationNumber: string;
  readonly advisorCode: string;
  readonly customerId: string;
  readonly productId: string;
  readonly productName: string;
  readonly body: InsuranceApplicationInput;
  readonly status: ApplicationStatus;
  readonly submittedAt: string;
  /** The insurance it was issued as; null until issued. */
  readonly insuranceId: string | null;
  readonly history: readonly StatusChange[];
}

/** The product (open, with its premium bounds), its funds and the firm's advisor. */
export async function loadApplicationFacts(db: Sql, input: InsuranceApplicationInput, firmOrganisationNumber: string, custodianIds: readonly string[]): Promise<ApplicationFacts> {
  const [products, funds, advisors] = await Promise.all([
    db.query<{ id: string; taxCategory: 'P' | 'T' | 'K'; line: 'individual' | 'occupational'; minMonthlyPremium: string; maxMonthlyPremium: string; maxSinglePremium: string }>(
      `SELECT code AS id, kind AS "taxCategory", line, min_monthly_premium::text AS "minMonthlyPremium", max_monthly_premium::text AS "maxMonthlyPremium",
              max_extra_premium::text AS "maxSinglePremium"
         FROM products WHERE code = $1 AND open_for_subscription`,
      [input.productId],
    ),
    db.query<{ isin: string }>('SELECT isin FROM product_funds WHERE product_code = $1', [input.productId]),
    db.query<{ active: boolean }>('SELECT active FROM advisors WHERE advisor_code = $1 AND organisation_number = $2', [input.advisorCode, firmOrganisationNumber]),
  ]);
  return { product: products.rows[0], selectableIsins: new Set(funds.rows.map((row) => row.isin)), advisor: advisors.rows[0], custodianIds };
}

export interface NewApplication {
  readonly applicationId: string;
  readonly kind: 'insurance' | 'plan';
  readonly firmOrganisationNumber: string;
  readonly advisorCode: string;
  readonly customerId: string;
  readonly productId: string;
  readonly body: InsuranceApplicationInput;
  readonly submittedAt: Date;
}

/**
 * Saves the application with its first statuses, in one transaction: nothing
 * half-saved. An application approved at once is issued in the same transaction.
 */
export async function insertApplication(db: Database, application: NewApplication, statuses: readonly Omit<StatusChange, 'at'>[], day: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO applications (application_id, kind, firm_organisation_number, advisor_code, customer_id, product_code, body, status, submitted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'received', $8)`,
      [application.applicationId, application.kind, application.firmOrganisationNumber, application.advisorCode, application.customerId, application.productId,
        JSON.stringify(application.body), application.submittedAt.toISOString()],
    );
    for (const change of statuses) await recordStatus(tx, application.applicationId, change, application.submittedAt);
    if (statuses.at(-1)?.status === 'approved') await issue(tx, application.applicationId, application.body, application.submittedAt, day);
  });
}

export type ReviewDecision = 'approve' | 'reject';

/**
 * A person's decision on an application under review: approved (and issued at once)
 * or rejected, with the reason. Undefined when there is no such application under review.
 */
export async function decideApplication(db: Database, applicationId: string, decision: ReviewDecision, by: string, reason: string, at: Date, day: string): Promise<ApplicationStatus | undefined> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ body: InsuranceApplicationInput | string }>(
      "SELECT body FROM applications WHERE application_id = $1 AND status = 'under-review' FOR UPDATE",
      [applicationId],
    );
    const row = rows[0];
    if (!row) return undefined;
    if (decision === 'reject') {
      await recordStatus(tx, applicationId, { status: 'rejected', by, reason }, at);
      return 'rejected';
    }
    await recordStatus(tx, applicationId, { status: 'approved', by, reason }, at);
    await issue(tx, applicationId, typeof row.body === 'string' ? JSON.parse(row.body) as InsuranceApplicationInput : row.body, at, day);
    return 'issued';
  });
}

/** Applications by status (all when none given), oldest first: the staff's review list. */
export async function listApplications(db: Sql, status: ApplicationStatus | undefined, limit: number): Promise<Omit<ApplicationRecord, 'history' | 'body'>[]> {
  const { rows } = await db.query<Omit<ApplicationRecord, 'history' | 'body'> & { submittedAt: Date | string }>(
    `SELECT a.application_id AS "applicationId", a.kind, a.firm_organisation_number AS "firmOrganisationNumber", a.advisor_code AS "advisorCode",
            a.customer_id AS "customerId", a.product_code AS "productId", p.name AS "productName", a.status, a.submitted_at AS "submittedAt",
            a.insurance_number AS "insuranceId"
       FROM applications a JOIN products p ON p.code = a.product_code
      WHERE ($1::text IS NULL OR a.status = $1) ORDER BY a.submitted_at, a.application_id LIMIT $2`,
    [status ?? null, limit],
  );
  return rows.map((row) => ({ ...row, submittedAt: iso(row.submittedAt) }));
}

async function issue(tx: Sql, applicationId: string, body: InsuranceApplicationInput, at: Date, day: string): Promise<void> {
  const insuranceNumber = await issueInsurance(tx, applicationId, body, day);
  await recordStatus(tx, applicationId, { status: 'issued', by: 'gateway', reason: `insurance ${insuranceNumber}` }, at);
}

async function recordStatus(tx: Sql, applicationId: string, change: Omit<StatusChange, 'at'>, at: Date): Promise<void> {
  await tx.query('UPDATE applications SET status = $2 WHERE application_id = $1', [applicationId, change.status]);
  await tx.query(
    'INSERT INTO application_status_changes (application_id, status, changed_at, changed_by, reason) VALUES ($1, $2, $3, $4, $5)',
    [applicationId, change.status, at.toISOString(), change.by, change.reason],
  );
}

/** The application with its status history, in one round trip (the advisors' most frequent read). */
export async function findApplication(db: Sql, applicationId: string): Promise<ApplicationRecord | undefined> {
  const { rows } = await db.query<Omit<ApplicationRecord, 'history'> & { submittedAt: Date | string; history: StatusChange[] | string }>(
    `SELECT a.application_id AS "applicationId", a.kind, a.firm_organisation_number AS "firmOrganisationNumber", a.advisor_code AS "advisorCode",
            a.customer_id AS "customerId", a.product_code AS "productId", p.name AS "productName", a.body, a.status, a.submitted_at AS "submittedAt",
            a.insurance_number AS "insuranceId",
            (SELECT json_agg(json_build_object('status', c.status, 'at', ${ISO_UTC('c.changed_at')}, 'by', c.changed_by, 'reason', c.reason) ORDER BY c.id)
               FROM application_status_changes c WHERE c.application_id = a.application_id) AS history
       FROM applications a JOIN products p ON p.code = a.product_code WHERE a.application_id = $1`,
    [applicationId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    ...row,
    body: typeof row.body === 'string' ? JSON.parse(row.body) as InsuranceApplicationInput : row.body,
    submittedAt: iso(row.submittedAt),
    history: typeof row.history === 'string' ? JSON.parse(row.history) as StatusChange[] : row.history ?? [],
  };
}

/** A timestamp as JavaScript's toISOString writes it (UTC, milliseconds, Z). */
function ISO_UTC(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

export interface CustomerApplicationRow {
  readonly productName: string;
  readonly insuranceId: string | null;
  readonly applicationId: string;
  readonly status: ApplicationStatus;
}

/** The applications one firm made for a customer, newest first. */
export async function listCustomerApplications(db: Sql, customerId: string, firmOrganisationNumber: string): Promise<CustomerApplicationRow[]> {
  const { rows } = await db.query<CustomerApplicationRow>(
    `SELECT p.name AS "productName", a.insurance_number AS "insuranceId", a.application_id AS "applicationId", a.status
       FROM applications a JOIN products p ON p.code = a.product_code
      WHERE a.customer_id = $1 AND a.firm_organisation_number = $2 AND a.kind = 'insurance'
      ORDER BY a.submitted_at DESC, a.application_id DESC`,
    [customerId, firmOrganisationNumber],
  );
  return rows;
}

function iso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}
