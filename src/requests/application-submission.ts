import { applicationSignBy, insuranceApplicationSignText, planApplicationSignText } from '../core/application-signing.rules.ts';
import { stockholmDate, type IsoDate } from '../core/calendar-date.ts';
import { companySigningOf, inForceOn } from '../core/company-signatories.rules.ts';
import type { ApplicationProblem } from '../core/insurance-application.rules.ts';
import { signatoriesOf, type Signatory } from '../core/withdrawal-request.rules.ts';
import { insertApplication, type AppliedFor, type NewApplication } from '../ledger/advice/applications.repository.ts';
import { companySigningRegister } from '../ledger/advice/company-signatories.repository.ts';
import type { Database, Sql } from '../ledger/database.ts';
import { insertSignCase } from '../ledger/advice/sign-cases.repository.ts';

/**
 * Submitting an application (POST /InsuranceApplication, POST /PlanApplication): it is
 * saved `received` → `awaiting-signature` together with its sign case, in one
 * transaction, and nothing takes effect until every signatory has signed through the
 * sign case's Sign and Collect (or the insurer's signing page); the last signature
 * decides it (application-signed.ts).
 *
 * Invariants:
 * - who signs is read from the company-signatory register in the transaction that makes
 *   the case (core/application-signing.rules.ts): an organisation policyholder or an
 *   employer without signatories in force or a signing rule cannot sign, so its
 *   application is refused APPLICATION_SIGNATORIES_MISSING and nothing is saved;
 * - the text the signatories sign names the application, and the last day to sign is
 *   fixed at submission (`api.applicationSigningDays` after its day).
 */
export interface ApplicationSubmission {
  readonly application: NewApplication;
  /** `api.applicationSigningDays`. */
  readonly signingDays: number;
}

export type SubmissionOutcome =
  | { readonly made: true; readonly signCaseId: string; readonly signBy: IsoDate }
  | { readonly made: false; readonly problem: ApplicationProblem };

export async function submitApplication(db: Database, submission: ApplicationSubmission): Promise<SubmissionOutcome> {
  const { application } = submission;
  const now = application.submittedAt;
  const today = stockholmDate(now);
  return db.transaction(async (tx): Promise<SubmissionOutcome> => {
    const signing = await applicationSigningOf(tx, application, today);
    if ('problem' in signing) return { made: false, problem: signing.problem };
    const signCaseId = `SC-${application.applicationId.slice(3)}`;
    const signBy = applicationSignBy(today, submission.signingDays);
    await insertApplication(tx, { ...application, signCaseId, signBy });
    await insertSignCase(tx, {
      signCaseId, subject: { kind: 'application', id: application.applicationId }, customerId: application.customerId, custodianId: application.body.custodianId,
      visibleText: signText(application, await productName(tx, application.productId)),
      signatories: signing.signatories, companySignaturesRequired: signing.required, createdAt: now,
    });
    return { made: true, signCaseId, signBy };
  });
}

export type ApplicationSigning = { readonly signatories: Signatory[]; readonly required: number | null } | { readonly problem: ApplicationProblem };

/**
 * Who signs the application (core/application-signing.rules.ts), or the problem that
 * none can: an organisation with no company signatories in force on `today`, no signing
 * rule, or fewer in force than the rule asks. Also what POST …/validation reports.
 */
export async function applicationSigningOf(sql: Sql, appliedFor: AppliedFor, today: IsoDate): Promise<ApplicationSigning> {
  switch (appliedFor.kind) {
    case 'insurance': {
      const { policyholder, insured } = appliedFor.body;
      const personal = signatoriesOf(policyholder.id, insured.id);
      if (personal) return { signatories: personal, required: null };
      return companySigning(sql, '$.policyholder.id', { organisationNumber: policyholder.id, insured: insured.id }, today);
    }
    case 'plan':
      return companySigning(sql, '$.employer.organisationNumber', { organisationNumber: appliedFor.body.employer.organisationNumber, signsFor: 'employer' }, today);
    default:
      return appliedFor satisfies never;
  }
}

/**
 * The problems of a check with the signing's, when it has one and the value it is about
 * has no problem already (an organisation number that is not one has no signatories
 * either: saying so would add nothing).
 */
export function withSigningProblem<Problem extends ApplicationProblem>(problems: readonly Problem[], signing: ApplicationSigning): (Problem | ApplicationProblem)[] {
  if (!('problem' in signing) || problems.some((problem) => problem.path === signing.problem.path)) return [...problems];
  return [...problems, signing.problem];
}

async function companySigning(
  sql: Sql, path: string, organisation: { organisationNumber: string; insured?: string; signsFor?: 'employer' }, today: IsoDate,
): Promise<ApplicationSigning> {
  const register = await companySigningRegister(sql, organisation.organisationNumber);
  const company = companySigningOf({ ...organisation, inForce: inForceOn(register.signatories, today), required: register.requiredSignatures ?? undefined });
  if (!company.ok) return { problem: { path, code: 'APPLICATION_SIGNATORIES_MISSING', message: company.message } };
  return { signatories: company.signatories, required: company.required };
}

function signText(application: NewApplication, name: string): string {
  switch (application.kind) {
    case 'insurance': {
      const { body } = application;
      return insuranceApplicationSignText({
        applicationId: application.applicationId, productId: application.productId, productName: name,
        policyholder: body.policyholder.id, insured: body.insured.id, premium: body.premium, coverages: body.coverages,
      });
    }
    case 'plan': {
      const { body } = application;
      return planApplicationSignText({
        applicationId: application.applicationId, productId: application.productId, productName: name,
        employer: body.employer, employees: body.employees.length, categories: body.agreement.categories,
      });
    }
    default:
      return application satisfies never;
  }
}

async function productName(tx: Sql, productId: string): Promise<string> {
  const { rows } = await tx.query<{ name: string }>('SELECT name FROM products WHERE code = $1', [productId]);
  return rows[0]?.name ?? productId;
}
