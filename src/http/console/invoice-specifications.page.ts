import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/gateway-error.ts';
import { findInvoiceSpecification, listInvoiceSpecifications, type InvoiceSpecificationRow } from '../../ledger/plan/invoice-specifications.repository.ts';
import { listOutgoingDeliveries } from '../../ledger/messages/outgoing-documents.repository.ts';
import { invoiceSpecificationDepsFrom, sendInvoiceSpecificationAgain } from '../../calendar/invoice-specification.job.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html } from './html.ts';
import { formatTime, listTable, notice, page, type Column } from './layout.ts';
import { highlightXml } from './xml-view.ts';

/**
 * The monthly invoice specifications in the console: the list (newest month first,
 * the latest 200, or one agreement's with `?agreement=`), and one specification — its
 * totals, where it went and every delivery attempt, the document as recorded (and its
 * PDF) to download. An operator can send it again, giving the reason: the same
 * recorded bytes go to the same counterparty once more, and the action and its reason
 * go to the audit log (`send-again`).
 */
const SHOWN = 200;
const MAX_REASON_LENGTH = 1000;

const COLUMNS: readonly Column<InvoiceSpecificationRow>[] = [
  ['Specification', (row) => html`<a href="/console/invoice-specifications/${row.documentId}">${row.documentId}</a>`],
  ['Month', (row) => row.month],
  ['Agreement', (row) => html`<a href="/console/invoice-specifications?agreement=${row.agreementNumber}">${row.agreementNumber}</a>`],
  ['To', (row) => row.counterpartyId],
  ['Insured', (row) => row.insuredCount],
  ['Total (SEK)', (row) => row.total],
  ['Made', (row) => formatTime(row.createdAt)],
  ['Delivered', (row) => (row.deliveredAt ? formatTime(row.deliveredAt) : row.lastError ? `not yet: ${row.lastError}` : 'not yet')],
];

export function registerInvoiceSpecificationPages(app: FastifyInstance, options: HttpServerOptions): void {
  const { deps } = options;
  const specificationDeps = invoiceSpecificationDepsFrom(options.config, deps.scheduler, options.log);

  app.get<{ Querystring: { agreement?: string } }>('/console/invoice-specifications', async (request, reply) => {
    const agreement = request.query.agreement || undefined;
    const rows = await listInvoiceSpecifications(deps.db, { ...(agreement ? { agreementNumber: agreement } : {}), limit: SHOWN });
    const body = html`<p>Each month's invoice specification of every pension-plan agreement, newest month first (the latest ${SHOWN}).${agreement
      ? html` Agreement ${agreement} only · <a href="/console/invoice-specifications">all agreements</a>` : ''}</p>
${listTable('invoice-specifications', rows, COLUMNS, 'No invoice specification has been made yet: they are made on the configured day of each month.')}`;
    return reply.type('text/html; charset=utf-8').send(page('Invoice specifications', request.staff, body));
  });

  app.get<{ Params: { id: string }; Querystring: { sent?: string } }>('/console/invoice-specifications/:id', async (request, reply) => {
    const spec = await findInvoiceSpecification(deps.db, request.params.id);
    if (!spec) throw new GatewayError('RESOURCE_NOT_FOUND', `No invoice specification ${request.params.id}.`);
    const deliveries = await listOutgoingDeliveries(deps.db, spec.documentId);
    const staff = request.staff!;
    const body = html`${notice('done', request.query.sent === '1' ? ['Handed to delivery: the same document goes to the counterparty once more.'] : [])}
<table id="summary">
  <tr><th>Agreement</th><td>${spec.agreementNumber}</td></tr><tr><th>Month</th><td>${spec.month}</td></tr>
  <tr><th>Sent to</th><td>${spec.counterpartyId}</td></tr><tr><th>File name</th><td>${spec.fileName}</td></tr>
  <tr><th>Insured</th><td>${spec.insuredCount}</td></tr><tr><th>Premiums</th><td class="number">${spec.premiums}</td></tr>
  <tr><th>Extra premiums</th><td class="number">${spec.extraPremiums}</td></tr><tr><th>Total (SEK)</th><td class="number" id="total">${spec.total}</td></tr>
  <tr><th>Made</th><td>${formatTime(spec.createdAt)}</td></tr>
  <tr><th>Delivered</th><td id="delivered">${spec.deliveredAt ? `${formatTime(spec.deliveredAt)} to ${spec.deliveryTarget ?? ''}` : 'not yet'}</td></tr>
</table>
<p><a id="download-xml" href="/api/invoice-specifications/${spec.documentId}">Download the document</a> · <a id="download-pdf" href="/api/invoice-specifications/${spec.documentId}/pdf">Download the PDF</a></p>
${staff.role === 'operator' ? html`<form method="post" action="/console/invoice-specifications/${spec.documentId}/send-again" id="send-again">
  <input type="hidden" name="_csrf" value="${staff.csrfToken ?? ''}">
  <label>Reason for sending it again<br><textarea name="reason" rows="2" cols="60" maxlength="${MAX_REASON_LENGTH}" required></textarea></label><br>
  <button type="submit">Send again</button>
</form>` : ''}
<h2>Deliveries</h2>
${deliveries.length === 0 ? html`<p>No delivery attempts yet.</p>` : html`<table id="deliveries"><tr><th>At</th><th>Channel</th><th>Target</th><th>Outcome</th><th>Error</th></tr>
${deliveries.map((delivery) => html`<tr><td>${formatTime(new Date(delivery.at))}</td><td>${delivery.channel ?? ''}</td><td>${delivery.target ?? ''}</td><td>${delivery.outcome}</td><td>${delivery.error ?? ''}</td></tr>`)}</table>`}
<h2>Document</h2>
<pre id="document">${highlightXml(spec.body)}</pre>
<p><a href="/console/audit?subject=${spec.documentId}">This specification in the audit log</a></p>`;
    return reply.type('text/html; charset=utf-8').send(page(`Invoice specification ${spec.documentId}`, staff, body));
  });

  app.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/invoice-specifications/:id/send-again', async (request, reply) => {
    const staff = request.staff!;
    if (staff.role !== 'operator') throw new GatewayError('STAFF_ROLE_FORBIDDEN', `${staff.username} is a ${staff.role}.`);
    const reason = (request.body?.reason ?? '').trim();
    if (reason === '' || reason.length > MAX_REASON_LENGTH) throw new GatewayError('REQUEST_INVALID', `Give the reason for sending it again (up to ${MAX_REASON_LENGTH} characters).`);
    await sendInvoiceSpecificationAgain(deps.db, specificationDeps, request.params.id, { username: staff.username, reason }, deps.clock());
    request.log.info({ documentId: request.params.id, username: staff.username }, 'console: invoice specification sent again');
    return reply.redirect(`/console/invoice-specifications/${encodeURIComponent(request.params.id)}?sent=1`, 303);
  });
}
