import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import { BankIdError, type BankIdClient } from '../bankid/bankid-client.ts';
import type { CollectResponseBody } from '../bankid/bankid-protocol.ts';
import { personStatusOf } from '../bankid/hint-codes.ts';
import { animatedQrData, qrSecondsSince } from '../bankid/qr-code.ts';
import { checkSignatory } from '../bankid/signatory-check.ts';
import { GatewayError } from '../core/gateway-error.ts';
import type { SignatoryRole } from '../core/withdrawal-request.rules.ts';
import type { Database } from '../ledger/database.ts';
import {
  insertSignOrder, markSignatorySigned, pendingSignOrder, recordOrderOutcome,
  type SignCaseRecord, type SignCaseSignatory, type SignOrderRecord,
} from '../ledger/advice/sign-cases.repository.ts';
import type { ApplicationDecisionRules } from './application-signed.ts';
import { handOverRunDocuments, type RunDeps } from '../calendar/debit-run.ts';
import { signedRequestHandlers } from './signed-requests.ts';

/**
 * Signing a sign case with BankID, whoever starts it: the REST API's Sign and Collect
 * (an advisor's or custodian's interface) and the insurer's signing page call these
 * same functions, so a signature counts, or does not, the same way through either.
 *
 * - Orders are started without requiring a personnummer (BankID's QR flow, which any
 *   BankID can complete), so a completed order counts only when the signer's
 *   personnummer in the completion data is the expected signatory's and the signature
 *   covers exactly the case's text (checkSignatory). Otherwise it is `failed` with the
 *   reason and its completion data is kept, not counted.
 * - Starting while an order of the signatory is pending gives that order once BankID
 *   says it is still pending; an order that has ended meanwhile is recorded and a new
 *   one started.
 * - A counted signature is recorded with what it does to the subject
 *   (signed-requests.ts) in one transaction; the documents it made are handed to
 *   delivery after the commit.
 */
export interface SignCaseSigningDeps {
  readonly db: Database;
  readonly clock: () => Date;
  /** BankID's relying-party adapter; without it starting and collecting answer SIGNING_UNAVAILABLE. */
  readonly bankid: BankIdClient | undefined;
  readonly runDeps: RunDeps;
  /** How a signed application is decided (`api.review`). */
  readonly applications: ApplicationDecisionRules;
}

export type SigningOutcome =
  | { orderRef: string; role: SignatoryRole; status: 'pending'; hintCode: string; message: string }
  | { orderRef: string; role: SignatoryRole; status: 'failed'; hintCode: string | null; reason: string; message: string }
  | { orderRef: string; role: SignatoryRole; status: 'complete'; signedBy: string; message: string };

export interface StartedOrder {
  readonly order: SignOrderRecord;
  /** A new order was started (false: the signatory's pending one is given). */
  readonly created: boolean;
}

export interface SignCaseSigning {
  /** Starts (or gives the pending) BankID order for the signatory, showing the case's text. */
  start(signCase: SignCaseRecord, signatory: SignCaseSignatory, endUserIp: string, log: Logger | FastifyBaseLogger): Promise<StartedOrder>;
  /** Asks BankID where a pending order stands and records it; a counting signature is the signatory's. */
  collect(signCase: SignCaseRecord, order: SignOrderRecord): Promise<SigningOutcome>;
  /** What a finished (or pending) order said when last collected, without asking BankID. */
  storedOutcome(order: SignOrderRecord): SigningOutcome;
}

export function signCaseSigning(deps: SignCaseSigningDeps): SignCaseSigning {
  const { db, clock } = deps;
  const signedRequests = signedRequestHandlers(deps.runDeps, deps.applications);
  function bankid(): BankIdClient {
    if (!deps.bankid) throw new GatewayError('SIGNING_UNAVAILABLE', 'BankID is not configured on this gateway.');
    return deps.bankid;
  }

  async function collect(signCase: SignCaseRecord, order: SignOrderRecord): Promise<SigningOutcome> {
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
    await handOverRunDocuments(deps.runDeps, documents);
    return { ...base, status: 'complete', signedBy: check.completionData.user.personalNumber, message: personStatusOf(collected).message };
  }

  async function start(signCase: SignCaseRecord, signatory: SignCaseSignatory, endUserIp: string, log: Logger | FastifyBaseLogger): Promise<StartedOrder> {
    const { role } = signatory;
    const client = bankid();
    const pending = await pendingSignOrder(db, signCase.signCaseId, role, signatory.personalNumber);
    if (pending) {
      const outcome = await collect(signCase, pending);
      if (outcome.status === 'pending') return { order: pending, created: false };
      if (outcome.status === 'complete') throw new GatewayError('SIGN_CASE_CLOSED', `The ${role} has just signed.`);
    }
    const order = await askBankId(() => client.sign({ endUserIp, visibleText: signCase.visibleText, visibleTextFormat: 'simpleMarkdownV1' }));
    const started: SignOrderRecord = { ...order, role, personalNumber: signatory.personalNumber, startedAt: clock(), status: 'pending', hintCode: null, reason: null, signedBy: null };
    if (!(await insertSignOrder(db, { ...started, signCaseId: signCase.signCaseId, endUserIp }))) {
      // Another start for the same signatory got there first: keep that one, end ours.
      await client.cancel(order.orderRef).catch((error: unknown) => log.warn({ err: error, orderRef: order.orderRef }, 'BankID: an order another Sign made needless could not be cancelled; it expires unused'));
      const winner = await pendingSignOrder(db, signCase.signCaseId, role, signatory.personalNumber);
      if (winner) return { order: winner, created: false };
    }
    return { order: started, created: true };
  }

  return { start, collect, storedOutcome };
}

function storedOutcome(order: SignOrderRecord): SigningOutcome {
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

/**
 * The signatory a signing is for: by role, and by personnummer among an organisation's
 * company signatories (needed when it has more than one). REQUEST_INVALID when the case
 * has no such signatory, or several and none was named.
 */
export function signatoryOf(signCase: SignCaseRecord, role: SignatoryRole, personalNumber: string | undefined): SignCaseSignatory {
  const ofRole = signCase.signatories.filter((s) => s.role === role);
  const chosen = ofRole.filter((s) => personalNumber === undefined || s.personalNumber === personalNumber);
  if (ofRole.length === 0) throw new GatewayError('REQUEST_INVALID', `The sign case has no ${role} to sign: its signatories are ${[...new Set(signCase.signatories.map((s) => s.role))].join(', ')}.`);
  if (chosen.length === 0) throw new GatewayError('REQUEST_INVALID', `${personalNumber} is not a ${role} of the sign case: GET /SignCase/${signCase.signCaseId} lists them.`);
  if (chosen.length > 1) throw new GatewayError('REQUEST_INVALID', `The sign case has ${chosen.length} of role ${role}: give personalNumber, which of them signs.`);
  return chosen[0]!;
}

/** Why the signatory may not sign (any more); null while they may. */
export type NoSigningReason = 'closed' | 'signed' | 'enoughCompanySignatories';

export function whyNotToSign(signCase: SignCaseRecord, signatory: SignCaseSignatory): NoSigningReason | null {
  if (signCase.closedReason) return 'closed';
  if (signatory.signedAt) return 'signed';
  const companySigned = signCase.signatories.filter((s) => s.role === 'company-signatory' && s.signedAt !== null).length;
  if (signatory.role === 'company-signatory' && companySigned >= (signCase.companySignaturesRequired ?? 0)) return 'enoughCompanySignatories';
  return null;
}

/** The signatory, refused with SIGN_CASE_CLOSED once they have signed, once enough company signatories have, or when the case is closed. */
export function signatoryToSign(signCase: SignCaseRecord, role: SignatoryRole, personalNumber: string | undefined): SignCaseSignatory {
  const signatory = signatoryOf(signCase, role, personalNumber);
  const why = whyNotToSign(signCase, signatory);
  switch (why) {
    case 'closed':
      throw new GatewayError('SIGN_CASE_CLOSED', `${signCase.closedReason} There is nothing to sign.`);
    case 'signed':
      throw new GatewayError('SIGN_CASE_CLOSED', `The ${role} signed at ${signatory.signedAt}.`);
    case 'enoughCompanySignatories': {
      const companySigned = signCase.signatories.filter((s) => s.role === 'company-signatory' && s.signedAt !== null).length;
      throw new GatewayError('SIGN_CASE_CLOSED', `${companySigned} company signatories have signed, as many as must.`);
    }
    case null:
      return signatory;
    default:
      return why satisfies never;
  }
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

/** The animated QR code's content for this second; collect every second or two and show the latest. */
export function qrDataNow(order: Pick<SignOrderRecord, 'qrStartToken' | 'qrStartSecret' | 'startedAt'>, now: Date): string {
  return animatedQrData(order.qrStartToken, order.qrStartSecret, qrSecondsSince(new Date(order.startedAt), now));
}
