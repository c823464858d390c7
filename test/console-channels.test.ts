/**
 * The console shows channel health: the overview counts the channels down and names
 * them, and /console/channels lists every counterparty SFTP server and the mailbox as
 * GET /api/channels does — state, since, last checked (Stockholm time), last failure —
 * the ones down first. The states are written through the repository the watch role
 * reports through, on PostgreSQL; the pages are read signed in as staff.
 */
import { test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { recordChannelHealth } from '../src/ledger/messages/channel-health.repository.ts';
import { startTestGateway, FIXED_NOW, type TestGateway } from './support/harness.ts';
import { consolePage, signInToConsole, type ConsoleSession } from './support/console-session.ts';

let gateway: TestGateway;
let session: ConsoleSession;

beforeAll(async () => {
  gateway = await startTestGateway({ roles: ['api'] });
  session = await signInToConsole(gateway.http!, 'staff', 'test-password');
});
afterAll(async () => {
  await gateway?.destroy();
});

const get = (url: string) => consolePage(gateway.http!, session, url);
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

test('with no reports yet: nothing down, and the channels page says why it is empty', async () => {
  assert.match(await get('/console'), /<a id="channels-down" href="\/console\/channels">0<\/a>/);
  assert.match(await get('/console/channels'), /<p id="channels-none">No channel has reported yet/);
});

test('the overview counts and names the channels down; the channels page lists all of them, down first, in Stockholm time', async () => {
  const db = gateway.deps.db;
  const minutesAgo = (minutes: number) => new Date(FIXED_NOW.getTime() - minutes * 60_000);
  await recordChannelHealth(db, { subject: 'demo-employer', channel: 'sftp', state: 'up' }, minutesAgo(1));
  await recordChannelHealth(db, { subject: 'mailbox', channel: 'mail', state: 'up' }, minutesAgo(2));
  await recordChannelHealth(db, {
    subject: 'demo-custodian', channel: 'sftp', state: 'down',
    detail: 'root@sftp.custodian.example:22 presented SHA256:presented; SHA256:pinned is pinned for demo-custodian.',
  }, minutesAgo(3));

  const overview = await get('/console');
  assert.match(overview, /<a id="channels-down" href="\/console\/channels">1<\/a>/);
  assert.match(text(overview), /Down: sftp demo-custodian \(root@sftp\.custodian\.example:22 presented SHA256:presented; SHA256:pinned is pinned for demo-custodian\.\)/);

  const page = await get('/console/channels');
  const rows = [...page.matchAll(/<tr>(.*?)<\/tr>/gs)].map((row) => text(row[1]!).trim());
  // FIXED_NOW is 2026-11-22 10:00 UTC, 11:00 in Stockholm (CET): three minutes before is 10:57 there.
  assert.deepEqual(rows, [
    'Channel Counterparty State Since Last checked Last failure',
    'SFTP server demo-custodian down 2026-11-22 10:57:00 2026-11-22 10:57:00 root@sftp.custodian.example:22 presented SHA256:presented; SHA256:pinned is pinned for demo-custodian.',
    'Mailbox (IMAP) (the gateway) up 2026-11-22 10:58:00 2026-11-22 10:58:00',
    'SFTP server demo-employer up 2026-11-22 10:59:00 2026-11-22 10:59:00',
  ]);
  // The same channels as the staff API lists.
  const api = await gateway.http!.inject({ url: '/api/channels', headers: { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` } });
  assert.equal((api.json() as { channels: unknown[] }).channels.length, 3);
  assert.match(page, /<a href="\/console\/channels">Channels<\/a>/, 'in the console menu');
});
