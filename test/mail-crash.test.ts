/**
 * A batch of mails survives a gateway killed with SIGKILL while it takes them: each
 * document applied once and answered once, none of them as a duplicate. The gateway
 * (`depot-gateway start`, a child process) reads a real Dovecot mailbox and replies
 * through a real SMTP server, on Redis and on PostgreSQL or the embedded database in its
 * data folder.
 *
 * The kill that matters lands after intake recorded a mail's documents and before the
 * mail was moved to Processed: the restarted gateway reads that mail again, and must
 * recognise it rather than answer its documents a second time as duplicates. That
 * window is a few milliseconds of each mail's turn. Intake queues what it recorded for
 * validation right after recording it, before the mail is moved, so the test follows
 * the validation queue's event stream in Redis and kills the gateway the moment a job
 * is added. After each kill it looks in the ledger (the embedded database can be opened
 * once the gateway is dead) and starts the gateway again, until a kill has left a
 * recorded mail in the INBOX (most kills do).
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ImapFlow } from 'imapflow';
import { Redis } from 'ioredis';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { openPgliteDatabase } from '../src/ledger/pglite.database.ts';
import type { Database } from '../src/ledger/database.ts';
import { createTestDatabase, deleteQueues, testSettings, waitFor, TEST_REDIS_URL, type TestDatabase } from './support/harness.ts';
import { startDovecot, type DovecotServer } from './support/dovecot.ts';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink.ts';
import { composeMail, fees, GATEWAY, RECEIVING_SERVER, type Attachment } from './support/mails.ts';
import { runCli, writeConfigFile, type GatewayProcess } from './support/processes.ts';
import { PERSONS } from './support/documents.ts';

const MAILS = 40;
/** Kills at most; a run goes on once a kill has left a recorded mail in the INBOX, and stops killing with a few mails left. */
const MAX_KILLS = 6;
/** Time for a gateway to start and record a document: generous, as a start from the sources on a loaded machine takes a minute or more. */
const START_MS = 240_000;
const EMPLOYER = 'hr@employer.example';

type LedgerKind = 'PostgreSQL' | 'the embedded database';

interface BatchMail {
  readonly messageId: string;
  readonly attachments: readonly Attachment[];
  /** The capital charge of each attachment, in hundredths of a per cent. */
  readonly values: readonly number[];
}

/** Forty mails; every fifth carries two documents. Each document its own fee value, so the ledger's sum shows each applied once. */
function batchOf(tag: string): BatchMail[] {
  return Array.from({ length: MAILS }, (_, index) => {
    const values = index % 5 === 4 ? [1000 + 2 * index, 1001 + 2 * index] : [1000 + 2 * index];
    const attachments = values.map((value, n) => fees(`MAIL-CRASH-${index}-${n}`, 'INS-100006', (value / 10_000).toFixed(4), PERSONS.anna));
    return { messageId: `<crash-${tag}-${index}@employer.example>`, attachments, values };
  });
}

/** The Message-IDs of the mail in a folder. */
async function messageIdsIn(imap: ImapFlow, path: string): Promise<string[]> {
  if (!(await imap.list()).some((m) => m.path === path)) return [];
  const lock = await imap.getMailboxLock(path);
  try {
    await imap.noop(); // the count the client holds may be old
    if (!imap.mailbox || !imap.mailbox.exists) return [];
    return (await imap.fetchAll('1:*', { envelope: true })).map((m) => m.envelope?.messageId ?? '');
  } finally {
    lock.release();
  }
}

async function crashRun(kind: LedgerKind): Promise<void> {
  const tag = kind === 'PostgreSQL' ? 'pg' : 'embedded';
  const batch = batchOf(tag);
  const documents = batch.flatMap((mail) => mail.attachments.map((attachment) => ({ mail, attachment })));
  const cleanups: (() => Promise<unknown>)[] = [];
  const gateways: GatewayProcess[] = [];
  try {
    const dovecot: DovecotServer = await startDovecot();
    cleanups.push(() => dovecot.destroy());
    const sink: SmtpSink = await startSmtpSink();
    cleanups.push(() => sink.close());
    const database: TestDatabase | undefined = kind === 'PostgreSQL' ? await createTestDatabase() : undefined;
    if (database) cleanups.push(() => database.drop());
    const dataDir = await mkdtemp(join(tmpdir(), `dg-mail-crash-${tag}-`));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const defaults = testSettings(dataDir);
    const queuePrefix = defaults.queuePrefix as string;
    cleanups.push(() => deleteQueues(queuePrefix));
    const counterparties = (defaults.counterparties as Record<string, unknown>[]).map((c) => (c.id === 'demo-employer' ? { ...c, mail: { addresses: [EMPLOYER] } } : c));
    const configFile = await writeConfigFile(dataDir, testSettings(dataDir, {
      ...(database ? { databaseUrl: database.url } : {}),
      queuePrefix,
      counterparties,
      // A killed worker's jobs are taken up again within seconds, not after the default 15 s lock.
      workers: { backoffMs: 50, attempts: 12, reconcileEveryMs: 500, reconcileAfterMs: 1500, lockDurationMs: 2000, stalledIntervalMs: 1000 },
      mail: {
        smtp: { host: sink.host, port: sink.port, secure: false, from: GATEWAY, timeoutMs: 5000 },
        imap: {
          host: dovecot.host, port: dovecot.port, secure: false, user: dovecot.user, password: dovecot.password,
          processedMailbox: 'Processed', asideMailbox: 'Set aside', pollIntervalMs: 300, idle: true, authservId: RECEIVING_SERVER,
        },
      },
    }));
    await writeFile(join(dataDir, '.demo-sample-dropped'), ''); // no sample document among the test's

    /** The ledger, opened while no gateway runs (the embedded database serves one process). */
    const withLedger = async <T>(work: (db: Database) => Promise<T>): Promise<T> => {
      const db = database ? openPostgresDatabase({ url: database.url, max: 2 }) : await openPgliteDatabase(join(dataDir, 'pglite'));
      try {
        return await work(db);
      } finally {
        await db.close();
      }
    };
    const recordedExternalIds = (db: Database) =>
      db.query<{ external_id: string }>(`SELECT external_id FROM messages WHERE external_id LIKE '<crash-${tag}-%'`).then((r) => r.rows.map((row) => row.external_id));

    const imap = new ImapFlow({ host: dovecot.host, port: dovecot.port, secure: false, auth: { user: dovecot.user, pass: dovecot.password }, logger: false });
    imap.on('error', () => undefined);
    await imap.connect();
    cleanups.push(() => imap.logout().catch(() => undefined));
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    cleanups.push(() => redis.quit().catch(() => undefined));
    const events = `${queuePrefix}:validate:events`;

    const startGateway = async (): Promise<{ gateway: GatewayProcess; after: string }> => {
      // Events from here on are this gateway's.
      const [last] = await redis.xrevrange(events, '+', '-', 'COUNT', 1);
      const gateway = runCli(['start', '--config', configFile], { LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
      gateways.push(gateway);
      return { gateway, after: last?.[0] ?? '0-0' };
    };
    /** Waits until the gateway adds a validation job (intake recorded documents); false when few mails are left to take. */
    const nextRecorded = async (gateway: GatewayProcess, after: string): Promise<boolean> => {
      const deadline = Date.now() + START_MS;
      let id = after;
      for (;;) {
        assert.ok(gateway.child.exitCode === null && Date.now() < deadline, `no document recorded:\n${gateway.output().slice(-3000)}`);
        const reply = (await redis.xread('BLOCK', 500, 'STREAMS', events, id)) as [string, [string, string[]][]][] | null;
        for (const [entryId, fields] of reply?.[0]?.[1] ?? []) {
          id = entryId;
          if (fields[0] === 'event' && fields[1] === 'added') return true;
        }
        if (!reply && (await messageIdsIn(imap, 'INBOX')).length <= 4) return false;
      }
    };

    for (const mail of batch) await imap.append('INBOX', composeMail({ from: EMPLOYER, messageId: mail.messageId, subject: `Fees ${mail.messageId}`, attachments: mail.attachments }));
    const started = Date.now();

    let kills = 0;
    /** Kills after which a mail whose documents were recorded was still in the INBOX: the window of this test. */
    let caught = 0;
    let { gateway, after } = await startGateway();
    while (kills < MAX_KILLS && caught === 0) {
      if (!(await nextRecorded(gateway, after))) break;
      gateway.child.kill('SIGKILL');
      assert.equal(await gateway.exited, 'SIGKILL');
      kills += 1;
      const inbox = new Set(await messageIdsIn(imap, 'INBOX'));
      const recorded = await withLedger(recordedExternalIds);
      if (recorded.some((id) => inbox.has(id.slice(0, id.indexOf('>') + 1)))) caught += 1;
      ({ gateway, after } = await startGateway());
    }
    assert.ok(caught > 0, `a kill must leave a recorded mail in the INBOX (${kills} kills)`);

    await waitFor(async () => (await messageIdsIn(imap, 'INBOX')).length === 0, 'the INBOX to empty', START_MS);
    const ids = new Set(batch.map((m) => m.messageId));
    const replies = () => sink.mails.filter((m) => ids.has(m.parsed.inReplyTo ?? ''));
    const answers = () => new Set(replies().map((m) => m.parsed.messageId)).size;
    await waitFor(() => answers() >= documents.length, 'an answer to every document', START_MS);
    await sleep(1500); // an answer a restart gave wrongly would be delivered by now
    gateway.child.kill('SIGTERM');
    await gateway.exited;
    // The mails the restarts read again, as the gateway logged them.
    const readAgain = gateways.flatMap((g) => g.output().split('\n')).filter((line) => line.includes('"recordedBefore"')).length;
    process.stdout.write(`# ${kind}: ${MAILS} mails, ${documents.length} documents: ${kills} kills, ${caught} leaving a recorded mail in the INBOX, ${readAgain} mails read again; ${replies().length} replies, ${answers()} distinct; ${Date.now() - started} ms\n`);

    const processed = await messageIdsIn(imap, 'Processed');
    assert.deepEqual([...processed].sort(), [...ids].sort(), 'every mail in Processed, once');

    const byId = (a: { external_id: string }, b: { external_id: string }) => (a.external_id < b.external_id ? -1 : 1);
    const { messages, ledger } = await withLedger(async (db) => ({
      messages: (await db.query<{ external_id: string; status: string }>(`SELECT external_id, status FROM messages WHERE external_id LIKE '<crash-${tag}-%'`)).rows.sort(byId),
      ledger: (await db.query<{ n: number; total: string }>(
        `SELECT count(*)::int AS n, sum(f.value)::text AS total FROM insurance_fees f JOIN messages m ON m.id = f.message_id WHERE m.external_id LIKE '<crash-${tag}-%'`,
      )).rows[0]!,
    }));
    assert.deepEqual(messages, documents.map(({ mail, attachment }) => ({ external_id: `${mail.messageId}/${attachment.name}`, status: 'applied' })).sort(byId), 'one message per document, applied');
    const expectedTotal = batch.flatMap((m) => m.values).reduce((sum, value) => sum + value, 0);
    assert.deepEqual({ n: ledger.n, total: ledger.total }, { n: documents.length, total: (expectedTotal / 10_000).toFixed(4) }, 'the ledger took each document once');

    // One answer per document, its own response; an identical re-send (a kill between the SMTP server taking it and the delivery being recorded) is the same mail.
    for (const { mail, attachment } of documents) {
      const base = attachment.name.replace(/\.xml$/, '');
      const its = replies().filter((m) => m.parsed.inReplyTo === mail.messageId && (m.parsed.attachments[0]?.filename ?? '').startsWith(`${base}.`));
      assert.equal(new Set(its.map((m) => m.parsed.messageId)).size, 1, `${mail.messageId}/${attachment.name}: one answer (${its.map((m) => m.parsed.attachments[0]?.filename).join(', ')})`);
      const bodies = new Set(its.map((m) => m.parsed.attachments[0]?.content.toString('utf8')));
      assert.equal(bodies.size, 1, `${attachment.name}: a re-sent answer is the same answer`);
      const [body] = bodies;
      assert.match(body ?? '', /^<\?xml[^>]*>\s*<ChangeFeeResponse /, `${attachment.name}: answered with its ChangeFeeResponse`);
      assert.match(body ?? '', /<Status>Accepted<\/Status>/);
    }
    assert.equal(answers(), documents.length, 'no other answers');
    assert.ok(replies().every((m) => !/DUPLICATE_DOCUMENT|MessageRejected/.test(m.parsed.attachments[0]?.content.toString('utf8') ?? '')), 'no document answered as a duplicate');
  } finally {
    for (const gateway of gateways) {
      if (gateway.child.exitCode === null && gateway.child.signalCode === null) {
        gateway.child.kill('SIGKILL');
        await gateway.exited;
      }
    }
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

test.each<LedgerKind>(['PostgreSQL', 'the embedded database'])(
  `${MAILS} mails survive a SIGKILLed gateway mid-batch on %s: each document applied once and answered once, none of them as a duplicate`,
  (kind) => crashRun(kind),
  900_000,
);
