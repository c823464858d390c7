import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/gateway-error.ts';
import { maskPersonalIdentityNumbers } from '../../core/identifiers.ts';
import { listApplicationNotices, type ApplicationNoticeView } from '../../ledger/advice/application-notices.repository.ts';
import { listSetAsideMail, type SetAsideMailView } from '../../ledger/messages/mail-set-aside.repository.ts';
import { listPayoutNotices, payoutNoticeLetter, type PayoutNoticeView } from '../../calendar/payout-notices.job.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html, type Html } from './html.ts';
import { insuranceLink } from './insurance-link.ts';
import { choices, formatTime, listTable, page, type Column } from './layout.ts';

/**
 * What the gateway set aside or mailed for people, from the same listings as the staff
 * API and the CLI: mail the mailbox channel set aside (why, and the folder it went to),
 * the payout notices to the insured (how each was told; `?letters=true`, the letters to
 * print, each a PDF to download), and the notices that an application went to a manual
 * review — each notice list whole or only those not mailed yet (`?unsent=true`).
 * A personnummer in a mail subject or a list is shown masked.
 */
const LIST_LIMIT = 1000;

export function registerMailAndNoticePages(app: FastifyInstance, options: HttpServerOptions): void {
  const { db } = options.deps;

  app.get('/console/mail-set-aside', async (request, reply) => {
    const mails = await listSetAsideMail(db, LIST_LIMIT);
    const body = html`<p>Mail the mailbox channel did not take, newest first: it waits in the named mailbox folder for a person.</p>
${listTable('set-aside', mails, MAIL_COLUMNS, 'No mail set aside.')}${more(mails.length)}`;
    return reply.type('text/html; charset=utf-8').send(page('Set-aside mail', request.staff, body));
  });

  app.get<{ Querystring: { unsent?: string; letters?: string } }>('/console/payout-notices', async (request, reply) => {
    const unsent = request.query.unsent === 'true';
    const letters = !unsent && request.query.letters === 'true';
    const notices = await listPayoutNotices(db, { unsent, letters, limit: LIST_LIMIT });
    const current = unsent ? 'unsent=true' : letters ? 'letters=true' : '';
    const empty = unsent ? 'Every copy is mailed to customer service.' : letters ? 'No letters to print.' : 'No payout notices.';
    const body = html`${choices('/console/payout-notices', current, [['All', ''], ['Copy not mailed yet', 'unsent=true'], ['Letters to print', 'letters=true']])}
<p>Each insured is told that payout can begin by mail, or by a letter to print (the PDF; the ledger holds no postal address: address it from the population register by the personnummer). Customer service is mailed a copy.</p>
${listTable('payout-notices', notices, PAYOUT_COLUMNS, empty)}${more(notices.length)}`;
    return reply.type('text/html; charset=utf-8').send(page('Payout notices', request.staff, body));
  });

  app.get<{ Params: { insurance: string } }>('/console/payout-notices/:insurance/letter', async (request, reply) => {
    const letter = await payoutNoticeLetter(db, request.params.insurance);
    if (!letter) throw new GatewayError('RESOURCE_NOT_FOUND', `No letter to the insured of ${request.params.insurance}.`);
    return reply.type('application/pdf').header('content-disposition', `attachment; filename="payout-notice-${request.params.insurance.replace(/[^0-9A-Za-z-]/g, '_')}.pdf"`).send(letter);
  });

  app.get<{ Querystring: { unsent?: string } }>('/console/application-notices', async (request, reply) => {
    const unsent = request.query.unsent === 'true';
    const notices = await listApplicationNotices(db, { unsent, limit: LIST_LIMIT });
    const body = html`${unsentChoices('/console/application-notices', unsent)}
<p>Notices that an application went to a manual review, newest first.</p>
${listTable('application-notices', notices, APPLICATION_NOTICE_COLUMNS, unsent ? 'Every notice is mailed.' : 'No application notices.')}${more(notices.length)}`;
    return reply.type('text/html; charset=utf-8').send(page('Application notices', request.staff, body));
  });
}

function unsentChoices(path: string, unsent: boolean) {
  return choices(path, unsent ? 'unsent=true' : '', [['All', ''], ['Not mailed yet', 'unsent=true']]);
}

function more(shown: number) {
  return shown >= LIST_LIMIT ? html`<p>The newest ${LIST_LIMIT} shown.</p>` : html``;
}

const MAIL_COLUMNS: readonly Column<SetAsideMailView>[] = [
  ['Received', (mail) => formatTime(mail.receivedAt)], ['From', (mail) => mail.sender ?? '(unknown)'],
  ['Subject', (mail) => maskPersonalIdentityNumbers(mail.subject)], ['Reason', (mail) => mail.reason], ['Detail', (mail) => mail.detail],
  ['Folder', (mail) => mail.folder], ['Message-ID', (mail) => mail.mailMessageId],
];

const PAYOUT_COLUMNS: readonly Column<PayoutNoticeView>[] = [
  ['Insurance', (notice) => insuranceLink(notice.insuranceNumber)],
  ['Insured', (notice) => `${notice.insuredName ? `${notice.insuredName}, ` : ''}${maskPersonalIdentityNumbers(notice.insuredPin)}`],
  ['Custody account', (notice) => notice.accountNumber ?? ''],
  ['Can begin', (notice) => notice.canBegin ?? ''], ['First month', (notice) => notice.firstMonth ?? ''],
  ['First installment', (notice) => (notice.firstAmount ? `${notice.firstAmount} SEK by ${notice.payBy ?? ''}` : '')],
  ['Recorded', (notice) => formatTime(notice.recordedAt)],
  ['Insured told', insuredTold],
  ['Copy to customer service', (notice) => (notice.sentAt ? `${formatTime(notice.sentAt)} to ${notice.sentTo ?? ''}` : html`<span data-unsent>not yet</span>`)],
];

/** How the insured was told: mailed (to whom), a letter to download and print, or why not at all. */
function insuredTold(notice: PayoutNoticeView): string | Html {
  const at = notice.insuredToldAt ? formatTime(notice.insuredToldAt) : '';
  switch (notice.insuredNotice) {
    case 'mail':
      return `${at} mailed to ${notice.insuredAddress ?? ''}`;
    case 'letter':
      return html`${at} <a data-letter href="/console/payout-notices/${encodeURIComponent(notice.insuranceNumber)}/letter">letter (PDF)</a>`;
    case 'not-needed':
      return 'not needed: started or ended first';
    case 'customer-service':
      return 'by customer service';
    case null:
      return html`<span data-untold>not yet</span>`;
    default:
      return notice.insuredNotice satisfies never;
  }
}

const APPLICATION_NOTICE_COLUMNS: readonly Column<ApplicationNoticeView>[] = [
  ['Application', (notice) => notice.applicationId], ['Application status', (notice) => notice.applicationStatus], ['To', (notice) => notice.recipient],
  ['Address', (notice) => notice.address ?? '(none known)'], ['Recorded', (notice) => formatTime(notice.recordedAt)],
  ['Mailed', applicationNoticeMailed],
  ['Failed tries', (notice) => (notice.failedAttempts > 0 ? `${notice.failedAttempts}: ${notice.lastError ?? ''}` : '')],
];

/** Mailed when, or why it never will be: no address known, or the application decided before it was mailed. */
function applicationNoticeMailed(notice: ApplicationNoticeView): string | Html {
  if (notice.sentAt) return `${formatTime(notice.sentAt)} to ${notice.sentTo ?? ''}`;
  if (notice.address === null) return html`<span data-never>never: no address known</span>`;
  if (notice.applicationStatus !== 'under-review') return html`<span data-never>never: the application was decided first</span>`;
  return html`<span data-unsent>not yet</span>`;
}
