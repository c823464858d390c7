/**
 * A counterparty's SFTP server whose host key is not the pinned one, left that way: the
 * gateway logs it once (not once a poll), tries again with the documented backoff (0.5 s
 * doubling, ±25 % jitter, up to 60 s) and shows the channel down in GET /api/channels.
 * OpenSSH's sshd on loopback behind a forwarder that counts the connection attempts
 * and can refuse connections, so the kind of failure can change.
 */
import { test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { SftpSession, type SftpSessionLog } from '../src/channels/remote-sftp/sftp-session.ts';
import { isGatewayError } from '../src/core/gateway-error.ts';
import { startTestGateway, testSettings, waitFor, type TestGateway } from './support/harness.ts';
import { startSshd, type SshdServer } from './support/sshd.ts';

const WRONG_PIN = `SHA256:${'A'.repeat(43)}`;

/** A loopback TCP forwarder to the sshd that notes when each connection came, and can refuse them for a while. */
interface CountingForwarder {
  readonly port: number;
  readonly attempts: number[];
  refuse(): Promise<void>;
  accept(): Promise<void>;
  close(): Promise<void>;
}

async function startForwarder(target: number): Promise<CountingForwarder> {
  const attempts: number[] = [];
  const sockets = new Set<Socket>();
  let port = 0;
  let server: Server | undefined;
  const listen = async () => {
    server = createServer((socket) => {
      attempts.push(Date.now());
      const upstream = connect(target, '127.0.0.1');
      sockets.add(socket).add(upstream);
      for (const end of [socket, upstream]) end.on('error', () => undefined).on('close', () => sockets.delete(end));
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server!.address() as { port: number }).port;
  };
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  };
  await listen();
  return { get port() { return port; }, attempts, refuse: stop, accept: listen, close: stop };
}

let sshd: SshdServer;
let forwarder: CountingForwarder;
let gateway: TestGateway | undefined;

beforeAll(async () => {
  sshd = await startSshd();
  forwarder = await startForwarder(sshd.port);
});
afterAll(async () => {
  await gateway?.destroy();
  await forwarder?.close();
  await sshd?.destroy();
});

test('a wrong host-key pin is logged once, retried with backoff doubling from 0.5 s, and shows the channel down', async () => {
  const outbox = join(sshd.root, 'outbox');
  const inbox = join(sshd.root, 'inbox');
  await mkdir(outbox);
  await mkdir(inbox);
  const lines: { level: number; msg: string; counterpartyId?: string; err?: unknown; stack?: unknown }[] = [];
  const sink = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]); done(); } });
  const base = testSettings('unused');
  const counterparties = (base.counterparties as Record<string, unknown>[]).map((c) => (c.id !== 'demo-employer' ? c : {
    ...c,
    sftp: {
      host: '127.0.0.1', port: forwarder.port, username: sshd.username, privateKeyPath: sshd.clientKeyPath, hostKeySha256: WRONG_PIN,
      outboxPath: outbox, inboxPath: inbox, pollIntervalMs: 100, stableMs: 300, timeoutMs: 5000,
    },
  }));
  // The operator's view: info and above, as `depot-gateway start` logs by default.
  gateway = await startTestGateway({ settings: { counterparties }, roles: ['watch', 'api'], log: pino({ level: 'info' }, sink) });

  // Attempts 1–7 come after 0, 0.5, 1, 2, 4, 8 and 16 s (±25 %): the 7th by about 32 s.
  const started = Date.now();
  await waitFor(() => forwarder.attempts.length >= 7, 'seven connection attempts', 60_000);
  // The 8th is not due before 0.75 × 32 s after the 7th: a little longer shows none comes early.
  await sleep(3000);
  const attempts = forwarder.attempts.slice();
  const gaps = attempts.slice(1).map((at, i) => at - attempts[i]!);
  console.log(`attempts after ${attempts.map((at) => at - started).join(', ')} ms; gaps ${gaps.join(', ')} ms; ${lines.length} log lines`);
  assert.equal(attempts.length, 7, 'no attempt beyond the backoff');
  gaps.forEach((gap, i) => {
    const nominal = 500 * 2 ** i;
    // Jitter ±25 %; a poll comes every 100 ms and a loaded machine is slow to hand over.
    assert.ok(gap >= nominal * 0.75 - 50 && gap <= nominal * 1.25 + 2500, `gap ${i + 1} is ${gap} ms, not ${nominal} ms ±25 %`);
  });

  const aboutSftp = lines.filter((line) => line.counterpartyId === 'demo-employer');
  assert.equal(aboutSftp.length, 1, `one line for seven failed attempts, not ${aboutSftp.map((l) => l.msg).join(' | ')}`);
  assert.equal(aboutSftp[0]!.level, 50);
  assert.ok(aboutSftp[0]!.msg.includes(WRONG_PIN) && aboutSftp[0]!.msg.includes(sshd.hostKeySha256), 'the line names both fingerprints');
  assert.equal(JSON.stringify(aboutSftp[0]).includes('"stack"'), false, 'no stack trace');

  const auth = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
  const { channels } = (await gateway.http!.inject({ url: '/api/channels', headers: auth })).json() as { channels: { channel: string; subject: string; state: string; detail: string | null }[] };
  const sftp = channels.find((c) => c.channel === 'sftp' && c.subject === 'demo-employer');
  assert.equal(sftp?.state, 'down');
  assert.match(sftp?.detail ?? '', new RegExp(`presented ${sshd.hostKeySha256.replace(/[+/]/g, '\\$&')}; ${WRONG_PIN} is pinned`));
}, 120_000);

test('the session logs a failure again only when its kind changes, and says when it connects again', async () => {
  const lines: string[] = [];
  const at = (level: string) => (_obj: object, msg?: string) => lines.push(`${level} ${msg ?? ''}`);
  const log: SftpSessionLog = { debug() {}, info: at('info'), warn: at('warn'), error: at('error') };
  const endpoint = { host: '127.0.0.1', port: forwarder.port, username: sshd.username, privateKeyPath: sshd.clientKeyPath, timeoutMs: 5000 };
  const attempt = (session: SftpSession) => session.run('list', (client) => client.list(sshd.root)).then(() => 'listed', (error: unknown) => error);
  /** Tries until `count` more connections were attempted (the backoff is 20 ms doubling up to 80 ms). */
  const attemptsOf = async (session: SftpSession, count: number, outcome: (value: unknown) => boolean) => {
    const until = forwarder.attempts.length + count;
    while (forwarder.attempts.length < until) {
      const result = await attempt(session);
      if (!outcome(result)) assert.fail(`unexpected outcome ${String(result)}`);
      await sleep(10);
    }
  };

  const wrong = new SftpSession({ counterpartyId: 'demo-employer', endpoint: { ...endpoint, hostKeySha256: WRONG_PIN }, log, backoffMs: 20, maxBackoffMs: 80 });
  const mismatch = (value: unknown) => isGatewayError(value) || (value instanceof Error && value.name === 'SftpBackoffError');
  await attemptsOf(wrong, 5, mismatch);
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0]!, /^error refusing .* its host key SHA256:\S+ is not the pinned SHA256:A{43}/);

  // The server goes away: a new kind of failure, logged once.
  await forwarder.refuse();
  const refusedAt = lines.length;
  for (let i = 0; i < 30; i++) {
    await attempt(wrong);
    await sleep(10);
  }
  assert.equal(lines.length, refusedAt + 1, lines.join('\n'));
  assert.match(lines.at(-1)!, /^warn cannot connect to .*ECONNREFUSED/);

  // Back with the same wrong key: logged again, once.
  await forwarder.accept();
  await attemptsOf(wrong, 4, mismatch);
  assert.equal(lines.length, refusedAt + 2, lines.join('\n'));
  assert.match(lines.at(-1)!, /^error refusing /);
  await wrong.close();

  // The right pin after failures: one line saying it works again.
  lines.length = 0;
  await forwarder.refuse();
  const right = new SftpSession({ counterpartyId: 'demo-employer', endpoint: { ...endpoint, hostKeySha256: sshd.hostKeySha256 }, log, backoffMs: 20, maxBackoffMs: 80 });
  assert.ok(await attempt(right) instanceof Error);
  await forwarder.accept();
  await waitFor(async () => (await attempt(right)) === 'listed', 'a listing once the server is back');
  await right.close();
  assert.deepEqual(lines.map((line) => line.replace(/ (to|connect to) .*/, '')), ['warn cannot', 'info connected']);
});
