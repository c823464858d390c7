import type { FastifyInstance } from 'fastify';
import { listChannelHealth, type ChannelHealthView } from '../../ledger/messages/channel-health.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html } from './html.ts';
import { formatTime, listTable, page, type Column } from './layout.ts';

/**
 * Whether each counterparty's own SFTP server and the gateway's mailbox answer, from
 * the listing GET /api/channels gives: up, down with the last failure, or unknown (no
 * report from the watch role for five minutes); since when, and when last checked. The
 * ones down first. The overview counts those down and links here.
 */
export function registerChannelsPage(app: FastifyInstance, options: HttpServerOptions): void {
  const { deps } = options;
  app.get('/console/channels', async (request, reply) => {
    const channels = sortedForStaff(await listChannelHealth(deps.db, deps.clock()));
    const body = html`<p>The counterparties' own SFTP servers and the gateway's mailbox, as the watch role last found them (it checks at every poll). A server that is down delays that counterparty's documents and answers, not the others'.</p>
${listTable('channels', channels, CHANNEL_COLUMNS, 'No channel has reported yet: the watch role reports each counterparty SFTP server and the mailbox once it runs.')}`;
    return reply.type('text/html; charset=utf-8').send(page('Channels', request.staff, body));
  });
}

const STATE_ORDER = { down: 0, unknown: 1, up: 2 } as const;

/** Down first, then unknown, then up; by channel and name within each. */
export function sortedForStaff(channels: readonly ChannelHealthView[]): ChannelHealthView[] {
  return [...channels].sort((a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state] || a.channel.localeCompare(b.channel) || a.subject.localeCompare(b.subject));
}

const CHANNEL_LABELS = { sftp: 'SFTP server', mail: 'Mailbox (IMAP)' } as const;

const CHANNEL_COLUMNS: readonly Column<ChannelHealthView>[] = [
  ['Channel', (c) => CHANNEL_LABELS[c.channel]],
  ['Counterparty', (c) => (c.subject === 'mailbox' ? '(the gateway)' : c.subject)],
  ['State', (c) => html`<span class="state-${c.state}">${c.state}</span>`],
  ['Since', (c) => formatTime(c.since)],
  ['Last checked', (c) => formatTime(c.checkedAt)],
  ['Last failure', (c) => (c.state === 'up' ? '' : c.detail ?? '')],
];
