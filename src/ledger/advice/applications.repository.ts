import type { Database, Sql } from '../database.ts';
import { stockholmDate, type IsoDate } from '../../core/calendar-date.ts';
import type { ApplicationFacts, InsuranceApplicationInput } from '../../core/insurance-application.rules.ts';
import type { PlanApplicationFacts, PlanApplicationInput } from '../../core/plan-application.rules.ts';
import { issueInsurance } from './issue-application.repository.ts';
import { issuePlan } from './issue-plan-application.repository.ts';
import { recordReviewNotices } from './application-notices.repository.ts';

/**
 * Applications made through the REST API — individual insurances (`kind` insurance)
 * and employers' pension plans (`kind` plan) — and their status history, and the
 * ledger facts an application is checked against.
 */

/**
 * `awaiting-signature` until its sign case is signed by all (then decided as below),
 * `expired` when not signed by its last day; `under-review` until staff approve or
 * reject; `approved` is followed at once by `issued`.
 */
export type ApplicationStatus = 'received' | 'awaiting-signature' | 'under-review' | 'approved' | 'rejected' | 'issued' | 'expired';

export interface StatusChange {
  readonly status: ApplicationStatus;
  readonly at: string;
  readonly by: string;
  readonly reason: string | null;
  /** The reason the firm that made the application reads, where it is not `reason` (staff's). */
  readonly callerReason?: string;
}

/** What every application has; `customerId` is the policyholder, or a plan's employer. */
export interface ApplicationSummary {
  readonly applicationId: string;
  readonly kind: 'insurance' | 'plan';
  readonly firmOrganisationNumber: string;
  readonly advisorCode: string;
  readonly customerId: string;
  readonly productId: string;
  readonly productName: string;
  readonly status: ApplicationStatus;
  readonly submittedAt: string;
  /** The insurance an insurance application was issued as; null until issued, and for plans. */
  readonly insuranceId: string | null;
  /** The agreement a plan application was issued as; null until issued, and for insurances. */
  readonly agreementId: string | null;
}

/** Who signs an application, and who has (its sign case); null for applications made before signing was asked for. */
export interface ApplicationSigning {
  readonly signCaseId: string;
  /** The last day it may be signed (Stockholm). */
  readonly signBy: string;
  /** How many of the company signatories must sign; null when none sign. */
  readonly companySignaturesRequired: number | null;
  readonly signatories: readonly { readonly role: string; readonly personalNumber: string; readonly signedAt: string | null }[];
}

export interface InsuranceApplicationRecord extends ApplicationSummary {
  readonly kind: 'insurance';
  readonly body: InsuranceApplicationInput;
  readonly history: readonly StatusChange[];
  readonly signing: ApplicationSigning | null;
}

export interface PlanApplicationRecord extends ApplicationSummary {
  readonly kind: 'plan';
  readonly body: PlanApplicationInput;
  readonly history: readonly StatusChange[];
  readonly signing: ApplicationSigning | null;
  /** The employees' insurances once issued, in insurance-number order. */
  readonly insurances: readonly { readonly personalIdentityNumber: string; readonly insuranceId: string }[];
}

export type ApplicationRecord = InsuranceApplicationRecord | PlanApplicationRecord;

/** The product (open, with its premium bounds), its funds and the firm's advisor. */
export async function loadApplicationFacts(db: Sql, input: Pick<InsuranceApplicationInput, 'productId' | 'advisorCode'>, firmOrganisationNumber: string, custodianIds: readonly string[]): Promise<ApplicationFacts> {
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

/** The product (open, with its line and premium bounds), its funds and the firm's advisor, for a plan. */
export async function loadPlanApplicationFacts(db: Sql, input: PlanApplicationInput, firmOrganisationNumber: string, custodianIds: readonly string[]): Promise<PlanApplicationFacts> {
  const facts = await loadApplicationFacts(db, { productId: input.productId, advisorCode: input.advisorCode }, firmOrganisationNumber, custodianIds);
  return { ...facts, product: facts.product && { id: facts.product.id, line: facts.product.line, minMonthlyPremium: facts.product.minMonthlyPremium, maxMonthlyPremium: facts.product.maxMonthlyPremium } };
}

/** The agreements the employer already has with the insurer, by number. */
export async function findEmployerAgreements(db: Sql, employerOrganisationNumber: string): Promise<string[]> {
  const { rows } = await db.query<{ agreement_number: string }>(
    'SELECT agreement_number FROM agreements WHERE employer_organisation_number = $1 ORDER BY agreement_number',
    [employerOrganisationNumber],
  );
  return rows.map((row) => row.agreement_number);
}

/** What is applied for: an individual insurance or an employer's plan, with its body as sent. */
export type AppliedFor =
  | { readonly kind: 'insurance'; readonly body: InsuranceApplicationInput }
  | { readonly kind: 'plan'; readonly body: PlanApplicationInput };

export type NewApplication = AppliedFor & {
  readonly applicationId: string;
  readonly firmOrganisationNumber: string;
  readonly advisorCode: string;
  readonly customerId: string;
  readonly productId: string;
  readonly submittedAt: Date;
};

/**
 * Saves a submitted application, in the caller's transaction (the one that makes its
 * sign case): `received`, then `awaiting-signature` with its sign case and last day to
 * sign. Nothing is decided or issued until every signatory has signed.
 */
export async function insertApplication(tx: Sql, application: NewApplication & { readonly signCaseId: string; readonly signBy: IsoDate }): Promise<void> {
  await tx.query(
    `INSERT INTO applications (application_id, kind, firm_organisation_number, advisor_code, customer_id, product_code, body, status, submitted_at, sign_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'received', $8, $9)`,
    [application.applicationId, application.kind, application.firmOrganisationNumber, application.advisorCode, application.customerId, application.productId,
      JSON.stringify(application.body), application.submittedAt.toISOString(), application.signBy],
  );
  await recordStatus(tx, application.applicationId, { status: 'received', by: `advisor:${application.advisorCode}`, reason: null }, application.submittedAt);
  await recordStatus(tx, application.applicationId, {
    status: 'awaiting-signature', by: 'gateway', reason: `sign case ${application.signCaseId}, to be signed by ${application.signBy}`,
  }, application.submittedAt);
}

/** An application whose signatures are being counted, as it was submitted. */
export type SignedApplication = AppliedFor & {
  readonly applicationId: string;
  readonly firmOrganisationNumber: string;
  readonly advisorCode: string;
  readonly customerId: string;
  readonly submittedAt: Date;
  readonly signBy: IsoDate;
};

/**
 * The application, locked to the end of the caller's transaction, while it awaits its
 * signatures; undefined once it has moved on (decided, or expired). Whoever holds the
 * lock decides it: the last signature, or the expiry — never both.
 */
export async function lockApplicationAwaitingSignature(tx: Sql, applicationId: string): Promise<SignedApplication | undefined> {
  const { rows } = await tx.query<{ kind: AppliedFor['kind']; body: AppliedFor['body'] | string; submittedAt: Date | string; firmOrganisationNumber: string; advisorCode: string; customerId: string; signBy: string }>(
    `SELECT kind, body, submitted_at AS "submittedAt", firm_organisation_number AS "firmOrganisationNumber", advisor_code AS "advisorCode",
            customer_id AS "customerId", sign_by::text AS "signBy"
       FROM applications WHERE application_id = $1 AND status = 'awaiting-signature' FOR UPDATE`,
    [applicationId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const appliedFor = { kind: row.kind, body: typeof row.body === 'string' ? JSON.parse(row.body) as unknown : row.body } as AppliedFor;
  return { ...appliedFor, applicationId, firmOrganisationNumber: row.firmOrganisationNumber, advisorCode: row.advisorCode, customerId: row.customerId, submittedAt: new Date(row.submittedAt), signBy: row.signBy };
}

/**
 * Records what a signed application became, in the caller's transaction: the statuses
 * (`approved`, or `under-review` with its reasons), the review notices, and the issue
 * when the last is `approved`.
 */
export async function recordSignedDecision(tx: Sql, application: SignedApplication, statuses: readonly Omit<StatusChange, 'at'>[], at: Date, day: string): Promise<void> {
  for (const change of statuses) await recordStatus(tx, application.applicationId, change, at);
  if (statuses.some((change) => change.status === 'under-review')) await recordReviewNotices(tx, application, at);
  if (statuses.at(-1)?.status === 'approved') await issue(tx, application.applicationId, application, application.submittedAt, at, day);
}

/**
 * The applications still awaiting signature whose last day to sign is before `today`
 * (only `applicationId`, when given), made `expired` in the caller's transaction, with
 * their last days to sign. An application whose last signature holds its lock is waited
 * for, and then is no longer awaiting signature.
 */
export async function expireUnsignedApplications(tx: Sql, today: IsoDate, at: Date, applicationId?: string): Promise<{ applicationId: string; signBy: IsoDate }[]> {
  const { rows } = await tx.query<{ applicationId: string; signBy: string }>(
    `WITH expired AS (
       UPDATE applications SET status = 'expired'
        WHERE status = 'awaiting-signature' AND sign_by < $1::date AND ($3::text IS NULL OR application_id = $3)
       RETURNING application_id, sign_by
     ), recorded AS (
       INSERT INTO application_status_changes (application_id, status, changed_at, changed_by, reason)
       SELECT application_id, 'expired', $2::timestamptz, 'gateway', 'not signed by ' || sign_by::text FROM expired
     )
     SELECT application_id AS "applicationId", sign_by::text AS "signBy" FROM expired`,
    [today, at.toISOString(), applicationId ?? null],
  );
  return rows.sort((a, b) => a.applicationId.localeCompare(b.applicationId));
}

/**
 * The employer's agreements, read under a lock on the employer held to the end of the
 * transaction: two plans of one employer whose last signatures come at once are decided
 * one after the other, so the second sees the agreement the first issued.
 */
export async function lockEmployerAgreements(tx: Sql, employerOrganisationNumber: string): Promise<string[]> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('employer:' || $1::text))", [employerOrganisationNumber]);
  return findEmployerAgreements(tx, employerOrganisationNumber);
}

export type ReviewDecision = 'approve' | 'reject';

/**
 * A person's decision on an application under review: approved (and issued at once)
 * or rejected, with the reason. Undefined when there is no such application under review.
 */
export async function decideApplication(db: Database, applicationId: string, decision: ReviewDecision, by: string, reason: string, at: Date, day: string): Promise<ApplicationStatus | undefined> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ kind: AppliedFor['kind']; body: AppliedFor['body'] | string; submittedAt: Date | string }>(
      `SELECT kind, body, submitted_at AS "submittedAt" FROM applications WHERE application_id = $1 AND status = 'under-review' FOR UPDATE`,
      [applicationId],
    );
    const row = rows[0];
    if (!row) return undefined;
    if (decision === 'reject') {
      await recordStatus(tx, applicationId, { status: 'rejected', by, reason }, at);
      return 'rejected';
    }
    await recordStatus(tx, applicationId, { status: 'approved', by, reason }, at);
    const appliedFor = { kind: row.kind, body: typeof row.body === 'string' ? JSON.parse(row.body) as unknown : row.body } as AppliedFor;
    await issue(tx, applicationId, appliedFor, new Date(row.submittedAt), at, day);
    return 'issued';
  });
}

export interface ApplicationFilter {
  /** Only applications with this status; all when left out. */
  readonly status?: ApplicationStatus | undefined;
  /** Only individual insurances or only employers' plans; both when left out. */
  readonly kind?: ApplicationSummary['kind'] | undefined;
}

/** Applications by status and kind (all when none given), oldest first: the staff's review list. */
export async function listApplications(db: Sql, filter: ApplicationFilter, limit: number): Promise<ApplicationSummary[]> {
  const { rows } = await db.query<ApplicationSummary & { submittedAt: Date | string }>(
    `SELECT ${SUMMARY_COLUMNS}
       FROM applications a JOIN products p ON p.code = a.product_code
      WHERE ($1::text IS NULL OR a.status = $1) AND ($2::text IS NULL OR a.kind = $2)
      ORDER BY a.submitted_at, a.application_id LIMIT $3`,
    [filter.status ?? null, filter.kind ?? null, limit],
  );
  return rows.map((row) => ({ ...row, submittedAt: iso(row.submittedAt) }));
}

const SUMMARY_COLUMNS = `a.application_id AS "applicationId", a.kind, a.firm_organisation_number AS "firmOrganisationNumber", a.advisor_code AS "advisorCode",
            a.customer_id AS "customerId", a.product_code AS "productId", p.name AS "productName", a.status, a.submitted_at AS "submittedAt",
            a.insurance_number AS "insuranceId", a.agreement_number AS "agreementId"`;

/** Issues the approved application in the caller's transaction: the insurance, or the plan's agreement and insurances. */
async function issue(tx: Sql, applicationId: string, appliedFor: AppliedFor, submittedAt: Date, at: Date, day: string): Promise<void> {
  let issuedAs: string;
  switch (appliedFor.kind) {
    case 'insurance':
      issuedAs = `insurance ${await issueInsurance(tx, applicationId, appliedFor.body, day)}`;
      break;
    case 'plan': {
      const plan = await issuePlan(tx, applicationId, appliedFor.body, { day, submittedOn: stockholmDate(submittedAt), at });
      issuedAs = `agreement ${plan.agreementNumber} with ${plan.insuranceNumbers.length} insurance${plan.insuranceNumbers.length === 1 ? '' : 's'}`;
      break;
    }
    default:
      return appliedFor satisfies never;
  }
  await recordStatus(tx, applicationId, { status: 'issued', by: 'gateway', reason: issuedAs }, at);
}

async function recordStatus(tx: Sql, applicationId: string, change: Omit<StatusChange, 'at'>, at: Date): Promise<void> {
  await tx.query('UPDATE applications SET status = $2 WHERE application_id = $1', [applicationId, change.status]);
  await tx.query(
    'INSERT INTO application_status_changes (application_id, status, changed_at, changed_by, reason, caller_reason) VALUES ($1, $2, $3, $4, $5, $6)',
    [applicationId, change.status, at.toISOString(), change.by, change.reason, change.callerReason ?? null],
  );
}

/**
 * The application's sign case, its last day to sign and its signatories in the order
 * GET /SignCase/{id} gives them, as one JSON column (null before signing was asked for).
 */
const SIGNING = `(SELECT json_build_object('signCaseId', s.sign_case_id, 'signBy', a.sign_by::text, 'companySignaturesRequired', s.company_signatures_required,
                   'signatories', (SELECT json_agg(json_build_object('role', g.role, 'personalNumber', g.personal_number, 'signedAt', ${ISO_UTC('g.signed_at')})
                                                   ORDER BY CASE g.role WHEN 'policyholder' THEN 0 WHEN 'company-signatory' THEN 1 ELSE 2 END, g.personal_number)
                                     FROM sign_case_signatories g WHERE g.sign_case_id = s.sign_case_id))
            FROM sign_cases s WHERE s.subject_kind = 'application' AND s.subject_id = a.application_id) AS signing`;

type Insured = PlanApplicationRecord['insurances'][number];

/**
 * The application with its status history (and a plan's insurances once issued), in
 * one round trip (the advisors' most frequent read).
 */
export async function findApplication(db: Sql, applicationId: string, audience: ReasonAudience = 'staff'): Promise<ApplicationRecord | undefined> {
  const { rows } = await db.query<ApplicationSummary & {
    submittedAt: Date | string; body: unknown; history: StatusChange[] | string | null; insurances: Insured[] | string | null; signing: ApplicationSigning | string | null;
  }>(
    `SELECT ${SUMMARY_COLUMNS}, a.body, ${SIGNING},
            (SELECT json_agg(json_build_object('status', c.status, 'at', ${ISO_UTC('c.changed_at')}, 'by', c.changed_by, 'reason', ${reasonFor(audience)}) ORDER BY c.id)
               FROM application_status_changes c WHERE c.application_id = a.application_id) AS history,
            (SELECT json_agg(json_build_object('personalIdentityNumber', i.insured_pin, 'insuranceId', i.insurance_number) ORDER BY i.insurance_number)
               FROM insurances i WHERE a.agreement_number IS NOT NULL AND i.agreement_number = a.agreement_number AND i.created_by_message = a.application_id) AS insurances
       FROM applications a JOIN products p ON p.code = a.product_code WHERE a.application_id = $1`,
    [applicationId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const { body, history, insurances, signing, ...summary } = row;
  const common = { ...summary, submittedAt: iso(row.submittedAt), history: parsed(history) ?? [], signing: parsed(signing) };
  return row.kind === 'plan'
    ? { ...common, kind: 'plan', body: parsed(body) as PlanApplicationInput, insurances: parsed(insurances) ?? [] }
    : { ...common, kind: 'insurance', body: parsed(body) as InsuranceApplicationInput };
}

/** What an application's status answer shows, and whose it is to see. */
export type ApplicationStatusRecord = Pick<ApplicationRecord, 'applicationId' | 'kind' | 'firmOrganisationNumber' | 'productId' | 'customerId' | 'status' | 'submittedAt' | 'insuranceId' | 'history'> & {
  /** Its sign case (GET /SignCase/{id}); null for applications made before signing was asked for. */
  readonly signCaseId: string | null;
  /** The last day it may be signed. */
  readonly signBy: string | null;
};

/**
 * The status of an application and its history, for GET /InsuranceApplication/{id}: the
 * REST API's most frequent read, so it reads the applications row by its key, the
 * history and the sign case by their indexes, and nothing else (no body, no product
 * name), in one round trip.
 * PostgreSQL gives it as one JSON value: the driver then parses one column, not nine.
 */
export async function findApplicationStatus(db: Sql, applicationId: string, audience: ReasonAudience = 'staff'): Promise<ApplicationStatusRecord | undefined> {
  const { rows } = await db.query<{ application: ApplicationStatusRecord | string }>(
    `SELECT json_build_object(
              'applicationId', a.application_id, 'kind', a.kind, 'firmOrganisationNumber', a.firm_organisation_number, 'productId', a.product_code,
              'customerId', a.customer_id, 'status', a.status, 'submittedAt', ${ISO_UTC('a.submitted_at')}, 'insuranceId', a.insurance_number,
              'signCaseId', (SELECT s.sign_case_id FROM sign_cases s WHERE s.subject_kind = 'application' AND s.subject_id = a.application_id), 'signBy', a.sign_by::text,
              'history', coalesce((SELECT json_agg(json_build_object('status', c.status, 'at', ${ISO_UTC('c.changed_at')}, 'by', c.changed_by, 'reason', ${reasonFor(audience)}) ORDER BY c.id)
                                     FROM application_status_changes c WHERE c.application_id = a.application_id), '[]')) AS application
       FROM applications a WHERE a.application_id = $1`,
    [applicationId],
  );
  return rows[0] && parsed(rows[0].application) as ApplicationStatusRecord;
}

/** Who reads a status history: staff read every reason as recorded, the firm that made the application its own version where one was recorded. */
export type ReasonAudience = 'staff' | 'caller';

function reasonFor(audience: ReasonAudience): string {
  return audience === 'caller' ? 'coalesce(c.caller_reason, c.reason)' : 'c.reason';
}

/** A json column as the driver gave it: parsed already (pg), or text (PGlite in some modes). */
function parsed<T>(value: T | string | null): T | null {
  return typeof value === 'string' ? JSON.parse(value) as T : value;
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
