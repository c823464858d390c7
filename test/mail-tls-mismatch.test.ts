/**
 * `secure` that does not match the mail server's port gets an answer naming the setting
 * to change: TLS asked of a real SMTP server on a plain port (the gateway's SMTP sender)
 * and of a plain IMAP greeting (the imapflow client the mailbox uses).
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { ImapFlow } from 'imapflow';
import { createSmtpSender } from '../src/channels/mail/smtp.sender.ts';
import { MailboxWatcher, type MailboxWatcherOptions } from '../src/channels/mail/mailbox.watcher.ts';
import { tlsMismatchHint } from '../src/channels/mail/tls-mismatch.ts';
import { startSmtpSink } from './support/smtp-sink.ts';

test('SMTP: secure true against a plain port is DELIVERY_FAILED saying to set secure: false', async () => {
  const sink = await startSmtpSink();
  const sender = createSmtpSender({ host: sink.host, port: sink.port, secure: true, from: 'gateway@insurer.example', timeoutMs: 5000 });
  try {
    await assert.rejects(sender.send({ to: 'ops@insurer.example', subject: 'test', text: 'test' }), (error: { code?: string; message: string }) => {
      assert.equal(error.code, 'DELIVERY_FAILED');
      assert.match(error.message, new RegExp(`mail\\.smtp: secure is true \\(TLS from the first byte\\) but port ${sink.port} answers in plain text; set secure: false`));
      return true;
    });
    assert.equal(sink.mails.length, 0);
  } finally {
    await sender.close();
    await sink.close();
  }
});

test('IMAP: secure true against a plain greeting gives the hint for mail.imap', async () => {
  const server = createServer((socket) => socket.end('* OK IMAP4rev1 ready\r\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const client = new ImapFlow({ host: '127.0.0.1', port, secure: true, logger: false, auth: { user: 'u', pass: 'p' }, connectionTimeout: 5000, greetingTimeout: 5000 });
  client.on('error', () => undefined);
  try {
    const error = await client.connect().then(() => undefined, (failure: unknown) => failure);
    assert.ok(error, 'the connection fails');
    assert.match(tlsMismatchHint(error, 'mail.imap', { port, secure: true }) ?? String(error), /^mail\.imap: secure is true .* set secure: false/);
  } finally {
    client.close();
    server.close();
  }
});

test('plain text to a TLS port is told to set secure: true; other failures get no hint', () => {
  assert.match(tlsMismatchHint(new Error('Greeting never received'), 'mail.smtp', { port: 465, secure: false }) ?? '', /port 465 usually speaks TLS .* set secure: true/);
  assert.equal(tlsMismatchHint(new Error('Greeting never received'), 'mail.smtp', { port: 587, secure: false }), undefined);
  assert.equal(tlsMismatchHint(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:993'), { code: 'ECONNREFUSED' }), 'mail.imap', { port: 993, secure: true }), undefined);
});

test('the mailbox warns once about the same failure over many reconnects, and staff see the hint', async () => {
  const server = createServer((socket) => socket.end('* OK IMAP4rev1 ready\r\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  let connections = 0;
  server.on('connection', () => void (connections += 1));
  const warnings: { obj: Record<string, unknown>; msg: string | undefined }[] = [];
  const reports: { state: string; detail?: string }[] = [];
  const watcher = new MailboxWatcher({
    imap: { host: '127.0.0.1', port, secure: true, user: 'u', password: 'p', mailbox: 'INBOX', processedMailbox: 'Processed', asideMailbox: 'Aside', pollIntervalMs: 1000, idle: false, maxMailBytes: 1_000_000 },
    intake: { receive: () => Promise.reject(new Error('not reached')) },
    senders: new Map(),
    trust: { authservId: undefined, trustedRelays: [] } as unknown as MailboxWatcherOptions['trust'],
    health: { report: (report) => void reports.push(report) },
    setAside: { record: () => Promise.resolve() } as unknown as MailboxWatcherOptions['setAside'],
    log: { info() {}, warn: (obj, msg) => void warnings.push({ obj: obj as Record<string, unknown>, msg }) },
    reconnectMinMs: 20,
    reconnectMaxMs: 40,
  });
  watcher.start();
  try {
    const deadline = Date.now() + 10_000;
    while (reports.length < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(connections >= 5, `reconnected ${connections} times`);
  } finally {
    await watcher.stop();
    server.close();
  }
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.match(String(warnings[0]!.obj.err), /^mail\.imap: secure is true/);
  assert.ok(reports.length >= 5 && reports.every((report) => report.state === 'down' && /set secure: false/.test(report.detail ?? '')));
});
