import type { FastifyInstance } from 'fastify';
import { maskPersonalIdentityNumbers } from '../../core/identifiers.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import { renderTransferLeafletPdf } from '../../documents/transfer-leaflet-pdf.ts';
import { findLeaflet, listTransferLeaflets, type LeafletRow } from '../../ledger/plan/transfer-leaflets.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html } from './html.ts';
import { insuranceLink } from './insurance-link.ts';
import { formatTime, listTable, page, type Column } from './layout.ts';

/**
 * Transfer leaflets (flyttblad) in the console: those sent to the insurers insurances of
 * ours moved to (when each was delivered), and those received from insurers moving an
 * insurance to us (the insurance registered, and whether its money is still awaited) —
 * newest first, the latest 200, each with its PDF and its XML (the outgoing document, or
 * the message it came in).
 */
const SHOWN = 200;

const COLUMNS: readonly Column<LeafletRow>[] = [
  ['Direction', (row) => (row.direction === 'out' ? 'sent' : 'received')],
  ['Recorded', (row) => formatTime(row.createdAt)],
  ['Insurance', (row) => insuranceLink(row.insuranceNumber)],
  ['Type', (row) => row.insuranceType],
  ['Insurer', (row) => row.counterpartyId],
  ['Reference', (row) => row.reference],
  ['Value', (row) => `${row.value} SEK on ${row.valueDate}`],
  ['State', (row) => stateOf(row)],
  ['Documents', (row) => html`<a href="/console/transfer-leaflets/${row.direction}/${row.direction === 'out' ? row.insuranceNumber : row.documentId}.pdf">PDF</a>${
    row.direction === 'in' ? html` · <a href="/console/messages/${row.documentId}">message</a>` : ''}`],
];

function stateOf(row: LeafletRow): string {
  if (row.direction === 'in') return row.awaitingMoney ? 'awaiting money' : 'money received';
  return row.deliveredAt ? `delivered ${formatTime(row.deliveredAt)}` : 'not yet delivered';
}

export function registerTransferLeafletsPage(app: FastifyInstance, options: HttpServerOptions): void {
  app.get('/console/transfer-leaflets', async (request, reply) => {
    const leaflets = await listTransferLeaflets(options.deps.db, SHOWN);
    const body = html`<p>Transfer leaflets sent for insurances moved to another insurer, and received from insurers moving an insurance here, newest first (the latest ${SHOWN}).</p>
${listTable('transfer-leaflets', leaflets, COLUMNS, 'No transfer leaflet has been sent or received.')}`;
    return reply.type('text/html; charset=utf-8').send(page('Transfer leaflets', request.staff, body));
  });
  app.get<{ Params: { direction: string; id: string } }>('/console/transfer-leaflets/:direction/:id', async (request, reply) => {
    const { direction } = request.params;
    const id = request.params.id.replace(/\.pdf$/, '');
    const leaflet = direction === 'out' || direction === 'in' ? await findLeaflet(options.deps.db, direction, id) : undefined;
    if (!leaflet) throw new GatewayError('RESOURCE_NOT_FOUND', `No transfer leaflet ${direction} ${maskPersonalIdentityNumbers(id)}.`);
    const pdf = await renderTransferLeafletPdf(leaflet);
    return reply.type('application/pdf').header('content-disposition', `inline; filename="${leaflet.messageId}.pdf"`).send(pdf);
  });
}
