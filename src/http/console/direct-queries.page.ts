import type { FastifyInstance } from 'fastify';
import { maskPersonalIdentityNumbers } from '../../core/identifiers.ts';
import { listDirectQueries, type DirectQueryRow } from '../../ledger/advice/direct-queries.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html } from './html.ts';
import { formatTime, listTable, page, type Column } from './layout.ts';

/**
 * The record of direct queries in the console: which advisor firm read which customer's
 * engagement (GET /DirectQuery/{customerId}), when, under which power of attorney, in
 * which form and how many insurances the answer listed — newest first, the latest 200,
 * or one customer's (`?customer=`). A personnummer is shown masked to the date of birth,
 * as elsewhere in the console; the staff API (GET /api/direct-queries) gives it in full.
 */
const SHOWN = 200;

const COLUMNS: readonly Column<DirectQueryRow>[] = [
  ['#', (row) => row.id],
  ['At', (row) => formatTime(row.queriedAt)],
  ['Advisor firm', (row) => row.firmOrganisationNumber],
  ['API client', (row) => row.clientId],
  ['Customer', (row) => html`<a href="/console/direct-queries?customer=${row.customerId}">${maskPersonalIdentityNumbers(row.customerId)}</a>`],
  ['Power of attorney', (row) => `${row.powerKind} (#${row.powerOfAttorneyId})`],
  ['Answered as', (row) => row.answeredAs.toUpperCase()],
  ['Insurances', (row) => row.insuranceCount],
];

export function registerDirectQueriesPage(app: FastifyInstance, options: HttpServerOptions): void {
  app.get<{ Querystring: { customer?: string } }>('/console/direct-queries', async (request, reply) => {
    const customer = request.query.customer || undefined;
    const queries = await listDirectQueries(options.deps.db, { ...(customer ? { customerId: customer } : {}), limit: SHOWN });
    const body = html`<p>Every direct query an advisor firm was answered, newest first (the latest ${SHOWN}).${customer
      ? html` One customer's: ${maskPersonalIdentityNumbers(customer)} · <a href="/console/direct-queries">all customers</a>` : ''}</p>
${listTable('direct-queries', queries, COLUMNS, 'No direct query has been answered.')}`;
    return reply.type('text/html; charset=utf-8').send(page('Direct queries', request.staff, body));
  });
}
