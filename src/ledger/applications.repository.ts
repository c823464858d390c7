import type { Database, Sql } from './database.ts';
import type { ApplicationFacts, InsuranceApplicationInput } from '../core/insurance-application.rules.ts';

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

/** Saves the application with its first statuses, in one transaction: nothing half-saved. */
export async function insertApplication(db: Database, application: NewApplication, statuses: readonly Omit<StatusChange, 'at'>[]): Promise<void> {
  await db.transaction(async (tx) => {
    const last = statuses[statuses.length - 1]!;
    await tx.query(
      `INSERT INTO applications (application_id, kind, firm_organisation_number, advisor_code, customer_id, product_code, body, status, submitted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [application.applicationId, application.kind, application.firmOrganisationNumber, application.advisorCode, application.customerId, application.productId,
        JSON.stringify(application.body), last.status, application.submittedAt.toISOString()],
    );
    for (const change of statuses) {
      await tx.query(
        'INSERT INTO application_status_changes (application_id, status, changed_at, changed_by, reason) VALUES ($1, $2, $3, $4, $5)',
        [application.applicationId, change.status, application.submittedAt.toISOString(), change.by, change.reason],
      );
    }
  });
}

export async function findApplication(db: Sql, applicationId: string): Promise<ApplicationRecord | undefined> {
  const { rows } = await db.query<Omit<ApplicationRecord, 'history'> & { submittedAt: Date | string }>(
    `SELECT a.application_id AS "applicationId", a.kind, a.firm_organisation_number AS "firmOrganisationNumber", a.advisor_code AS "advisorCode",
            a.customer_id AS "customerId", a.product_code AS "productId", p.name AS "productName", a.body, a.status, a.submitted_at AS "submittedAt"
       FROM applications a JOIN products p ON p.code = a.product_code WHERE a.application_id = $1`,
    [applicationId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const history = await db.query<StatusChange & { at: Date | string }>(
    `SELECT status, changed_at AS at, changed_by AS by, reason FROM application_status_changes WHERE application_id = $1 ORDER BY id`,
    [applicationId],
  );
  return { ...row, body: typeof row.body === 'string' ? JSON.parse(row.body) as InsuranceApplicationInput : row.body, submittedAt: iso(row.submittedAt), history: history.rows.map((change) => ({ ...change, at: iso(change.at) })) };
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
    `SELECT p.name AS "productName", NULL AS "insuranceId", a.application_id AS "applicationId", a.status
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
