/**
 * Two `watch` processes configured with one mailbox (two hosts for availability) read it
 * one at a time: the process holding the mailbox's lease (a PostgreSQL session lock)
 * takes every mail while the other stands by; killed with SIGKILL mid-batch, the other
 * takes the lease over within seconds and reads the rest. Every document is applied
 * once and answered once, none as a duplicate. Real Dovecot, a real SMTP server,
 * PostgreSQL and Redis; the gateway's roles run as child processes.
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ImapFlow } from 'imapflow';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { createTestDatabase, deleteQueues, testSettings, waitFor, type TestDatabase } from './support/harness.ts';
import { startDovecot, type DovecotServer } from './support/dovecot.ts';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink.ts';
import { composeMail, fees, GATEWAY, RECEIVING_SERVER } from './support/mails.ts';
import { runCli, writeConfigFile, type GatewayProcess } from './support/processes.ts';
import { PERSONS } from './support/documents.ts';

const MAILS = 40;
const START_MS = 120_000;
const EMPLOYER = 'hr@employer.example';

/** How many mails a process logged as taken. */
const taken = (process: GatewayProcess) => process.output().split('\n').filter((line) => line.includes('"msg":"mail taken"')).length;
const holdsLease = (process: GatewayProcess) => process.output().split('\n').some((line) => line.includes('took channel leases') && line.includes('"mail:'));

async function inboxCount(imap: ImapFlow): Promise<number> {
  const status = await imap.status('INBOX', { messages: true });
  return status ? (status.messages ?? 0) : 0;
}

test(`two watch processes on one mailbox: one reads at a time, the other takes over within 10 s of a kill; ${MAILS} mails, one answer per document`, async () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  const processes: GatewayProcess[] = [];
  try {
    const dovecot: DovecotServer = await startDovecot();
    cleanups.push(() => dovecot.destroy());
    const sink: SmtpSink = await startSmtpSink();
    cleanups.push(() => sink.close());
    const database: TestDatabase = await createTestDatabase();
    cleanups.push(() => database.drop());
    const dataDir = await mkdtemp(join(tmpdir(), 'dg-mailbox-readers-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const defaults = testSettings(dataDir);
    const queuePrefix = defaults.queuePrefix as string;
    cleanups.push(() => deleteQueues(queuePrefix));
    const counterparties = (defaults.counterparties as Record<string, unknown>[]).map((c) => (c.id === 'demo-employer' ? { ...c, mail: { addresses: [EMPLOYER] } } : c));
    const config = await writeConfigFile(dataDir, testSettings(dataDir, {
      databaseUrl: database.url, queuePrefix, counterparties,
      mail: {
        smtp: { host: sink.host, port: sink.port, secure: false, from: GATEWAY, timeoutMs: 5000 },
        imap: {
          host: dovecot.host, port: dovecot.port, secure: false, user: dovecot.user, password: dovecot.password,
          processedMailbox: 'Processed', asideMailbox: 'Set aside', pollIntervalMs: 300, idle: true, authservId: RECEIVING_SERVER,
        },
      },
    }));
    await writeFile(join(dataDir, '.demo-sample-dropped'), '');
    const start = (role: string) => {
      const process = runCli([role, '--config', config], { LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
      processes.push(process);
      return process;
    };

    const imap = new ImapFlow({ host: dovecot.host, port: dovecot.port, secure: false, auth: { user: dovecot.user, pass: dovecot.password }, logger: false });
    imap.on('error', () => undefined);
    await imap.connect();
    cleanups.push(() => imap.logout().catch(() => undefined));

    start('worker');
    const readers = [start('watch'), start('watch')];
    const holder = await waitFor(() => readers.find(holdsLease), 'one watch process to take the mailbox lease', START_MS);
    const standby = readers.find((reader) => reader !== holder)!;
    await sleep(2000);
    assert.equal(holdsLease(standby), false, 'the lease is held by one process');

    const batch = Array.from({ length: MAILS }, (_, index) => ({ messageId: `<readers-${index}@employer.example>`, attachment: fees(`MAIL-READERS-${index}`, 'INS-100006', ((1000 + index) / 10_000).toFixed(4), PERSONS.anna) }));
    for (const mail of batch) await imap.append('INBOX', composeMail({ from: EMPLOYER, messageId: mail.messageId, subject: `Fees ${mail.messageId}`, attachments: [mail.attachment] }));

    await waitFor(() => taken(holder) >= 10, 'the holder to take ten mails', START_MS);
    assert.equal(taken(standby), 0, 'the standby reads nothing while the holder holds the lease');
    holder.child.kill('SIGKILL');
    assert.equal(await holder.exited, 'SIGKILL');
    const killedAt = Date.now();
    await waitFor(() => holdsLease(standby), 'the standby to take the lease over', 10_000);
    const takeover = Date.now() - killedAt;

    await waitFor(async () => (await inboxCount(imap)) === 0, 'the INBOX to empty', START_MS);
    const ids = new Set(batch.map((mail) => mail.messageId));
    const replies = () => sink.mails.filter((mail) => ids.has(mail.parsed.inReplyTo ?? ''));
    await waitFor(() => new Set(replies().map((mail) => mail.parsed.messageId)).size >= MAILS, 'an answer to every document', START_MS).catch(async (error: unknown) => {
      // What became of the unanswered ones, and what the processes warned about, so a failure says where a document stopped.
      const answered = new Set(replies().map((mail) => mail.parsed.inReplyTo));
      const db = openPostgresDatabase({ url: database.url, max: 1 });
      const { rows: unanswered } = await db.query(
        `SELECT external_id, status, error_code, received_at FROM messages WHERE external_id LIKE '<readers-%' ORDER BY received_at`,
      ).finally(() => db.close());
      const warnings = processes.flatMap((p, index) => p.output().split('\n').filter((line) => /"level":(40|50|60)/.test(line)).map((line) => `${index}: ${line}`));
      throw new Error(`${(error as Error).message}\nmessages: ${JSON.stringify(unanswered.filter((row) => !answered.has(String(row.external_id).split('/')[0])))}\nwarnings:\n${warnings.join('\n')}`);
    });
    await sleep(1500); // a second answer would have been delivered by now
    process.stdout.write(`# ${MAILS} mails: the holder took ${taken(holder)} before its kill, the standby took the lease ${takeover} ms after it and took ${taken(standby)}\n`);

    for (const mail of batch) {
      const its = replies().filter((reply) => reply.parsed.inReplyTo === mail.messageId);
      assert.equal(new Set(its.map((reply) => reply.parsed.messageId)).size, 1, `${mail.messageId}: one answer`);
      assert.match(its[0]!.parsed.attachments[0]?.content.toString('utf8') ?? '', /<ChangeFeeResponse [\s\S]*<Status>Accepted<\/Status>/);
    }
    const db = openPostgresDatabase({ url: database.url, max: 1 });
    const { rows } = await db.query<{ n: number; statuses: string[] }>(
      `SELECT count(*)::int AS n, array_agg(DISTINCT status) AS statuses FROM messages WHERE external_id LIKE '<readers-%'`,
    ).finally(() => db.close());
    assert.deepEqual(rows[0], { n: MAILS, statuses: ['applied'] }, 'one message per document, applied, none a duplicate');
    assert.ok(taken(standby) > 0 && taken(standby) <= MAILS - 10, 'the standby read the rest after the takeover');
  } finally {
    for (const process of processes) {
      if (process.child.exitCode === null && process.child.signalCode === null) {
        process.child.kill('SIGKILL');
        await process.exited;
      }
    }
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}, 300_000);
