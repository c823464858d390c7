import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createRequire } from 'node:module';
import type validator from 'validator';
import { visibleTextAsHtml } from '../../bankid/simple-markdown.ts';
import type { MailSender } from '../../channels/mail/mail-sender.ts';
import { isFullySigned } from '../../core/company-signatories.rules.ts';
import { GatewayError, isGatewayError } from '../../core/gateway-error.ts';
import { maskPersonalIdentityNumbers } from '../../core/identifiers.ts';
import { findSignCase, type SignCaseRecord } from '../../ledger/advice/sign-cases.repository.ts';
import { liveSignLinkExpiries, signatoryKey } from '../../ledger/advice/sign-links.repository.ts';
import { appendStaffAudit } from '../../ledger/staff/staff-audit.repository.ts';
import { whyNotToSign } from '../../requests/sign-case-signing.ts';
import { issueSignLink, signLinkUrl } from '../../requests/sign-links.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { signingPageBaseUrl } from '../signing-page/signing.ts';
import { html, trusted } from './html.ts';
import { formatTime, notice, page } from './layout.ts';

/**
 * A sign case in the console (/console/sign-cases/{id}, linked from the withdrawal
 * requests): what is signed, who signs and who has, and for each signatory who may still
 * sign, "Mail the signing link" — to an address staff type in, through mail.smtp, as the
 * gateway's other notices go. Each mailing makes a link of its own (made by
 * `staff:<user>`), mailed in Swedish and English, and is written to the audit log with
 * the address and how it ended; the link itself is in the mail only, never on the page
 * or in the log. Operators may mail; viewers see the case.
 */
const require = createRequire(import.meta.url);
const isEmail = require('validator/lib/isEmail') as typeof validator.isEmail;

export function registerSignCasePage(app: FastifyInstance, options: HttpServerOptions, mailer: () => MailSender | undefined): void {
  const { db } = options.deps;
  const clock = options.deps.clock;

  async function caseOf(id: string): Promise<SignCaseRecord> {
    const signCase = await findSignCase(db, id);
    if (!signCase) throw new GatewayError('RESOURCE_NOT_FOUND', `No sign case ${id}.`);
    return signCase;
  }

  async function casePage(request: FastifyRequest, reply: FastifyReply, signCase: SignCaseRecord, notices: { errors?: string[]; done?: string[] } = {}) {
    const staff = request.staff!;
    const now = clock();
    const complete = isFullySigned(signCase.signatories, signCase.companySignaturesRequired);
    const links = complete || signCase.closedReason ? new Map<string, string>() : await liveSignLinkExpiries(db, signCase.signCaseId, now);
    const mayMail = staff.role === 'operator' && !complete && !signCase.closedReason;
    const body = html`${notice('error', notices.errors ?? [])}${notice('done', notices.done ?? [])}
<p id="subject">${signCase.subject.kind} ${signCase.subject.id} · <span id="case-state">${signCase.closedReason ? `closed: ${signCase.closedReason}` : complete ? 'complete: every signatory has signed' : 'awaiting signatures'}</span></p>
<h2>What is signed</h2>
<div class="visible-text">${trusted(visibleTextAsHtml(signCase.visibleText, 'simpleMarkdownV1'))}</div>
<h2>Signatories</h2>
<table id="signatories"><tr><th>Role</th><th>Personnummer</th><th>Signed</th><th>Signing link works until</th>${mayMail ? html`<th>Mail the signing link</th>` : ''}</tr>
${signCase.signatories.map((s, index) => html`<tr data-role="${s.role}">
<td>${s.role}</td><td>${maskPersonalIdentityNumbers(s.personalNumber)}</td><td>${s.signedAt ? formatTime(s.signedAt) : 'not yet'}</td>
<td>${formatTime(links.get(signatoryKey(s.role, s.personalNumber)))}</td>
${mayMail ? html`<td>${whyNotToSign(signCase, s) === null ? html`<form method="post" action="/console/sign-cases/${signCase.signCaseId}/mail-link" class="mail-link">
<input type="hidden" name="_csrf" value="${staff.csrfToken ?? ''}"><input type="hidden" name="role" value="${s.role}"><input type="hidden" name="personalNumber" value="${s.personalNumber}">
<label for="address-${index}">Address</label> <input type="email" id="address-${index}" name="address" required maxlength="254" autocomplete="off">
<button type="submit">Mail the signing link</button></form>` : ''}</td>` : ''}</tr>`)}
</table>`;
    return reply.type('text/html; charset=utf-8').send(page(`Sign case ${signCase.signCaseId}`, staff, body));
  }

  app.get<{ Params: { id: string }; Querystring: { mailed?: string } }>('/console/sign-cases/:id', async (request, reply) => {
    const signCase = await caseOf(request.params.id);
    return casePage(request, reply, signCase, request.query.mailed ? { done: [`The signing link was mailed to ${request.query.mailed}.`] } : {});
  });

  app.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/sign-cases/:id/mail-link', async (request, reply) => {
    const staff = request.staff!;
    const signCase = await caseOf(request.params.id);
    if (staff.role !== 'operator') throw new GatewayError('STAFF_ROLE_FORBIDDEN', `${staff.username} is a ${staff.role}.`);
    const address = (request.body?.address ?? '').trim();
    const signatory = signCase.signatories.find((s) => s.role === request.body?.role && s.personalNumber === request.body?.personalNumber);
    const audit = (outcome: string) => appendStaffAudit(db, {
      at: clock(), username: staff.username, action: 'mail-sign-link', subject: signCase.signCaseId,
      reason: `${signatory?.role ?? 'unknown signatory'} to ${address.slice(0, 254)}`, outcome,
    });
    const refuse = async (status: number, why: string) => {
      await audit(`refused: ${why}`);
      return casePage(request, reply.code(status), signCase, { errors: [why] });
    };
    if (!signatory) return refuse(400, 'Choose a signatory of the case.');
    if (!isEmail(address) || address.length > 254) return refuse(400, `"${address}" is not a mail address.`);
    if (isFullySigned(signCase.signatories, signCase.companySignaturesRequired) || signCase.closedReason || whyNotToSign(signCase, signatory) !== null) {
      return refuse(409, 'The signatory has nothing to sign.');
    }
    const sender = mailer();
    if (!sender) return refuse(503, 'The gateway has no mail server (mail.smtp): the link cannot be mailed.');
    const { token, expiresAt } = await issueSignLink(db, signCase.signCaseId, signatory, {
      by: `staff:${staff.username}`, now: clock(), lifetimeHours: options.config.signingPage.linkLifetimeHours,
    });
    const url = signLinkUrl(signingPageBaseUrl(options.config, app), signCase.signCaseId, token);
    try {
      await sender.send({ to: address, subject: 'Signera med BankID · Sign with BankID', text: signingLinkMail(url, expiresAt) });
    } catch (error) {
      if (!isGatewayError(error)) throw error;
      request.log.warn({ err: error, signCaseId: signCase.signCaseId }, 'console: the signing link could not be mailed');
      return refuse(502, `The mail server did not take the mail: ${error.message}`);
    }
    await audit('done');
    return reply.redirect(`/console/sign-cases/${encodeURIComponent(signCase.signCaseId)}?mailed=${encodeURIComponent(address)}`, 303);
  });
}

function signingLinkMail(url: string, expiresAt: Date): string {
  const until = (locale: string) => expiresAt.toLocaleString(locale, { timeZone: 'Europe/Stockholm', dateStyle: 'long', timeStyle: 'short' });
  return `Hej!

Du ombeds signera med BankID. Öppna länken, läs vad du signerar och signera:

${url}

Länken är bara till dig: skicka den inte vidare. Den gäller till ${until('sv-SE')}, eller tills allt är signerat.

---

Hello,

You are asked to sign with BankID. Open the link, read what you sign, and sign:

${url}

The link is for you only: do not pass it on. It works until ${until('en-GB')}, or until everything has been signed.
`;
}
