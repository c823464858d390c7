import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BankIdError, type BankIdClient } from '../bankid/bankid-client.ts';
import type { CollectResponseBody } from '../bankid/bankid-protocol.ts';
import { personStatusOf } from '../bankid/hint-codes.ts';
import { animatedQrData, qrSecondsSince } from '../bankid/qr-code.ts';
import { checkSignatory } from '../bankid/signatory-check.ts';
import type { AccessPurpose } from '../core/access.policy.ts';
import { isFullySigned } from '../core/company-signatories.rules.ts';
import { GatewayError } from '../core/gateway-error.ts';
import type { SignatoryRole } from '../core/withdrawal-request.rules.ts';
import type { Database } from '../ledger/database.ts';
import {
  findSignCase, findSignOrder, insertSignOrder, markSignatorySigned, pendingSignOrder, recordOrderOutcome,
  type SignCaseRecord, type SignOrderRecord,
} from '../ledger/sign-cases.repository.ts';
import { handOverRunDocuments, type RunDeps } from '../pipeline/debit-run.ts';
import { signedRequestHandlers } from '../pipeline/signed-requests.ts';
import { callerOf, notAvailable } from './api-auth.ts';
import { accessGate } from './customer-access.ts';

/**
 * Sign cases over the REST API, the same for every interface that starts a signing
 * (ours, an advisor's, a custodian's): GET /SignCase/{id} lists the signatories by role
 * and whether each has signed; POST …/Sign starts a BankID sign order for one
 * signatory, showing the case's text (insurance, amount, account); POST …/Collect asks
 * BankID where an order stands.
 *
 * - Orders are started without requiring a personnummer (BankID's QR flow, which any
 *   BankID can complete), so a completed order counts only when the signer's
 *   personnummer in the completion data is the expected signatory's and the signature
 *   covers exactly the case's text (checkSignatory). Otherwise it is answered `failed`
 *   with the reason and its completion data is kept, not counted.
 * - A repeat of Sign while an order of that signatory is pending returns the pending
 *   order (200, same orderRef) once BankID says it is still pending; an order that has
 *   ended meanwhile is recorded and a new one started (201).
 * - An organisation policyholder's company signatories share the role
 *   `company-signatory`; Sign names which of them signs (personalNumber), and the case
 *   completes once the required count of them, and the insured, have signed.
 * - The last signature of an approved request orders the withdrawal in the same
 *   transaction (withdrawal-order.ts).
 */
export interface SignCaseRouteOptions {
  readonly db: Database;
  readonly clock: () => Date;
  /** BankID's relying-party adapter; without it Sign and Collect answer SIGNING_UNAVAILABLE. */
  readonly bankid: BankIdClient | undefined;
  readonly runDeps: RunDeps;
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

export async function registerSignCaseRoutes(app: FastifyInstance, options: SignCaseRouteOptions): Promise<void> {
  const { db, clock } = options;
  const signedRequests = signedRequestHandlers(options.runDeps);

  /** The case, when the caller may read it (GET) or act on it (Sign, Collect); the same 404 as for no case otherwise. */
  async function visibleCase(request: FastifyRequest, purpose: AccessPurpose): Promise<SignCaseRecord> {
    const signCase = await findSignCase(db, (request.params as { id: string }).id, accessGate(callerOf(request), clock(), purpose));
    if (!signCase) throw notAvailable();
    return signCase;
  }
  function bankid(): BankIdClient {
    if (!options.bankid) throw new GatewayError('SIGNING_UNAVAILABLE', 'BankID is not configured on this gateway.');
    return options.bankid;
  }

  app.get('/SignCase/:id', {
    schema: { tags: ['signing'], summary: 'The signatories of a sign case with their roles and whether each has signed', params: idParam, response: { 200: { $ref: 'SignCase#' }, 401: problem, 404: problem } },
  }, async (request) => caseView(await visibleCase(request, 'read')));

  app.post('/SignCase/:id/Sign', {
    schema: {
      tags: ['signing'], summary: "Start a signatory's BankID signing: orderRef, autoStartToken and the QR code's data", params: idParam,
      body: {
        type: 'object', additionalProperties: false, required: ['role'],
        properties: {
          role: { type: 'string', enum: ['policyholder', 'insured', 'company-signatory'] },
          personalNumber: { type: 'string', pattern: '^[0-9]{12}$', description: 'Which company signatory signs (of role company-signatory)' },
          endUserIp: { type: 'string', minLength: 2, maxLength: 45, description: "The signing person's IP address as the calling interface sees it; default: the caller's" },
        },
      },
      response: { 200: signOrder, 201: signOrder, 400: problem, 401: problem, 404: problem, 409: problem, 503: problem },
    },
  }, async (request, reply) => {
    const signCase = await visibleCase(request, 'act');
    const { role, personalNumber, endUserIp } = request.body as { role: SignatoryRole; personalNumber?: string; endUserIp?: string };
    const signatory = signatoryToSign(signCase, role, personalNumber);
    const client = bankid();
    const pending = await pendingSignOrder(db, signCase.signCaseId, role, signatory.personalNumber);
    if (pending) {
      const outcome = await collectAndRecord(signCase, pending);
      if (outcome.status === 'pending') return reply.code(200).send(orderView(pending, clock()));
      if (outcome.status === 'complete') throw new GatewayError('SIGN_CASE_CLOSED', `The ${role} has just signed.`);
    }
    const order = await askBankId(() => client.sign({ endUserIp: endUserIp ?? request.ip, visibleText: signCase.visibleText, visibleTextFormat: 'simpleMarkdownV1' }));
    const started: SignOrderRecord = { ...order, role, personalNumber: signatory.personalNumber, startedAt: clock(), status: 'pending', hintCode: null, reason: null, signedBy: null };
    if (!(await insertSignOrder(db, { ...started, signCaseId: signCase.signCaseId, endUserIp: endUserIp ?? request.ip }))) {
      // Another Sign of the same signatory got there first: keep that one, end ours.
      await client.cancel(order.orderRef).catch((error: unknown) => request.log.warn({ err: error, orderRef: order.orderRef }, 'BankID: an order another Sign made needless could not be cancelled; it expires unused'));
      const winner = await pendingSignOrder(db, signCase.signCaseId, role, signatory.personalNumber);
      if (winner) return reply.code(200).send(orderView(winner, clock()));
    }
    return reply.code(201).send(orderView(started, clock()));
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
    const outcome = order.status === 'pending' ? await collectAndRecord(signCase, order) : storedOutcome(order);
    return outcome.status === 'pending' ? { ...outcome, qrData: qrDataNow(order, clock()) } : outcome;
  });

  type Outcome =
    | { orderRef: string; role: SignatoryRole; status: 'pending'; hintCode: string; message: string }
    | { orderRef: string; role: SignatoryRole; status: 'failed'; hintCode: string | null; reason: string; message: string }
    | { orderRef: string; role: SignatoryRole; status: 'complete'; signedBy: string; message: string };

  /** Collects a pending order from BankID and records what it says; a counting signature is the signatory's, and may order the withdrawal. */
  async function collectAndRecord(signCase: SignCaseRecord, order: SignOrderRecord): Promise<Outcome> {
    const collected: CollectResponseBody = await askBankId(() => bankid().collect(order.orderRef));
    const now = clock();
    const base = { orderRef: order.orderRef, role: order.role };
    const expected = signCase.signatories.find((s) => s.role === order.role && s.personalNumber === order.personalNumber)!;
    if (collected.status === 'pending') {
      await recordOrderOutcome(db, order.orderRef, { status: 'pending', hintCode: collected.hintCode }, now);
      return { ...base, status: 'pending', hintCode: collected.hintCode, message: personStatusOf(collected).message };
    }
    if (collected.status === 'failed') {
      const person = personStatusOf(collected);
      await recordOrderOutcome(db, order.orderRef, { status: 'failed', hintCode: collected.hintCode, reason: person.step }, now);
      return { ...base, status: 'failed', hintCode: collected.hintCode, reason: person.step, message: person.message };
    }
    const check = checkSignatory(collected, { personalNumber: expected.personalNumber, visibleText: signCase.visibleText });
    if (!check.counts) {
      const reason = check.reason === 'otherSigner' ? 'signedByAnotherPerson' : check.reason;
      await recordOrderOutcome(db, order.orderRef, { status: 'not-counted', reason, completionData: collected.completionData }, now);
      return { ...base, status: 'failed', hintCode: null, reason, message: notCountedMessage(reason, order.role) };
    }
    const documents = await db.transaction(async (tx) => {
      await recordOrderOutcome(tx, order.orderRef, { status: 'complete', completionData: check.completionData }, now);
      if (!(await markSignatorySigned(tx, signCase.signCaseId, expected, order.orderRef, now))) return [];
      const signed = signedRequests[signCase.subject.kind];
      return signed(tx, signCase.subject.id, { role: order.role, personalNumber: check.completionData.user.personalNumber }, now);
    });
    await handOverRunDocuments(options.runDeps, documents);
    return { ...base, status: 'complete', signedBy: check.completionData.user.personalNumber, message: personStatusOf(collected).message };
  }

  function storedOutcome(order: SignOrderRecord): Outcome {
    const base = { orderRef: order.orderRef, role: order.role };
    switch (order.status) {
      case 'pending':
        return { ...base, status: 'pending', hintCode: order.hintCode ?? 'outstandingTransaction', message: personStatusOf({ status: 'pending', hintCode: order.hintCode ?? '' }).message };
      case 'complete':
        return { ...base, status: 'complete', signedBy: order.signedBy ?? '', message: personStatusOf({ status: 'complete' }).message };
      case 'failed':
        return { ...base, status: 'failed', hintCode: order.hintCode, reason: order.reason ?? 'failed', message: personStatusOf({ status: 'failed', hintCode: order.hintCode ?? '' }).message };
      case 'not-counted':
        return { ...base, status: 'failed', hintCode: null, reason: order.reason ?? 'notCounted', message: notCountedMessage(order.reason ?? '', order.role) };
      default:
        return order.status satisfies never;
    }
  }
}

/**
 * The signatory a Sign is for: by role, and by personnummer among an organisation's
 * company signatories (needed when it has more than one). Refused once they have signed,
 * once enough company signatories have, or when the request was rejected.
 */
function signatoryToSign(signCase: SignCaseRecord, role: SignatoryRole, personalNumber: string | undefined): SignCaseRecord['signatories'][number] {
  const ofRole = signCase.signatories.filter((s) => s.role === role);
  const chosen = ofRole.filter((s) => personalNumber === undefined || s.personalNumber === personalNumber);
  if (ofRole.length === 0) throw new GatewayError('REQUEST_INVALID', `The sign case has no ${role} to sign: its signatories are ${[...new Set(signCase.signatories.map((s) => s.role))].join(', ')}.`);
  if (chosen.length === 0) throw new GatewayError('REQUEST_INVALID', `${personalNumber} is not a ${role} of the sign case: GET /SignCase/${signCase.signCaseId} lists them.`);
  if (chosen.length > 1) throw new GatewayError('REQUEST_INVALID', `The sign case has ${chosen.length} of role ${role}: give personalNumber, which of them signs.`);
  const signatory = chosen[0]!;
  if (signCase.closedReason) throw new GatewayError('SIGN_CASE_CLOSED', `${signCase.closedReason} There is nothing to sign.`);
  if (signatory.signedAt) throw new GatewayError('SIGN_CASE_CLOSED', `The ${role} signed at ${signatory.signedAt}.`);
  const companySigned = ofRole.filter((s) => s.signedAt !== null).length;
  if (role === 'company-signatory' && companySigned >= (signCase.companySignaturesRequired ?? 0)) {
    throw new GatewayError('SIGN_CASE_CLOSED', `${companySigned} company signatories have signed, as many as must.`);
  }
  return signatory;
}

/** BankID's answer, or SIGNING_UNAVAILABLE with its error code when it has none to give. */
async function askBankId<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof BankIdError) throw new GatewayError('SIGNING_UNAVAILABLE', `BankID ${error.errorCode}: ${error.details}`, { cause: error });
    throw error;
  }
}

function notCountedMessage(reason: string, role: SignatoryRole): string {
  return reason === 'signedByAnotherPerson'
    ? `Signed by another person than the ${role}: the signature does not count. The ${role} must sign with their own BankID.`
    : 'The signature does not cover the text of the sign case: it does not count. Start the signing again.';
}

function orderView(order: Pick<SignOrderRecord, 'orderRef' | 'role' | 'autoStartToken' | 'qrStartToken' | 'qrStartSecret' | 'startedAt'>, now: Date) {
  return { orderRef: order.orderRef, role: order.role, status: 'pending', autoStartToken: order.autoStartToken, qrStartToken: order.qrStartToken, qrData: qrDataNow(order, now) };
}

/** The animated QR code's content for this second; collect every second or two and show the latest. */
function qrDataNow(order: Pick<SignOrderRecord, 'qrStartToken' | 'qrStartSecret' | 'startedAt'>, now: Date): string {
  return animatedQrData(order.qrStartToken, order.qrStartSecret, qrSecondsSince(new Date(order.startedAt), now));
}

function caseView(signCase: SignCaseRecord) {
  return {
    signCaseId: signCase.signCaseId, requestId: signCase.subject.id, subjectKind: signCase.subject.kind, closed: signCase.closedReason, complete: isFullySigned(signCase.signatories, signCase.companySignaturesRequired),
    companySignaturesRequired: signCase.companySignaturesRequired,
    signatories: signCase.signatories.map((s) => ({ role: s.role, personalNumber: s.personalNumber, signed: s.signedAt !== null, signedAt: s.signedAt })),
  };
}
