import type { FastifyInstance } from 'fastify';
import { listCommissionLines, listCommissionStatements, type CommissionLineView, type CommissionStatementView } from '../../ledger/custody/commission.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html } from './html.ts';
import { insuranceLink } from './insurance-link.ts';
import { formatTime, listTable, page, type Column } from './layout.ts';

/**
 * Advisors' commission in the console (docs/commission.md): every fee accepted from an
 * advisor firm's CommissionFile and where it stands — waiting for a debit run, ordered
 * (the run and amount), debited (the custodian's Fee transaction's day), paid (the
 * statement) — and the monthly CommissionStatements with their payment orders and
 * whether each reached its firm. Rejected items are in the file's response, on the
 * message page.
 */
const SHOWN = 200;

const LINE_COLUMNS: readonly Column<CommissionLineView>[] = [
  ['Line', (line) => `CL-${line.id}`],
  ['File', (line) => html`<a href="/console/messages/${line.messageId}">${line.commissionFileId ?? line.messageId}</a> item ${line.itemId}`],
  ['Advisor firm', (line) => line.firmOrganisationNumber],
  ['Insurance', (line) => insuranceLink(line.insuranceNumber)],
  ['Period', (line) => `${line.periodFrom} – ${line.periodTo}`],
  ['Fee', (line) => (line.feeKind === 'Amount' ? `${line.feeValue.replace(/(\.\d\d)0+$/, '$1')} SEK` : `${line.feeValue} %`)],
  ['Debit run', (line) => (line.runKey ? `${line.runKey}: ${line.amount ?? ''} SEK` : 'waiting')],
  ['Debited', (line) => line.debitedOn ?? (line.runKey ? 'not shown yet' : '')],
  ['Paid by', (line) => line.statementId ?? ''],
];

const STATEMENT_COLUMNS: readonly Column<CommissionStatementView>[] = [
  ['Statement', (statement) => statement.statementId],
  ['Month', (statement) => statement.month],
  ['Advisor firm', (statement) => `${statement.firmOrganisationNumber} (${statement.counterpartyId})`],
  ['Fees', (statement) => statement.fees],
  ['Total', (statement) => `${statement.total} SEK`],
  ['Payment order', (statement) => statement.paymentOrderId],
  ['Made', (statement) => formatTime(statement.createdAt)],
  ['Delivered', (statement) => (statement.deliveredAt ? formatTime(statement.deliveredAt) : html`<span class="status-dead">not yet</span>`)],
];

export function registerCommissionPage(app: FastifyInstance, options: HttpServerOptions): void {
  app.get('/console/commission', async (request, reply) => {
    const [lines, statements] = await Promise.all([listCommissionLines(options.deps.db, SHOWN), listCommissionStatements(options.deps.db, SHOWN)]);
    const body = html`<p>Advisor firms' fees from their commission files, debited in the debit runs as AdvisorFee and paid to the firms each month (docs/commission.md). The newest ${SHOWN} of each.</p>
<h2>Commission lines</h2>
${listTable('commission-lines', lines, LINE_COLUMNS, 'No commission file has been accepted.')}
<h2>Commission statements</h2>
${listTable('commission-statements', statements, STATEMENT_COLUMNS, 'No commission has been paid.')}`;
    return reply.type('text/html; charset=utf-8').send(page('Advisor commission', request.staff, body));
  });
}
