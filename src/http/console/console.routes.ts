import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MailSender } from '../../channels/mail/mail-sender.ts';
import { createSmtpSender } from '../../channels/mail/smtp.sender.ts';
import { isGatewayError } from '../../core/gateway-error.ts';
import type { LoginThrottle } from '../login-throttle.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { registerAuditPage } from './audit.page.ts';
import { registerChannelsPage } from './channels.page.ts';
import { registerInsurancePage } from './insurance.page.ts';
import { registerCustodianReportsPage } from './custodian-reports.page.ts';
import { registerDeathBenefitPages } from './death-benefits.page.ts';
import { registerInvoiceSpecificationPages } from './invoice-specifications.page.ts';
import { html } from './html.ts';
import { CONSOLE_CSS, notice, page } from './layout.ts';
import { registerMessagePages } from './messages.page.ts';
import { registerMailAndNoticePages } from './mail-and-notices.page.ts';
import { registerOverviewPage } from './overview.page.ts';
import { registerReviewPages } from './reviews.page.ts';
import { registerRunsPage } from './runs.page.ts';
import { registerRetentionPage } from './retention.page.ts';
import { registerSignCasePage } from './sign-case.page.ts';
import { registerSignInRoutes } from './sign-in.routes.ts';
import { registerTransferLeafletsPage } from './transfer-leaflets.page.ts';
import { registerCustodianSwitchesPage } from './custodian-switches.page.ts';
import { isReadOnly, sameSecret, type StaffSessions } from './staff-sessions.ts';

/**
 * The staff console (docs/console.md): server-rendered pages under /console from the
 * same server and repositories as the staff API, behind a sign-in with sessions.
 *
 * Every page but the sign-in page and the stylesheet needs a live session; without
 * one the browser is sent to sign in and then back to the page it asked for. Every
 * form that changes something carries the session's CSRF token and is refused (403)
 * without it. Pages are never cached and never framed, and name no other origin
 * (Content-Security-Policy), and send no Referer: their URLs may hold a searched
 * personal identity number.
 */
export interface ConsoleOptions extends HttpServerOptions {
  readonly sessions: StaffSessions;
  readonly throttle: LoginThrottle;
}

const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/console/sign-in', '/console/console.css']);

export async function registerConsole(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  await app.register(async (scope) => {
    scope.decorateRequest('staff', null);
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    scope.addHook('onSend', async (_request, reply, payload) => {
      void reply.header('cache-control', 'no-store').header('x-frame-options', 'DENY').header('referrer-policy', 'no-referrer')
        .header('x-content-type-options', 'nosniff').header('content-security-policy', "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'");
      return payload;
    });
    scope.addHook('onRequest', async (request, reply) => {
      if (PUBLIC_PATHS.has(request.url.split('?')[0]!)) return undefined;
      request.staff = (await options.sessions.identify(request)) ?? null;
      if (!request.staff) {
        const next = request.method === 'GET' ? request.url : '/console';
        return reply.redirect(`/console/sign-in?next=${encodeURIComponent(next)}`, 303);
      }
      return undefined;
    });
    // After the body is read: a changing form must carry the session's CSRF token.
    scope.addHook('preHandler', async (request, reply) => {
      if (isReadOnly(request.method) || !request.staff) return undefined;
      const token = (request.body as Record<string, string | undefined> | undefined)?._csrf;
      if (token !== undefined && request.staff.csrfToken !== undefined && sameSecret(token, request.staff.csrfToken)) return undefined;
      return errorPage(request, reply.code(403), 'The form had expired or did not come from the console. Reload the page and try again.');
    });
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const status = isGatewayError(error) ? error.httpStatus : error.statusCode ?? 500;
      if (status >= 500) request.log.error({ err: error }, 'console page failed');
      return errorPage(request, reply.code(status), status >= 500 ? 'Something went wrong on the gateway; the log has the details.' : error.message);
    });

    scope.get('/console/console.css', async (_request, reply) => reply.type('text/css; charset=utf-8').send(CONSOLE_CSS));
    registerSignInRoutes(scope, options.sessions, options.throttle);
    registerOverviewPage(scope, options);
    registerChannelsPage(scope, options);
    registerMessagePages(scope, options);
    registerAuditPage(scope, options);
    registerCustodianReportsPage(scope, options);
    registerRunsPage(scope, options);
    registerRetentionPage(scope, options);
    registerDeathBenefitPages(scope, options);
    registerInvoiceSpecificationPages(scope, options);
    registerMailAndNoticePages(scope, options);
    registerReviewPages(scope, options);
    registerInsurancePage(scope, options);
    registerTransferLeafletsPage(scope, options);
    registerCustodianSwitchesPage(scope, options);
    // Signing links are mailed through mail.smtp, with a connection of the console's own, opened at the first mail.
    let sender: MailSender | undefined;
    scope.addHook('onClose', async () => sender?.close());
    registerSignCasePage(scope, options, () => {
      if (!sender && options.config.mail.smtp) sender = createSmtpSender(options.config.mail.smtp);
      return sender;
    });
  });
}

export function errorPage(request: FastifyRequest, reply: FastifyReply, text: string): FastifyReply {
  return reply.type('text/html; charset=utf-8').send(page('Not done', request.staff, html`${notice('error', [text])}<p><a href="/console">Back to the overview</a></p>`));
}
