import type { FastifyInstance } from 'fastify';
import { maskPersonalIdentityNumbers } from '../../core/identifiers.ts';
import { searchMessages, type ConsoleMessage } from '../../ledger/messages/console-messages.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html, type Html } from './html.ts';
import { formatTime, notice, page } from './layout.ts';
import { registerMessageDetailPage } from './message-detail.page.ts';
import { CHANNELS, KEY_PARAMETERS, OUTCOMES, PAGE_SIZE, readMessageFilter, STATUSES, type BrowserQuery } from './message-filter.ts';

/**
 * The message browser: every message the gateway recorded, newest first, filtered by
 * who sent it, how, what it is and how it ended, when, its file name or MessageId, or
 * what it is about (a personnummer, organisationsnummer, agreement, insurance number
 * or custody account, through the document_keys index). Pages by keyset (`before`);
 * the filter is the URL. Nothing of a document's content is shown here, and file
 * names are shown with any personnummer in them masked.
 */
export function registerMessagePages(app: FastifyInstance, options: HttpServerOptions): void {
  const { deps, config } = options;
  const context = { counterparties: config.counterparties.map((counterparty) => counterparty.id), messageTypes: deps.catalogue.names };

  app.get<{ Querystring: BrowserQuery }>('/console/messages', async (request, reply) => {
    const query = request.query;
    const { filter, errors } = readMessageFilter(query, context);
    const found = errors.length === 0 ? await searchMessages(deps.db, filter) : [];
    const messages = found.slice(0, PAGE_SIZE);
    const older = found.length > PAGE_SIZE ? nextPageLink(query, messages.at(-1)!.seq) : undefined;
    const body = html`${filterForm(query, context)}
${notice('error', errors)}
${errors.length > 0 ? '' : messages.length === 0 ? html`<p id="no-messages">No messages match.</p>` : messageTable(messages)}
${older ? html`<p><a id="older" href="${older}">Older messages →</a></p>` : ''}`;
    return reply.type('text/html; charset=utf-8').send(page('Messages', request.staff, body));
  });

  registerMessageDetailPage(app, options);
}

function filterForm(query: BrowserQuery, context: { counterparties: readonly string[]; messageTypes: readonly string[] }): Html {
  const text = (name: string, label: string, type = 'text') => html`<label>${label}<input type="${type}" name="${name}" value="${query[name] ?? ''}"></label>`;
  const select = (name: string, label: string, values: readonly string[]) => html`<label>${label}<select name="${name}"><option value="">any</option>${values.map((value) => html`<option${query[name] === value ? html` selected` : ''}>${value}</option>`)}</select></label>`;
  return html`<form method="get" action="/console/messages" class="filters">
  ${select('counterparty', 'Counterparty', context.counterparties)}
  ${select('channel', 'Channel', CHANNELS)}
  ${select('type', 'Document type', context.messageTypes)}
  ${select('status', 'Status', STATUSES)}
  ${select('outcome', 'Outcome', OUTCOMES)}
  ${text('error', 'Error code')}
  ${text('from', 'Received from (YYYY-MM-DD)')}
  ${text('to', 'Received to (YYYY-MM-DD)')}
  ${text('file', 'File name')}
  ${text('messageId', 'MessageId')}
  ${KEY_PARAMETERS.map((parameter) => text(parameter.name, parameter.label))}
  <label>&nbsp;<button type="submit">Search</button></label>
</form>`;
}

function messageTable(messages: readonly ConsoleMessage[]): Html {
  return html`<table id="messages"><tr><th>Received</th><th>Counterparty</th><th>Channel</th><th>Type</th><th>Status</th><th>Outcome</th><th>Error</th><th>File name</th><th>MessageId</th></tr>
${messages.map((message) => html`<tr data-message-id="${message.id}">
  <td><a href="/console/messages/${message.id}">${formatTime(message.receivedAt)}</a></td>
  <td>${message.counterpartyId}</td><td>${message.channel}</td><td>${message.messageType ?? ''}</td>
  <td class="status-${message.status}">${message.status}</td><td>${message.outcome ?? ''}</td><td>${message.errorCode ?? ''}</td>
  <td>${maskPersonalIdentityNumbers(message.externalId)}</td><td>${maskPersonalIdentityNumbers(message.headerMessageId ?? '')}</td>
</tr>`)}
</table>`;
}

function nextPageLink(query: BrowserQuery, lastSeq: number): string {
  const parameters = new URLSearchParams(Object.entries(query).flatMap(([name, value]) => (value && name !== 'before' ? [[name, value]] : [])));
  parameters.set('before', String(lastSeq));
  return `/console/messages?${parameters.toString()}`;
}
