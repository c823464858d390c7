import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decideAccess, type AccessPurpose } from '../../core/access.policy.ts';
import { stockholmDate } from '../../core/calendar-date.ts';
import { isFullySigned } from '../../core/company-signatories.rules.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import type { SignatoryRole } from '../../core/withdrawal-request.rules.ts';
import type { Database } from '../../ledger/database.ts';
import { findSignCase, findSignOrder, type SignCaseRecord, type SignOrderRecord } from '../../ledger/advice/sign-cases.repository.ts';
import { liveSignLinkExpiries, revokeSignLinks, signatoryKey } from '../../ledger/advice/sign-links.repository.ts';
import { qrDataNow, signatoryOf, signatoryToSign, type SignCaseSigning } from '../../requests/sign-case-signing.ts';
import { issueSignLink, signLinkUrl } from '../../requests/sign-links.ts';
import { callerOf, notAvailable } from './api-auth.ts';
import { accessGate } from './customer-access.ts';

/**
 * Sign cases over the REST API, the same for every interface that starts a signing
 * (ours, an advisor's, a custodian's): GET /SignCase/{id} lists the signatories by role
 * and whether each has signed; POST …/Sign starts a BankID sign order for one
 * signatory, showing the case's text (insurance, amount, account); POST …/Collect asks
 * BankID where an order stands; POST …/Link makes a signatory's link to the insurer's
 * signing page, where they sign by themselves, and POST …/Link/revoke takes their links
 * back.
 *
 * - Sign and Collect are the signing page's own functions (sign-case-signing.ts): a
 *   repeat of Sign while an order of that signatory is pending returns the pending order
 *   (200, same orderRef) once BankID says it is still pending; an order that has ended
 *   meanwhile is recorded and a new one started (201). A completed order counts only
 *   when signed by the signatory over exactly the case's text.
 * - An organisation policyholder's company signatories share the role
 *   `company-signatory`; Sign and Link name which of them (personalNumber), and the case
 *   completes once the required count of them, and the insured, have signed.
 * - The last signature of an approved request orders the withdrawal in the same
 *   transaction (withdrawal-order.ts); of an application, decides and issues it
 *   (application-signed.ts).
 * - An application's case is the customer's, and also the firm's that made the
 *   application (which may hold no power of attorney on a new customer).
 */
export interface SignCaseRouteOptions {
  readonly db: Database;
  readonly clock: () => Date;
  readonly signing: SignCaseSigning;
  /** How long a signing link works, and the signing page's address the links name. */
  readonly links: { readonly lifetimeHours: number; readonly baseUrl: () => string };
}

const problem = { $ref: 'Problem#' } as const;
const signOrder = {
  type: 'object', required: ['orderRef', 'role', 'status', 'autoStartToken', 'qrStartToken', 'qrData'],
  properties: {
    orderRef: { type: 'string', description: 'Collect with it' }, role: { type: 'string' }, status: { type: 'string', enum: ['pending'] },
    autoStartToken: { type: 'string', description: 'Starts the BankID app on the same device (bankid:///?autostarttoken=…)' },
    qrStartToken: { type: 'string' }, qrData: { type: 'string', description: "The QR code's content for this second; Collect gives the next" },
  },
} as const;
const idParam = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } } as const;
const role = { type: 'string', enum: ['policyholder', 'insured', 'company-signatory'] } as const;
const personalNumber = { type: 'string', pattern: '^[0-9]{12}$', description: 'Which company signatory (of role company-signatory)' } as const;
const signatoryBody = { type: 'object', additionalProperties: false, required: ['role'], properties: { role, personalNumber } } as const;
const signLink = {
  type: 'object', required: ['role', 'personalNumber', 'url', 'expiresAt'],
  properties: {
    role: { type: 'string' }, personalNumber: { type: 'string' },
    url: { type: 'string', description: "The signatory's page: give it to them (and no one else); it is shown only now" },
    expiresAt: { type: 'string', format: 'date-time', description: 'When it stops working, if the case is not complete or closed before' },
  },
} as const;

export async function registerSignCaseRoutes(app: FastifyInstance, options: SignCaseRouteOptions): Promise<void> {
  const { db, clock, signing } = options;

  /**
   * The case, when the caller may read it (GET) or act on it (Sign, Collect, Link): the
   * customer's data, or an application's case as the firm that made the application; the
   * same 404 as for no case otherwise.
   */
  async function visibleCase(request: FastifyRequest, purpose: AccessPurpose): Promise<SignCaseRecord> {
    const caller = callerOf(request);
    const now = clock();
    const signCase = await findSignCase(db, (request.params as { id: string }).id, {
      customer: accessGate(caller, now, purpose),
      applicationFirm: (firmOrganisationNumber) => decideAccess(caller, { kind: 'application', firmOrganisationNumber }, stockholmDate(now)).allowed,
    });
    if (!signCase) throw notAvailable();
    return signCase;
  }

  app.get('/SignCase/:id', {
    schema: { tags: ['signing'], summary: 'The signatories of a sign case with their roles and whether each has signed', params: idParam, response: { 200: { $ref: 'SignCase#' }, 401: problem, 404: problem } },
  }, async (request) => {
    const signCase = await visibleCase(request, 'read');
    return caseView(signCase, await liveSignLinkExpiries(db, signCase.signCaseId, clock()));
  });

  app.post('/SignCase/:id/Sign', {
    schema: {
      tags: ['signing'], summary: "Start a signatory's BankID signing: orderRef, autoStartToken and the QR code's data", params: idParam,
      body: {
        type: 'object', additionalProperties: false, required: ['role'],
        properties: {
          role, personalNumber,
          endUserIp: { type: 'string', minLength: 2, maxLength: 45, description: "The signing person's IP address as the calling interface sees it; default: the caller's" },
        },
      },
      response: { 200: signOrder, 201: signOrder, 400: problem, 401: problem, 404: problem, 409: problem, 503: problem },
    },
  }, async (request, reply) => {
    const signCase = await visibleCase(request, 'act');
    const body = request.body as { role: SignatoryRole; personalNumber?: string; endUserIp?: string };
    const signatory = signatoryToSign(signCase, body.role, body.personalNumber);
    const { order, created } = await signing.start(signCase, signatory, body.endUserIp ?? request.ip, request.log);
    return reply.code(created ? 201 : 200).send(orderView(order, clock()));
  });

  app.post('/SignCase/:id/Collect', {
    schema: {
      tags: ['signing'], summary: 'Where a signing stands: pending with a hint, failed with the reason, or complete', params: idParam,
      body: { type: 'object', additionalProperties: false, required: ['orderRef'], properties: { orderRef: { type: 'string', minLength: 1, maxLength: 100 } } },
      response: { 400: problem, 401: problem, 404: problem, 422: problem, 503: problem },
    },
  }, async (request) => {
    const signCase = await visibleCase(request, 'act');
    const order = await findSignOrder(db, signCase.signCaseId, (request.body as { orderRef: string }).orderRef);
    if (!order) throw new GatewayError('SIGN_ORDER_UNKNOWN');
    const outcome = order.status === 'pending' ? await signing.collect(signCase, order) : signing.storedOutcome(order);
    return outcome.status === 'pending' ? { ...outcome, qrData: qrDataNow(order, clock()) } : outcome;
  });

  app.post('/SignCase/:id/Link', {
    schema: {
      tags: ['signing'], summary: "A signatory's link to the insurer's signing page, where they sign by themselves with BankID", params: idParam, body: signatoryBody,
      response: { 201: signLink, 400: problem, 401: problem, 404: problem, 409: problem },
    },
  }, async (request, reply) => {
    const signCase = await visibleCase(request, 'act');
    const body = request.body as { role: SignatoryRole; personalNumber?: string };
    const signatory = signatoryToSign(signCase, body.role, body.personalNumber);
    const { token, expiresAt } = await issueSignLink(db, signCase.signCaseId, signatory, { by: `client:${callerOf(request).clientId}`, now: clock(), lifetimeHours: options.links.lifetimeHours });
    return reply.code(201).send({ role: signatory.role, personalNumber: signatory.personalNumber, url: signLinkUrl(options.links.baseUrl(), signCase.signCaseId, token), expiresAt: expiresAt.toISOString() });
  });

  app.post('/SignCase/:id/Link/revoke', {
    schema: {
      tags: ['signing'], summary: "Take back every signing link of a signatory: the page no longer opens with them", params: idParam, body: signatoryBody,
      response: {
        200: { type: 'object', required: ['role', 'personalNumber', 'revoked'], properties: { role: { type: 'string' }, personalNumber: { type: 'string' }, revoked: { type: 'integer', description: 'How many live links were taken back' } } },
        400: problem, 401: problem, 404: problem,
      },
    },
  }, async (request) => {
    const signCase = await visibleCase(request, 'act');
    const body = request.body as { role: SignatoryRole; personalNumber?: string };
    const signatory = signatoryOf(signCase, body.role, body.personalNumber);
    const revoked = await revokeSignLinks(db, { signCaseId: signCase.signCaseId, ...signatory }, `client:${callerOf(request).clientId}`, clock());
    return { role: signatory.role, personalNumber: signatory.personalNumber, revoked };
  });
}

function orderView(order: Pick<SignOrderRecord, 'orderRef' | 'role' | 'autoStartToken' | 'qrStartToken' | 'qrStartSecret' | 'startedAt'>, now: Date) {
  return { orderRef: order.orderRef, role: order.role, status: 'pending', autoStartToken: order.autoStartToken, qrStartToken: order.qrStartToken, qrData: qrDataNow(order, now) };
}

function caseView(signCase: SignCaseRecord, linkExpiries: ReadonlyMap<string, string>) {
  const complete = isFullySigned(signCase.signatories, signCase.companySignaturesRequired);
  // A complete or closed case's links no longer open the page.
  const links = complete || signCase.closedReason ? new Map<string, string>() : linkExpiries;
  return {
    signCaseId: signCase.signCaseId, requestId: signCase.subject.id, subjectKind: signCase.subject.kind, closed: signCase.closedReason, complete,
    companySignaturesRequired: signCase.companySignaturesRequired,
    signatories: signCase.signatories.map((s) => ({
      role: s.role, personalNumber: s.personalNumber, signed: s.signedAt !== null, signedAt: s.signedAt, linkExpiresAt: links.get(signatoryKey(s.role, s.personalNumber)) ?? null,
    })),
  };
}
