import type { FastifyInstance } from 'fastify';
import { listHeldTaxes, type HeldTaxEntry } from '../../ledger/custody/held-yield-taxes.repository.ts';
import { listRuns, type RunListEntry } from '../../ledger/custody/run-list.repository.ts';
import { registerCommissionPage } from './commission.page.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html } from './html.ts';
import { insuranceLink } from './insurance-link.ts';
import { choices, formatTime, listTable, notice, page, type Column } from './layout.ts';

/**
 * The debit runs (a quarter, `2026-Q3`) and payout runs (a month, `2026-11`) the
 * gateway made, newest first, one row per run and custodian: its DebitAccounts file —
 * delivered where and when, or the failed attempts and the last error — what its lines
 * add up to, and every account it held back with the reason (no custody values, no
 * fee …), which the run made again once the facts are in debits. Below them the yield
 * tax lines debit runs held back for want of their rate, waiting ones first: what each
 * is levied on, which rate is missing, and the run that debited it once the rate was
 * set.
 */
const RUN_LIMIT = 200;
const KINDS = ['debit', 'payout'] as const;

export function registerRunsPage(app: FastifyInstance, options: HttpServerOptions): void {
  app.get<{ Querystring: { kind?: string } }>('/console/runs', async (request, reply) => {
    const asked = request.query.kind ?? '';
    const kind = KINDS.find((known) => known === asked);
    const bad = asked !== '' && !kind;
    const runs = bad ? [] : await listRuns(options.deps.db, { kind, limit: RUN_LIMIT });
    const held = runs.flatMap((run) => run.held.map((account) => ({ run, ...account })));
    const heldTaxes = bad || kind === 'payout' ? [] : await listHeldTaxes(options.deps.db, { limit: RUN_LIMIT });
    const body = html`${choices('/console/runs', bad ? '' : `${asked === '' ? '' : `kind=${asked}`}`, [['All runs', ''], ['Debit runs', 'kind=debit'], ['Payout runs', 'kind=payout']])}
${notice('error', bad ? [`Kind "${asked}" is not known; one of ${KINDS.join(', ')}.`] : [])}
${listTable('runs', runs, RUN_COLUMNS, 'No runs made yet.')}
${runs.length >= RUN_LIMIT ? html`<p>The newest ${RUN_LIMIT} shown.</p>` : ''}
<h2>Accounts held back</h2>
${listTable('held', held, HELD_COLUMNS, 'No account held back.')}
<h2>Yield tax held back</h2>
<p>A debit run that finds no yield tax rate for a tax year debits the account's charges and risk premium and holds back the tax line alone; the first debit run after the rate is set (charges.yieldTaxRates) debits it, once.</p>
${listTable('held-tax', heldTaxes, HELD_TAX_COLUMNS, 'No yield tax held back.')}
${heldTaxes.length >= RUN_LIMIT ? html`<p>The first ${RUN_LIMIT} shown.</p>` : ''}`;
    return reply.type('text/html; charset=utf-8').send(page('Debit and payout runs', request.staff, html`${body}
<p>Advisor firms' fees in the debit runs, and their monthly payment: <a href="/console/commission">advisor commission</a>.</p>`));
  });
  registerCommissionPage(app, options);
}

const RUN_COLUMNS: readonly Column<RunListEntry>[] = [
  ['Run', (run) => run.runKey], ['Kind', (run) => run.kind], ['Custodian', (run) => run.custodianId], ['Run day', (run) => run.runDate],
  ['Made', (run) => formatTime(run.createdAt)], ['File', (run) => run.document?.fileName ?? '(none: every account held back)'],
  ['Lines', (run) => html`<span class="number">${run.lines}</span>`], ['Total (SEK)', (run) => run.total],
  ['Delivered', (run) => (!run.document ? '' : run.document.deliveredAt
    ? `${formatTime(run.document.deliveredAt)} to ${run.document.deliveryTarget ?? ''}`
    : html`<span class="status-dead">not yet</span>${run.document.attempts > 0 ? ` (${run.document.attempts} failed: ${run.document.lastError ?? ''})` : ''}`)],
  ['Held back', (run) => run.held.length],
];

const HELD_COLUMNS: readonly Column<RunListEntry['held'][number] & { run: RunListEntry }>[] = [
  ['Run', (entry) => entry.run.runKey], ['Custodian', (entry) => entry.run.custodianId], ['Account', (entry) => entry.accountNumber],
  ['Insurance', (entry) => insuranceLink(entry.insuranceNumber)], ['Why', (entry) => entry.reason],
];

const HELD_TAX_COLUMNS: readonly Column<HeldTaxEntry>[] = [
  ['Held by run', (tax) => tax.runKey], ['Custodian', (tax) => tax.custodianId], ['Account', (tax) => tax.accountNumber],
  ['Insurance', (tax) => insuranceLink(tax.insuranceNumber)], ['Tax', (tax) => `YieldTax/${tax.basis} (${tax.kind === 'K' ? 'K' : 'P/T'} ${tax.taxYear})`],
  ['Period', (tax) => `${tax.periodFrom} – ${tax.periodTo}`], ['Base (SEK)', (tax) => `${tax.base}${tax.halfBase ? ' at half' : ''}`],
  ['Why', (tax) => tax.reason],
  ['Debited', (tax) => (tax.debited ? `${tax.debited.amount} SEK by ${tax.debited.runKey}` : html`<span class="status-dead">waiting for the rate</span>`)],
];
