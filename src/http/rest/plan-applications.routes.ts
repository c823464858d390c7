import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ulid } from 'ulid';
import type { GatewayConfig } from '../../config/config.schema.ts';
import { decideAccess } from '../../core/access.policy.ts';
import { stockholmDate } from '../../core/calendar-date.ts';
import type { ApplicationProblem } from '../../core/insurance-application.rules.ts';
import { checkPlanApplication, planPremiums, planReviewReasons, reviewReasonsShown, type PlanApplicationInput } from '../../core/plan-application.rules.ts';
import type { Database } from '../../ledger/database.ts';
import { findApplication, findEmployerAgreements, loadPlanApplicationFacts, type PlanApplicationRecord } from '../../ledger/advice/applications.repository.ts';
import { applicationSigningOf, submitApplication, withSigningProblem } from '../../requests/application-submission.ts';
import { renderPlanApplicationReceipt } from '../../documents/plan-application-receipt.ts';
import { customerAccessFacts } from '../../ledger/advice/powers-of-attorney.repository.ts';
import { callerOf, notAvailable } from './api-auth.ts';
import { accessGate } from './customer-access.ts';
import { sendProblem } from './problem-details.ts';

/**
 * Pension plan applications from advisor firms (an employer's occupational plan):
 * check (POST /PlanApplication/validation), submit (POST /PlanApplication), read the
 * status and its history, get the PDF receipt.
 *
 * As for insurance applications, a submitted plan is saved `received`, then
 * `awaiting-signature` with its sign case, which the employer's company signatories
 * sign by the register's rule (an employer with none in force or no rule is refused
 * APPLICATION_SIGNATORIES_MISSING). The last signature decides it (application-signed.ts):
 * `approved` and `issued` at once — the agreement, its categories and cost centers, the
 * employees' employments and insurances created in the ledger — or `under-review` with
 * the reasons the review rules gave (`api.review.planEmployeesAbove`; an employer that
 * already has an agreement then), for staff to decide through /api/applications. A plan
 * application is the submitting firm's only; anyone else gets the same 404 as for an
 * unknown id.
 */
export interface PlanApplicationRouteOptions {
  readonly config: Readonly<GatewayConfig>;
  readonly db: Database;
  readonly clock: () => Date;
}

const problem = { $ref: 'Problem#' } as const;
const idParam = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } } as const;
const body = { $ref: 'PlanApplication#' } as const;
const premiums = {
  type: 'array', description: "Each employee's monthly premium under the category's rule, SEK",
  items: { type: 'object', required: ['personalIdentityNumber', 'monthlyPremium'], properties: { personalIdentityNumber: { type: 'string' }, monthlyPremium: { type: 'string' } } },
} as const;

export async function registerPlanApplicationRoutes(app: FastifyInstance, options: PlanApplicationRouteOptions): Promise<void> {
  const { config, db, clock } = options;
  const custodianIds = config.counterparties.filter((counterparty) => counterparty.role === 'custodian').map((counterparty) => counterparty.id);

  /**
   * The caller must be an advisor firm; the problems of the body (business rules), and
   * which reasons for a review the firm is told: what the insurer knows of the employer
   * only when the firm holds a power of attorney on the employer. A submitted plan's
   * review is decided when it is signed (application-signed.ts).
   */
  async function check(request: FastifyRequest, now: Date) {
    const today = stockholmDate(now);
    const caller = callerOf(request);
    if (!decideAccess(caller, { kind: 'new-application' }, today).allowed || caller.kind !== 'advisor-firm') {
      throw notAvailable();
    }
    const input = request.body as PlanApplicationInput;
    const [facts, agreements, employerAccess, signing] = await Promise.all([
      loadPlanApplicationFacts(db, input, caller.organisationNumber, custodianIds),
      findEmployerAgreements(db, input.employer.organisationNumber),
      customerAccessFacts(db, input.employer.organisationNumber),
      applicationSigningOf(db, { kind: 'plan', body: input }, today),
    ]);
    const problems = withSigningProblem(checkPlanApplication(input, facts, today), signing);
    const firmMaySeeEmployer = accessGate(caller, now, 'read')(employerAccess);
    const shown = problems.length > 0 ? [] : reviewReasonsShown(planReviewReasons(input, config.api.review, agreements), firmMaySeeEmployer);
    return { caller, input, problems, shown };
  }

  app.post('/PlanApplication/validation', {
    schema: {
      tags: ['applications'], summary: 'Check a pension plan application without saving it: every problem at once, and the premiums it gives', body,
      response: {
        200: { type: 'object', required: ['valid', 'reviewReasons', 'premiums'], properties: { valid: { const: true }, reviewReasons: { type: 'array', items: { type: 'string' } }, premiums } },
        400: problem, 401: problem, 404: problem, 422: problem,
      },
    },
  }, async (request, reply) => {
    const now = clock();
    const { input, problems, shown } = await check(request, now);
    if (problems.length > 0) return unprocessable(reply, problems);
    return { valid: true, reviewReasons: shown, premiums: planPremiums(input, stockholmDate(now)) };
  });

  app.post('/PlanApplication', {
    schema: {
      tags: ['applications'], summary: "Submit a pension plan application (an employer's occupational plan)", body,
      response: { 201: { $ref: 'PlanApplicationStatus#' }, 400: problem, 401: problem, 404: problem, 422: problem },
    },
  }, async (request, reply) => {
    const now = clock();
    const { caller, input, problems } = await check(request, now);
    if (problems.length > 0) return unprocessable(reply, problems);
    const applicationId = `PA-${ulid(now.getTime())}`;
    const submitted = await submitApplication(db, {
      application: {
        applicationId, kind: 'plan', firmOrganisationNumber: caller.organisationNumber, advisorCode: input.advisorCode,
        customerId: input.employer.organisationNumber, productId: input.productId, body: input, submittedAt: now,
      },
      signingDays: config.api.applicationSigningDays,
    });
    if (!submitted.made) return unprocessable(reply, [submitted.problem]);
    const saved = (await findApplication(db, applicationId, 'caller')) as PlanApplicationRecord;
    return reply.code(201).header('location', `/PlanApplication/${applicationId}`).send(statusView(saved));
  });

  /** The plan application, when it exists and is the caller's; RESOURCE_NOT_FOUND either way otherwise. */
  async function ownApplication(request: FastifyRequest): Promise<PlanApplicationRecord> {
    const { id } = request.params as { id: string };
    const application = await findApplication(db, id, 'caller');
    const access = application && decideAccess(callerOf(request), { kind: 'application', firmOrganisationNumber: application.firmOrganisationNumber }, stockholmDate(clock()));
    if (!application || !access?.allowed || application.kind !== 'plan') throw notAvailable();
    return application;
  }

  app.get('/PlanApplication/:id', {
    schema: { tags: ['applications'], summary: 'Status and status history of a pension plan application', params: idParam, response: { 200: { $ref: 'PlanApplicationStatus#' }, 401: problem, 404: problem } },
  }, async (request) => statusView(await ownApplication(request)));

  app.get('/PlanApplication/:id/Receipt', {
    schema: {
      tags: ['applications'], summary: 'PDF copy of the pension plan application', params: idParam, produces: ['application/pdf'],
      response: { 200: { description: 'The receipt (PDF)', type: 'string', format: 'binary' }, 401: problem, 404: problem },
    },
  }, async (request, reply) => {
    const application = await ownApplication(request);
    return reply.type('application/pdf').header('content-disposition', `inline; filename="${application.applicationId}.pdf"`).send(await renderPlanApplicationReceipt(application));
  });
}

function statusView(application: PlanApplicationRecord) {
  return {
    applicationId: application.applicationId, productId: application.productId, employerOrganisationNumber: application.customerId,
    status: application.status, submittedAt: application.submittedAt, signCaseId: application.signing?.signCaseId ?? null, signBy: application.signing?.signBy ?? null,
    agreementId: application.agreementId, insurances: application.insurances, history: application.history,
  };
}

function unprocessable(reply: FastifyReply, problems: readonly ApplicationProblem[]) {
  return sendProblem(reply, 'APPLICATION_INVALID', `${problems.length} problem${problems.length === 1 ? '' : 's'} in the application`, problems);
}
