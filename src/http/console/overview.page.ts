import type { FastifyInstance } from 'fastify';
import { addDays, stockholmDate } from '../../core/calendar-date.ts';
import { countDeadMessages, countMessagesOfDay, type DayCount } from '../../ledger/messages/console-messages.repository.ts';
import { listApplications } from '../../ledger/advice/applications.repository.ts';
import { countDocumentsPerMinute } from '../../ledger/messages/documents-per-minute.repository.ts';
import { listSetAsideMail } from '../../ledger/messages/mail-set-aside.repository.ts';
import { listChannelHealth } from '../../ledger/messages/channel-health.repository.ts';
import { listWithdrawalRequests } from '../../ledger/advice/withdrawal-requests.repository.ts';
import { listPayoutNotices } from '../../calendar/payout-notices.job.ts';
import { expectedCustodians, listCustodianReports } from '../../calendar/report-deadlines.job.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html, type Html } from './html.ts';
import { page } from './layout.ts';
import { perMinuteChart } from './per-minute-chart.ts';
import { countStalledSwitches } from './custodian-switches.page.ts';

/**
 * The overview staff keep open all day: today's documents per counterparty and type
 * with their statuses, and what needs a person — dead messages, queue backlogs, late
 * and missing custodian reports (the last 14 days), channels down (a counterparty's
 * SFTP server, the mailbox), mail set aside, applications
 * waiting for a manual review, withdrawals waiting for signatures or a decision, custodian
 * switches stalled past custodianSwitches.stallBankingDays, payout notices not
 * mailed — and the documents received per minute over the last hours. Every number
 * links to the list behind it.
 */
const LIST_LIMIT = 1000;
const CHART_HOURS = 3;
const STATUS_COLUMNS = ['received', 'validated', 'applied', 'rejected', 'duplicate', 'dead'] as const;

export function registerOverviewPage(app: FastifyInstance, options: HttpServerOptions): void {
  const { deps, config, queues } = options;
  const custodians = expectedCustodians(config.counterparties);
  app.get('/console', async (request, reply) => {
    const now = deps.clock();
    const today = stockholmDate(now);
    const chartFrom = new Date(Math.floor(now.getTime() / 60_000) * 60_000 - (CHART_HOURS * 60 - 1) * 60_000);
    const chartTo = new Date(chartFrom.getTime() + CHART_HOURS * 3_600_000);
    const [day, dead, reports, setAside, reviews, unsigned, signed, payoutNotices, perMinute, depths, channels, stalledSwitches] = await Promise.all([
      countMessagesOfDay(deps.db, today),
      countDeadMessages(deps.db),
      listCustodianReports(deps.db, custodians, { from: addDays(today, -14), to: today, statuses: ['late', 'missing'] }, now),
      listSetAsideMail(deps.db, LIST_LIMIT),
      listApplications(deps.db, { status: 'under-review' }, LIST_LIMIT),
      listWithdrawalRequests(deps.db, 'requested', LIST_LIMIT),
      listWithdrawalRequests(deps.db, 'signed', LIST_LIMIT),
      listPayoutNotices(deps.db, { unsent: true, limit: LIST_LIMIT }),
      countDocumentsPerMinute(deps.db, chartFrom, chartTo),
      queues ? queues.counts() : undefined,
      listChannelHealth(deps.db, now),
      countStalledSwitches(options),
    ]);
    const down = channels.filter((channel) => channel.state === 'down');
    const late = reports.filter((report) => report.status === 'late').length;
    const missing = reports.filter((report) => report.status === 'missing').length;
    const body = html`
<div class="cards">
  ${card('Dead messages', dead, '/console/messages?status=dead', 'dead')}
  ${card('Channels down (SFTP servers, mailbox)', down.length, '/console/channels', 'channels-down')}
  ${card('Late custodian reports (14 days)', late, '/console/custodian-reports?status=late', 'late-reports')}
  ${card('Missing custodian reports (14 days)', missing, '/console/custodian-reports?status=missing', 'missing-reports')}
  ${card('Mail set aside', setAside.length, '/console/mail-set-aside', 'set-aside', setAside.length >= LIST_LIMIT)}
  ${card('Waiting for manual review', reviews.length, '/console/applications?status=under-review', 'reviews', reviews.length >= LIST_LIMIT)}
  ${card('Withdrawal requests not signed yet', unsigned.length, '/console/withdrawal-requests?status=requested', 'withdrawals', unsigned.length >= LIST_LIMIT)}
  ${card('Signed withdrawal requests waiting for a decision', signed.length, '/console/withdrawal-requests?status=signed', 'signed-withdrawals', signed.length >= LIST_LIMIT)}
  ${card('Custodian switches stalled', stalledSwitches, '/console/custodian-switches', 'stalled-switches')}
  ${card('Payout notices not mailed', payoutNotices.length, '/console/payout-notices?unsent=true', 'unsent-payout-notices', payoutNotices.length >= LIST_LIMIT)}
</div>
${down.length ? html`<p id="down-channels">Down: ${down.map((c) => html`<a href="/console/channels">${c.channel} ${c.subject}</a> (${c.detail ?? 'no detail'}) `)}</p>` : ''}
<p>Also: <a href="/console/channels">channels</a> · <a href="/console/runs">debit and payout runs</a> · <a href="/console/application-notices">application notices</a></p>
<h2>Documents per minute, last ${CHART_HOURS} hours</h2>
${perMinuteChart(perMinute, chartFrom, chartTo)}
<h2>Today's documents (${today})</h2>
${dayTable(day, today)}
<h2>Queues</h2>
${depths ? html`<table id="queues"><tr><th>Queue</th><th>Waiting</th><th>Active</th><th>Delayed</th><th>Failed</th></tr>
${Object.entries(depths).map(([stage, counts]) => html`<tr><td><a href="/admin/queues/queue/${stage}">${stage}</a></td>${['waiting', 'active', 'delayed', 'failed'].map((state) => html`<td class="number">${counts[state] ?? 0}</td>`)}</tr>`)}
</table>` : html`<p>This process runs without queues.</p>`}`;
    return reply.type('text/html; charset=utf-8').send(page('Overview', request.staff, body));
  });
}

function card(title: string, count: number, href: string, id: string, more = false): Html {
  return html`<div class="card"><div>${title}</div><a id="${id}" href="${href}">${count}${more ? '+' : ''}</a></div>`;
}

/** One row per counterparty and type, a column per status: each count a link to those messages. */
function dayTable(counts: readonly DayCount[], today: string): Html {
  if (counts.length === 0) return html`<p>No documents received today.</p>`;
  const rows = new Map<string, { counterpartyId: string; messageType: string | null; byStatus: Map<string, number> }>();
  for (const count of counts) {
    const key = `${count.counterpartyId}\0${count.messageType ?? ''}`;
    const row = rows.get(key) ?? { counterpartyId: count.counterpartyId, messageType: count.messageType, byStatus: new Map() };
    row.byStatus.set(count.status, (row.byStatus.get(count.status) ?? 0) + count.count);
    rows.set(key, row);
  }
  return html`<table id="today"><tr><th>Counterparty</th><th>Type</th>${STATUS_COLUMNS.map((status) => html`<th>${status}</th>`)}</tr>
${[...rows.values()].map((row) => html`<tr><td>${row.counterpartyId}</td><td>${row.messageType ?? '(not known)'}</td>${STATUS_COLUMNS.map((status) => {
    const count = row.byStatus.get(status) ?? 0;
    const filter = new URLSearchParams({ counterparty: row.counterpartyId, ...(row.messageType ? { type: row.messageType } : {}), status, from: today, to: today });
    return html`<td class="number" data-status="${status}">${count > 0 ? html`<a href="/console/messages?${filter.toString()}">${count}</a>` : '0'}</td>`;
  })}</tr>`)}
</table>`;
}
