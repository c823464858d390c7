import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { personStatusOf, type SigningStep } from '../../bankid/hint-codes.ts';
import { isFullySigned } from '../../core/company-signatories.rules.ts';
import { isGatewayError } from '../../core/gateway-error.ts';
import type { Database } from '../../ledger/database.ts';
import {
  findSignCase, latestSignOrder, pendingSignOrder, type SignCaseRecord, type SignCaseSignatory, type SignOrderRecord,
} from '../../ledger/advice/sign-cases.repository.ts';
import { qrDataNow, whyNotToSign, type SignCaseSigning, type SigningOutcome } from '../../requests/sign-case-signing.ts';
import { openSignLink } from '../../requests/sign-links.ts';
import { qrOutline, qrViewBox } from './qr-svg.ts';
import { SIGNING_PAGE_CSS, SIGNING_PAGE_JS } from './signing-page.assets.ts';
import { languageOf, NOT_FOUND_PAGE, TEXTS, type Language, type PageTexts } from './signing-page.texts.ts';
import { caseStatusText, pageUrl, signatoryStatusText, renderSigningPage, type Device, type SigningPageModel } from './signing-page.view.ts';

/**
 * The insurer's signing page: GET /sign/{signCaseId}?t=<link token>, where a signatory
 * reads what they sign and signs it with BankID — on this device (the autostart link) or
 * another (the animated QR code) — and sees the outcome. No staff login and no API
 * token: the signing link's token (sign-links.ts) is the credential, good for its one
 * signatory of its one case. A wrong, expired or revoked token, another case's, a case
 * complete or closed and no case at all are answered with the very same 404.
 *
 * - Starting (POST …/start) and collecting (POST …/collect, and reading the page while
 *   an order is pending) go through the REST API's own functions
 *   (sign-case-signing.ts): a signature counts the same way whichever interface started
 *   it, and signed by someone else it does not count.
 * - BankID is asked at most every 2 seconds per order, as it asks of relying parties,
 *   however often the page's script polls (each second, for the QR code) or the page is
 *   reloaded; in between the order's last recorded status is answered with the QR code
 *   of the current second.
 * - Forms are posted with the token in the body, and refused (403) when the browser
 *   says they came from another site (Sec-Fetch-Site; Origin where that is not sent). Every answer forbids
 *   framing, caching and sending a Referer (the page's address holds the token), and
 *   its Content-Security-Policy allows only this origin's stylesheet and script.
 */
export interface SigningPageOptions {
  readonly db: Database;
  readonly clock: () => Date;
  readonly signing: SignCaseSigning;
  /** signingPage.publicUrl: forms may come from its origin too (the page behind a proxy). */
  readonly publicUrl: string | undefined;
}

const COLLECT_EVERY_MS = 2_000;
const NOT_COUNTED = new Set(['signedByAnotherPerson', 'otherText', 'signatureUnreadable', 'notComplete', 'notCounted']);
const HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

interface Opened {
  readonly signCase: SignCaseRecord;
  readonly signatory: SignCaseSignatory;
  readonly token: string;
}

type Form = Readonly<Record<string, string | undefined>>;

export async function registerSigningPage(app: FastifyInstance, options: SigningPageOptions): Promise<void> {
  const { db, clock, signing } = options;
  const publicOrigin = options.publicUrl ? new URL(options.publicUrl).origin : undefined;
  /** When each order was last collected from BankID by this process (performance.now()). */
  const lastCollected = new Map<string, number>();

  /** The case and signatory the token opens, while the case is neither complete nor closed. */
  async function open(signCaseId: string, token: string | undefined): Promise<Opened | undefined> {
    const link = await openSignLink(db, signCaseId, token, clock());
    if (!link || token === undefined) return undefined;
    const signCase = await findSignCase(db, signCaseId);
    if (!signCase || signCase.closedReason || isFullySigned(signCase.signatories, signCase.companySignaturesRequired)) return undefined;
    const signatory = signCase.signatories.find((s) => s.role === link.role && s.personalNumber === link.personalNumber);
    return signatory ? { signCase, signatory, token } : undefined;
  }

  /** Collects the order from BankID unless it was asked less than 2 s ago; then its recorded status. */
  async function collectSoon(signCase: SignCaseRecord, order: SignOrderRecord): Promise<SigningOutcome> {
    const now = performance.now();
    const last = lastCollected.get(order.orderRef);
    if (last !== undefined && now - last < COLLECT_EVERY_MS) return signing.storedOutcome(order);
    lastCollected.set(order.orderRef, now);
    if (lastCollected.size > 10_000) {
      for (const [orderRef, at] of lastCollected) if (now - at > 10 * 60_000) lastCollected.delete(orderRef);
    }
    return signing.collect(signCase, order);
  }

  /** Where the signatory's signing stands, a pending order collected on the way: the page's model. */
  async function stateOf(opened: Opened, lang: Language, device: Device, launch: boolean, log: FastifyBaseLogger): Promise<SigningPageModel> {
    const texts = TEXTS[lang];
    let { signCase, signatory } = opened;
    const { role, personalNumber } = signatory;
    const pending = await pendingSignOrder(db, signCase.signCaseId, role, personalNumber);
    let outcome: SigningOutcome | undefined;
    let unavailable = false;
    if (pending) {
      try {
        outcome = await collectSoon(signCase, pending);
      } catch (error) {
        if (!isGatewayError(error) || error.code !== 'SIGNING_UNAVAILABLE') throw error;
        log.warn({ err: error, orderRef: pending.orderRef }, 'signing page: BankID did not answer a collect');
        unavailable = true;
        outcome = signing.storedOutcome(pending);
      }
      if (outcome.status !== 'pending') {
        signCase = (await findSignCase(db, signCase.signCaseId)) ?? signCase;
        signatory = signCase.signatories.find((s) => s.role === role && s.personalNumber === personalNumber) ?? signatory;
      }
    } else if (!signatory.signedAt) {
      const last = await latestSignOrder(db, signCase.signCaseId, role, personalNumber);
      if (last) outcome = signing.storedOutcome(last);
    }
    const base = { lang, token: opened.token, signCase, signatory, device };
    const why = whyNotToSign(signCase, signatory);
    if (why === 'signed') return { ...base, noSigning: texts.youSigned };
    if (why === 'closed') return { ...base, noSigning: texts.closed };
    if (why === 'enoughCompanySignatories') return { ...base, noSigning: texts.enoughCompanySignatories };
    const notice = unavailable ? { kind: 'error' as const, text: texts.unavailable } : undefined;
    if (pending && outcome?.status === 'pending') {
      return {
        ...base, ...(notice ? { outcome: notice } : {}),
        pending: { autoStartToken: pending.autoStartToken, qr: qrOutline(qrDataNow(pending, clock())), status: stepText(texts, outcome), launch },
      };
    }
    return { ...base, ...(notice ?? (outcome ? { outcome: { kind: 'error', text: stepText(texts, outcome) } } : {})) };
  }

  /**
   * Whether a form came from the page itself, as far as the browser says. The page sends
   * no Referer, and so (by the Fetch standard) its own forms go with `Origin: null`: a
   * browser's Sec-Fetch-Site decides where it is sent, an Origin naming another site
   * where it is not. Either way the form is worth nothing without the link's token.
   */
  function sameOrigin(request: FastifyRequest): boolean {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined) return site === 'same-origin' || site === 'none';
    const origin = request.headers.origin;
    return origin === undefined || origin === 'null' || origin === `${request.protocol}://${request.headers.host}` || origin === publicOrigin;
  }

  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    scope.addHook('onSend', async (_request, reply, payload) => {
      for (const [name, value] of Object.entries(HEADERS)) void reply.header(name, value);
      return payload;
    });
    scope.setErrorHandler((error, request, reply) => {
      const status = isGatewayError(error) ? error.httpStatus : (error as { statusCode?: number }).statusCode ?? 500;
      if (status >= 500) request.log.error({ err: error }, 'signing page failed');
      return reply.code(status >= 400 ? status : 500).type('text/html; charset=utf-8').send(problemPage(languageOf(undefined, request.headers['accept-language'])));
    });

    scope.get('/sign/page.css', async (_request, reply) => reply.type('text/css; charset=utf-8').send(SIGNING_PAGE_CSS));
    scope.get('/sign/page.js', async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(SIGNING_PAGE_JS));

    scope.get<{ Params: { signCaseId: string }; Querystring: Form }>('/sign/:signCaseId', async (request, reply) => {
      const opened = await open(request.params.signCaseId, request.query.t);
      if (!opened) return notFound(reply);
      const lang = languageOf(request.query.lang, request.headers['accept-language']);
      const model = await stateOf(opened, lang, deviceOf(request.query.device), request.query.launch === '1', request.log);
      return page(reply, renderSigningPage(model));
    });

    scope.post<{ Params: { signCaseId: string }; Body: Form }>('/sign/:signCaseId/start', async (request, reply) => {
      const form = request.body ?? {};
      const lang = languageOf(form.lang, request.headers['accept-language']);
      if (!sameOrigin(request)) return refused(reply, TEXTS[lang]);
      const opened = await open(request.params.signCaseId, form.t);
      if (!opened) return notFound(reply);
      const device = deviceOf(form.device);
      if (whyNotToSign(opened.signCase, opened.signatory) === null) {
        try {
          await signing.start(opened.signCase, opened.signatory, request.ip, request.log);
        } catch (error) {
          if (!isGatewayError(error) || (error.code !== 'SIGNING_UNAVAILABLE' && error.code !== 'SIGN_CASE_CLOSED')) throw error;
          if (error.code === 'SIGNING_UNAVAILABLE') {
            request.log.warn({ err: error }, 'signing page: BankID did not start an order');
            return page(reply.code(503), renderSigningPage({ lang, token: opened.token, signCase: opened.signCase, signatory: opened.signatory, device, outcome: { kind: 'error', text: TEXTS[lang].unavailable } }));
          }
        }
      }
      // After the post, the page itself (a reload starts nothing); on this device the script opens the app once.
      return reply.redirect(pageUrl(opened.signCase.signCaseId, opened.token, lang, { device, ...(device === 'this' ? { launch: '1' } : {}) }), 303);
    });

    scope.post<{ Params: { signCaseId: string }; Body: Form }>('/sign/:signCaseId/collect', async (request, reply) => {
      const form = request.body ?? {};
      const lang = languageOf(form.lang, request.headers['accept-language']);
      if (!sameOrigin(request)) return refused(reply, TEXTS[lang]);
      const opened = await open(request.params.signCaseId, form.t);
      if (!opened) return notFound(reply);
      const model = await stateOf(opened, lang, deviceOf(form.device), false, request.log);
      if (!wantsJson(request)) return page(reply, renderSigningPage(model));
      return reply.send(model.pending
        ? { status: 'pending', message: model.pending.status, qr: { viewBox: qrViewBox(model.pending.qr.size), path: model.pending.qr.path } }
        : model.noSigning
          ? { status: 'signed', message: model.noSigning, caseStatus: caseStatusText(model), ownStatus: signatoryStatusText(model, model.signatory) }
          : { status: 'ended', message: model.outcome?.text ?? '' });
    });
  });
}

function stepText(texts: PageTexts, outcome: SigningOutcome): string {
  switch (outcome.status) {
    case 'complete':
      return texts.steps.signed;
    case 'pending':
      return texts.steps[personStatusOf({ status: 'pending', hintCode: outcome.hintCode }).step];
    case 'failed':
      return NOT_COUNTED.has(outcome.reason) ? texts.notCounted(outcome.reason) : texts.steps[isStep(texts, outcome.reason) ? outcome.reason : 'failed'];
    default:
      return outcome satisfies never;
  }
}

function isStep(texts: PageTexts, reason: string): reason is SigningStep {
  return Object.hasOwn(texts.steps, reason);
}

function deviceOf(asked: string | undefined): Device {
  return asked === 'this' ? 'this' : 'other';
}

function wantsJson(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('application/json');
}

function page(reply: FastifyReply, body: string): FastifyReply {
  return reply.type('text/html; charset=utf-8').send(body);
}

function notFound(reply: FastifyReply): FastifyReply {
  return page(reply.code(404), NOT_FOUND_PAGE);
}

function refused(reply: FastifyReply, texts: PageTexts): FastifyReply {
  return page(reply.code(403), simplePage(texts.title, texts.formRefused));
}

function problemPage(lang: Language): string {
  return simplePage(TEXTS[lang].title, TEXTS[lang].steps.technicalError);
}

function simplePage(title: string, text: string): string {
  // Constant texts only (TEXTS): nothing of the request is put in.
  return `<!doctype html>\n<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/sign/page.css"></head>\n<body><main><h1>${title}</h1><p role="alert">${text}</p></main></body></html>\n`;
}
