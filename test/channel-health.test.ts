/**
 * Staff see whether each counterparty's SFTP server and the gateway's mailbox answer:
 * GET /api/channels, as the watch role found them — a real sshd that answers, a port
 * where nothing listens, a real Dovecot stopped and started again.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestGateway, testSettings, waitFor, type TestGateway } from './support/harness.ts';
import { freePort } from './support/processes.ts';
import { startSshd, type SshdServer } from './support/sshd.ts';
import { startDovecot, type DovecotServer } from './support/dovecot.ts';

interface ChannelView { subject: string; channel: string; state: string; detail: string | null; since: string; checkedAt: string }

describe('channel health', () => {
  let sshd: SshdServer;
  let dovecot: DovecotServer;
  let gateway: TestGateway;

  beforeAll(async () => {
    [sshd, dovecot] = await Promise.all([startSshd(), startDovecot()]);
    const outbox = join(sshd.root, 'health', 'outbox');
    const inbox = join(sshd.root, 'health', 'inbox');
    await mkdir(outbox, { recursive: true });
    await mkdir(inbox, { recursive: true });
    const closedPort = await freePort();
    const sftp = (port: number) => ({
      host: sshd.host, port, username: sshd.username, privateKeyPath: sshd.clientKeyPath, hostKeySha256: sshd.hostKeySha256,
      outboxPath: outbox, inboxPath: inbox, pollIntervalMs: 200, stableMs: 200, timeoutMs: 3000,
    });
    const counterparties = (testSettings('unused').counterparties as Record<string, unknown>[]).map((c) =>
      c.id === 'demo-employer' ? { ...c, sftp: sftp(sshd.port) } : c.id === 'demo-custodian' ? { ...c, sftp: sftp(closedPort) } : c);
    gateway = await startTestGateway({
      roles: ['api', 'watch'],
      settings: {
        counterparties,
        mail: { imap: { host: dovecot.host, port: dovecot.port, secure: false, user: dovecot.user, password: dovecot.password, pollIntervalMs: 300, authservId: 'mx.insurer.example' } },
      },
    });
  });
  afterAll(async () => {
    await gateway?.destroy();
    await Promise.all([sshd?.destroy(), dovecot?.destroy()]);
  });

  async function channels(): Promise<ChannelView[]> {
    const answer = await gateway.http!.inject({ url: '/api/channels', headers: { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` } });
    assert.equal(answer.statusCode, 200, answer.body);
    return (answer.json() as { channels: ChannelView[] }).channels;
  }
  const stateOf = (list: ChannelView[], channel: string, subject: string) => list.find((c) => c.channel === channel && c.subject === subject);

  test('a server that answers is up, one that refuses is down with the reason, and the mailbox follows its server', async () => {
    const found = await waitFor(async () => {
      const list = await channels();
      const ready = ['demo-employer', 'demo-custodian'].every((id) => stateOf(list, 'sftp', id)) && stateOf(list, 'mail', 'mailbox');
      return ready && list;
    }, 'every channel reported');
    assert.equal(stateOf(found, 'sftp', 'demo-employer')?.state, 'up');
    const refused = stateOf(found, 'sftp', 'demo-custodian');
    assert.equal(refused?.state, 'down');
    assert.match(refused?.detail ?? '', /ECONNREFUSED|refused/i);
    assert.equal(stateOf(found, 'mail', 'mailbox')?.state, 'up');

    const upSince = stateOf(found, 'mail', 'mailbox')!.since;
    await dovecot.kill();
    const down = await waitFor(async () => {
      const mailbox = stateOf(await channels(), 'mail', 'mailbox');
      return mailbox?.state === 'down' && mailbox;
    }, 'the mailbox reported down');
    assert.ok(down.since > upSince, 'since is when it went down');
    assert.ok(down.detail, 'with the reason');
    await dovecot.start();
    await waitFor(async () => stateOf(await channels(), 'mail', 'mailbox')?.state === 'up', 'the mailbox up again', 40_000);
  });

  test('the list is for staff only', async () => {
    const answer = await gateway.http!.inject({ url: '/api/channels' });
    assert.equal(answer.statusCode, 401);
  });
});
