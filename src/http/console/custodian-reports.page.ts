import type { FastifyInstance } from 'fastify';
import { REPORT_STATUSES } from '../../core/report-deadlines.ts';
import { isGatewayError } from '../../core/gateway-error.ts';
import { expectedCustodians, listAnnualCustodianReports, listCustodianReports, type AnnualCustodianReportView, type CustodianReportView } from '../../calendar/report-deadlines.job.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html, type Html } from './html.ts';
import { formatTime, listTable, notice, page, type Column } from './layout.ts';

/**
 * The custodians' reports as the deadline check sees them, from the same listing as
 * GET /api/custodian-reports and `depot-gateway reports`: the daily Holdings and
 * Transactions per banking day (on time, late, missing, pending; the last 14 days
 * unless `from`/`to` say otherwise; `status` narrows) and the yearly CostAndCharges of
 * an account year (`year`, default last year). Each arrived report links to its
 * message. A date, status or year that cannot be right is a message on the page.
 */
interface ReportsQuery {
  from?: string;
  to?: string;
  status?: string;
  year?: string;
}

export function registerCustodianReportsPage(app: FastifyInstance, options: HttpServerOptions): void {
  const { deps, config } = options;
  const custodians = expectedCustodians(config.counterparties);
  app.get<{ Querystring: ReportsQuery }>('/console/custodian-reports', async (request, reply) => {
    const query = request.query;
    const now = deps.clock();
    const statuses = query.status ? [query.status] : undefined;
    const errors: string[] = [];
    const [daily, annual] = await Promise.all([
      readOrNote(errors, listCustodianReports(deps.db, custodians, { from: query.from || undefined, to: query.to || undefined, statuses }, now)),
      readOrNote(errors, listAnnualCustodianReports(deps.db, { year: query.year || undefined, statuses }, now)),
    ]);
    const body = html`${filterForm(query)}
${notice('error', errors)}
${daily ? html`<h2>Daily reports per banking day</h2>${statusCounts('daily-counts', daily)}${listTable('daily-reports', daily, DAILY_COLUMNS, 'No reports expected in these days.')}` : ''}
${annual ? html`<h2>Yearly CostAndCharges (${annual[0]?.year ?? query.year ?? 'last year'})</h2>${listTable('annual-reports', annual, ANNUAL_COLUMNS, 'No yearly reports expected for this year.')}` : ''}`;
    return reply.type('text/html; charset=utf-8').send(page('Custodian reports', request.staff, body));
  });
}

/** The listing, or undefined with its complaint noted when the query cannot be right. */
async function readOrNote<T>(errors: string[], reading: Promise<T>): Promise<T | undefined> {
  try {
    return await reading;
  } catch (error) {
    if (!isGatewayError(error) || error.code !== 'REQUEST_INVALID') throw error;
    errors.push(error.message);
    return undefined;
  }
}

const arrival = (report: CustodianReportView | AnnualCustodianReportView): Html | string =>
  report.messageId ? html`${formatTime(report.arrivedAt)} · <a href="/console/messages/${report.messageId}">${report.messageId}</a>` : '';

const DAILY_COLUMNS: readonly Column<CustodianReportView>[] = [
  ['Due day', (report) => report.dueDay], ['Custodian', (report) => report.custodianId], ['Report', (report) => report.kind],
  ['Status', (report) => html`<span class="report-${report.status}" data-status="${report.status}">${report.status}</span>`],
  ['Deadline', (report) => formatTime(report.deadline)], ['Arrived', arrival], ['Custodian told', (report) => formatTime(report.notifiedAt)],
];

const ANNUAL_COLUMNS: readonly Column<AnnualCustodianReportView>[] = [
  ['Year', (report) => report.year], ['Custodian', (report) => report.custodianId], ['Report', (report) => report.kind],
  ['Status', (report) => html`<span data-status="${report.status}">${report.status}</span>`],
  ['Deadline', (report) => formatTime(report.deadline)], ['Arrived', arrival], ['Custodian told', (report) => formatTime(report.notifiedAt)],
];

function statusCounts(id: string, reports: readonly CustodianReportView[]): Html {
  return html`<p id="${id}">${REPORT_STATUSES.map((status) => html`<span class="count" data-status="${status}">${status.replace('_', ' ')}: <strong>${reports.filter((report) => report.status === status).length}</strong></span> · `)}</p>`;
}

function filterForm(query: ReportsQuery): Html {
  return html`<form method="get" action="/console/custodian-reports" class="filters">
  <label>Due from (YYYY-MM-DD)<input type="text" name="from" value="${query.from ?? ''}"></label>
  <label>Due to (YYYY-MM-DD)<input type="text" name="to" value="${query.to ?? ''}"></label>
  <label>Status<select name="status"><option value="">any</option>${REPORT_STATUSES.map((status) => html`<option${query.status === status ? html` selected` : ''}>${status}</option>`)}</select></label>
  <label>Account year (YYYY)<input type="text" name="year" value="${query.year ?? ''}"></label>
  <label>&nbsp;<button type="submit">Show</button></label>
</form>`;
}
