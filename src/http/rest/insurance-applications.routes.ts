import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ulid } from 'ulid';
import type { GatewayConfig } from '../../config/config.schema.ts';
import { decideAccess } from '../../core/access.policy.ts';
import { stockholmDate } from '../../core/calendar-date.ts';
import { checkInsuranceApplication, reviewReasons, type ApplicationProblem, type InsuranceApplicationInput } from '../../core/insurance-application.rules.ts';
import type { Database } from '../../ledger/database.ts';
import {
  findApplication, findApplicationStatus, listCustomerApplications, loadApplicationFacts, type ApplicationStatusRecord, type ReasonAudience,
} from '../../ledger/advice/applications.repository.ts';
import { applicationSigningOf, submitApplication, withSigningProblem } from '../../requests/application-submission.ts';
import { customerAccessFacts } from '../../ledger/advice/powers-of-attorney.repository.ts';
import { renderApplicationReceipt } from '../../documents/application-receipt.ts';
import { callerOf, notAvailable } from './api-auth.ts';
import { accessGate } from './customer-access.ts';
import { sendProblem } from './problem-details.ts';

/**
 * Individual insurance applications from advisor firms: check (POST
 * /InsuranceApplication/validation), submit (POST /InsuranceApplication), read the
 * status and its history, get the PDF receipt, and list a customer's applications.
 *
 * A submitted application is saved `received`, then `awaiting-signature` with its sign
 * case (application-submission.ts): the policyholder signs, and the insured where
 * another person (an organisation: its company signatories), through /SignCase/{id}.
 * The last signature decides it: `approved` and `issued` at once (the insurance and its
 * custody account created in the ledger) or `under-review` with the reasons the review
 * rules (`api.review`) gave, for staff to approve or reject
 * (application-review.routes.ts); not signed in time, it is `expired`. An application
 * is the submitting firm's only; anyone else gets the same 404 as for an id that does
 * not exist (its sign case is the firm's too, and the customer's).
 *
 * The receipt names who signs and who has signed, when.
 */
export interface ApplicationRouteOptions {
  readonly config: Readonly<GatewayConfig>;
  readonly db: Database;
  readonly clock: () => Date;
}

const problem = { $ref: 'Problem#' } as const;
const idParam = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } } as const;
const body = { $ref: 'InsuranceApplication#' } as const;

export async function registerInsuranceApplicationRoutes(app: FastifyInstance, options: ApplicationRouteOptions): Promise<void> {
  const { config, db, clock } = options;
  const custodianIds = config.counterparties.filter((counterparty) => counterparty.role === 'custodian').map((counterparty) => counterparty.id);

  /** The caller must be an advisor firm; the problems of the body, business rules included. */
  async function check(request: FastifyRequest) {
    const caller = callerOf(request);
    if (!decideAccess(caller, { kind: 'new-application' }, stockholmDate(clock())).allowed || caller.kind !== 'advisor-firm') {
      throw notAvailable();
    }
    const input = request.body as InsuranceApplicationInput;
    const [facts, signing] = await Promise.all([
      loadApplicationFacts(db, input, caller.organisationNumber, custodianIds),
      applicationSigningOf(db, { kind: 'insurance', body: input }, stockholmDate(clock())),
    ]);
    return { caller, input, problems: withSigningProblem(checkInsuranceApplication(input, facts), signing) };
  }

  app.post('/InsuranceApplication/validation', {
    schema: {
      tags: ['applications'], summary: 'Check an insurance application without saving it: every problem at once', body,
      response: { 200: { type: 'object', required: ['valid', 'reviewReasons'], properties: { valid: { const: true }, reviewReasons: { type: 'array', items: { type: 'string' } } } }, 400: problem, 401: problem, 422: problem },
    },
  }, async (request, reply) => {
    const { input, problems } = await check(request);
    if (problems.length > 0) return unprocessable(reply, problems);
    return { valid: true, reviewReasons: reviewReasons(input, config.api.review, stockholmDate(clock())) };
  });

  app.post('/InsuranceApplication', {
    schema: {
      tags: ['applications'], summary: 'Submit an individual insurance application', body,
      response: { 201: { $ref: 'ApplicationStatus#' }, 400: problem, 401: problem, 422: problem },
    },
  }, async (request, reply) => {
    const { caller, input, problems } = await check(request);
    if (problems.length > 0) return unprocessable(reply, problems);
    const now = clock();
    const applicationId = `IA-${ulid(now.getTime())}`;
    const submitted = await submitApplication(db, {
      application: {
        applicationId, kind: 'insurance', firmOrganisationNumber: caller.organisationNumber, advisorCode: input.advisorCode,
        customerId: input.policyholder.id, productId: input.productId, body: input, submittedAt: now,
      },
      signingDays: config.api.applicationSigningDays,
    });
    if (!submitted.made) return unprocessable(reply, [submitted.problem]);
    const saved = (await findApplicationStatus(db, applicationId, 'caller'))!;
    return reply.code(201).header('location', `/InsuranceApplication/${applicationId}`).send(statusView(saved));
  });

  /**
   * The insurance application `find` reads (all of it, or its status only), when it exists
   * and is the caller's; RESOURCE_NOT_FOUND either way otherwise.
   */
  async function ownApplication<Found extends Pick<ApplicationStatusRecord, 'kind' | 'firmOrganisationNumber'>>(
    request: FastifyRequest, find: (db: Database, id: string, audience: ReasonAudience) => Promise<Found | undefined>,
  ): Promise<Found & { kind: 'insurance' }> {
    const { id } = request.params as { id: string };
    const application = await find(db, id, 'caller');
    const access = application && decideAccess(callerOf(request), { kind: 'application', firmOrganisationNumber: application.firmOrganisationNumber }, stockholmDate(clock()));
    if (!application || !access?.allowed || !isInsurance(application)) throw notAvailable();
    return application;
  }

  app.get('/InsuranceApplication/:id', {
    schema: { tags: ['applications'], summary: 'Status and status history of an application', params: idParam, response: { 200: { $ref: 'ApplicationStatus#' }, 401: problem, 404: problem } },
  }, async (request) => statusView(await ownApplication(request, findApplicationStatus)));

  app.get('/InsuranceApplication/:id/Receipt', {
    schema: {
      tags: ['applications'], summary: 'PDF copy of the application', params: idParam, produces: ['application/pdf'],
      response: { 200: { description: 'The receipt (PDF)', type: 'string', format: 'binary' }, 401: problem, 404: problem },
    },
  }, async (request, reply) => {
    const application = await ownApplication(request, findApplication);
    return reply.type('application/pdf').header('content-disposition', `inline; filename="${application.applicationId}.pdf"`).send(await renderApplicationReceipt(application));
  });

  app.get('/Customer/:id/InsuranceApplications', {
    schema: {
      tags: ['applications'], summary: 'The applications your firm made for a policyholder (needs a power of attorney)',
      params: { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^(\\d{10}|\\d{12})$' } } },
      response: { 200: { type: 'array', items: { $ref: 'CustomerApplication#' } }, 401: problem, 404: problem },
    },
  }, async (request) => {
    const { id } = request.params as { id: string };
    const caller = callerOf(request);
    if (!accessGate(caller, clock(), 'read')(await customerAccessFacts(db, id)) || caller.kind !== 'advisor-firm') throw notAvailable();
    return listCustomerApplications(db, id, caller.organisationNumber);
  });
}

function isInsurance<Found extends Pick<ApplicationStatusRecord, 'kind'>>(application: Found): application is Found & { kind: 'insurance' } {
  return application.kind === 'insurance';
}

function statusView(application: ApplicationStatusRecord) {
  return {
    applicationId: application.applicationId, productId: application.productId, customerId: application.customerId,
    status: application.status, submittedAt: application.submittedAt, signCaseId: application.signCaseId, signBy: application.signBy,
    insuranceId: application.insuranceId, history: application.history,
  };
}

function unprocessable(reply: Parameters<typeof sendProblem>[0], problems: readonly ApplicationProblem[]) {
  return sendProblem(reply, 'APPLICATION_INVALID', `${problems.length} problem${problems.length === 1 ? '' : 's'} in the application`, problems);
}
