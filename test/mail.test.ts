/**
 * The mailbox channel end to end on real servers: a private Dovecot (IMAP) holds the
 * gateway's mailbox, a real SMTP server (smtp-server) takes the replies, and the
 * gateway runs on the real PostgreSQL and Redis. Mail is put into the mailbox with
 * IMAP APPEND, as a mail server delivering it would.
 */
import { describe, test, beforeAll, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import { planMail, readParsedMail } from '../src/channels/mail/mail-attachments.ts';
import { startTestGateway, testSettings, waitFor, type TestGateway } from './support/harness.ts';
import { startDovecot, type DovecotServer } from './support/dovecot.ts';
import { startSmtpSink, type SmtpSink, type SinkMail } from './support/smtp-sink.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';
import { composeMail, fees, GATEWAY, RECEIVING_SERVER, type Attachment } from './support/mails.ts';
import { runCliToEnd, writeConfigFile } from './support/processes.ts';

const EMPLOYER = 'HR@Employer.example';
const MAX_MAIL_BYTES = 256 * 1024;

describe('the mailbox channel', () => {
  let dovecot: DovecotServer;
  let sink: SmtpSink;
  let gateway: TestGateway;
  let imap: ImapFlow;

  beforeAll(async () => {
    dovecot = await startDovecot();
    sink = await startSmtpSink();
    const defaults = testSettings('unused');
    const counterparties = (defaults.counterparties as Record<string, unknown>[]).map((c) =>
      c.id === 'demo-employer' ? { ...c, mail: { addresses: ['hr@employer.example', 'payroll@employer.example'] } } : c,
    );
    gateway = await startTestGateway({
      roles: ['api', 'worker', 'watch'],
      settings: {
        counterparties,
        workers: { backoffMs: 50, attempts: 12, reconcileEveryMs: 500, reconcileAfterMs: 2000 },
        mail: {
          smtp: { host: sink.host, port: sink.port, secure: false, from: GATEWAY, timeoutMs: 5000 },
          imap: {
            host: dovecot.host, port: dovecot.port, secure: false, user: dovecot.user, password: dovecot.password,
            processedMailbox: 'Processed', asideMailbox: 'Set aside', pollIntervalMs: 300, idle: true,
            authservId: RECEIVING_SERVER, maxMailBytes: MAX_MAIL_BYTES,
          },
        },
      },
    });
    imap = await connectImap();
  });

  afterAll(async () => {
    await imap?.logout().catch(() => undefined);
    await gateway?.destroy();
    await sink?.close();
    await dovecot?.destroy();
  });

  async function connectImap(): Promise<ImapFlow> {
    const client = new ImapFlow({ host: dovecot.host, port: dovecot.port, secure: false, auth: { user: dovecot.user, pass: dovecot.password }, logger: false });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  }

  /** The test's own IMAP connection, reopened after the server was restarted. */
  async function client(): Promise<ImapFlow> {
    if (!imap.usable) imap = await waitFor(() => connectImap().catch(() => undefined), 'the test IMAP connection');
    return imap;
  }

  async function deliver(mail: string): Promise<void> {
    const appended = await (await client()).append('INBOX', mail);
    assert.ok(appended, 'the mail is in the INBOX');
  }

  /** Message-IDs and flags of the mail in a folder. */
  async function folder(path: string): Promise<{ messageId: string; flags: string[] }[]> {
    const c = await client();
    const exists = (await c.list()).some((m) => m.path === path);
    if (!exists) return [];
    const lock = await c.getMailboxLock(path);
    try {
      // The folder may have been selected already, its count as it was then: ask the server for news first.
      await c.noop();
      const found = await c.fetchAll('1:*', { envelope: true, flags: true });
      return found.map((m) => ({ messageId: m.envelope?.messageId ?? '', flags: [...(m.flags ?? [])] }));
    } catch {
      return []; // an empty folder
    } finally {
      lock.release();
    }
  }

  const query = async <T>(sql: string, params: unknown[] = []) => (await gateway.deps.db.query<T>(sql, params)).rows;
  const repliesTo = (messageId: string): SinkMail[] => sink.mails.filter((m) => m.parsed.inReplyTo === messageId);
  const statusOf = async (externalId: string) => (await query<{ status: string }>('SELECT status FROM messages WHERE external_id = $1 ORDER BY seq', [externalId])).map((r) => r.status);

  test('a ChangeFee attachment is applied, the mail moved to Processed and the response mailed back as a reply', async () => {
    const messageId = '<fees-1.20261122@employer.example>';
    await deliver(composeMail({ from: EMPLOYER, messageId, subject: 'Fees November', references: '<earlier@employer.example>', attachments: [fees('MAIL-FEES-1')] }));

    const [reply] = await waitFor(() => (repliesTo(messageId).length ? repliesTo(messageId) : undefined), 'the reply mail');
    assert.ok(reply);
    assert.deepEqual(await statusOf(`${messageId}/mail-fees-1.xml`), ['applied']);
    const rows = await query<{ value: string }>(
      `SELECT f.value::text FROM insurance_fees f JOIN messages m ON m.id = f.message_id WHERE m.external_id = $1`, [`${messageId}/mail-fees-1.xml`],
    );
    assert.deepEqual(rows, [{ value: '0.2500' }]);

    assert.deepEqual(reply.envelopeTo.map((a) => a.toLowerCase()), [EMPLOYER.toLowerCase()]);
    assert.equal(reply.parsed.subject, 'Re: Fees November');
    assert.deepEqual(reply.parsed.references, ['<earlier@employer.example>', messageId]);
    assert.match(reply.parsed.messageId ?? '', /^<[0-9A-Z]{26}\.ChangeFeeResponse@depot-gateway>$/);
    assert.equal(reply.parsed.attachments.length, 1);
    const attachment = reply.parsed.attachments[0];
    assert.match(attachment?.filename ?? '', /^mail-fees-1\.[0-9A-Z]{26}\.ChangeFeeResponse\.xml$/);
    const body = attachment?.content.toString('utf8') ?? '';
    assert.match(body, /<InResponseTo>MAIL-FEES-1<\/InResponseTo>/);
    assert.match(body, /<Status>Accepted<\/Status>/);

    const processed = await waitFor(async () => (await folder('Processed')).find((m) => m.messageId === messageId), 'the mail in Processed');
    assert.ok(processed.flags.includes('\\Seen'));
    assert.deepEqual((await folder('INBOX')).filter((m) => m.messageId === messageId), []);
    const [delivery] = await query<{ channel: string; outcome: string; target: string }>(
      `SELECT d.channel, d.outcome, d.target FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.external_id = $1`, [`${messageId}/mail-fees-1.xml`],
    );
    assert.deepEqual({ channel: delivery?.channel, outcome: delivery?.outcome }, { channel: 'mail', outcome: 'delivered' });
    assert.match(delivery?.target ?? '', /^HR@Employer\.example </);
  });

  test('two XML attachments in one mail are two messages, each answered', async () => {
    const messageId = '<two-docs@employer.example>';
    const salary: Attachment = {
      name: 'salaries.xml', contentType: 'text/xml',
      body: salaryAdjustment({ messageId: 'MAIL-SAL-1' }, [{ pin: PERSONS.bertil, date: '2026-12-01', salary: '612000' }]),
    };
    const pdf: Attachment = { name: 'cover-letter.pdf', contentType: 'application/pdf', body: '%PDF-1.4 not a document for us' };
    await deliver(composeMail({ from: 'payroll@employer.example', messageId, subject: 'Two files', attachments: [fees('MAIL-FEES-2', 'INS-100002', '0.30', PERSONS.bertil), pdf, salary] }));

    await waitFor(() => repliesTo(messageId).length === 2, 'two replies');
    assert.deepEqual(await statusOf(`${messageId}/mail-fees-2.xml`), ['applied']);
    assert.deepEqual(await statusOf(`${messageId}/salaries.xml`), ['applied']);
    assert.deepEqual((await query('SELECT 1 FROM messages WHERE external_id LIKE $1', [`${messageId}/%`])).length, 2, 'the PDF is not a document');
    const names = repliesTo(messageId).map((m) => m.parsed.attachments[0]?.filename ?? '').sort();
    assert.match(names[0] ?? '', /ChangeFeeResponse\.xml$/);
    assert.match(names[1] ?? '', /SalaryAdjustmentResponse\.xml$/);
    assert.ok(repliesTo(messageId).every((m) => m.envelopeTo[0] === 'payroll@employer.example'));
    await waitFor(async () => (await folder('Processed')).some((m) => m.messageId === messageId), 'the mail in Processed');
  });

  test('mail from an unknown sender and mail without XML are set aside and recorded, nothing applied', async () => {
    const stranger = '<stranger@elsewhere.example>';
    const noXml = '<no-xml@employer.example>';
    await deliver(composeMail({ from: 'someone@elsewhere.example', messageId: stranger, subject: 'Fees', attachments: [fees('MAIL-FEES-STRANGER')] }));
    await deliver(composeMail({ from: EMPLOYER, messageId: noXml, subject: 'Forgot the file', attachments: [{ name: 'notes.txt', contentType: 'text/plain', body: 'see attached' }] }));

    const recorded = await waitFor(async () => {
      const rows = await query<{ mail_message_id: string; sender: string; reason: string; folder: string }>(
        'SELECT mail_message_id, sender, reason, folder FROM mail_set_aside WHERE mail_message_id = ANY($1) ORDER BY mail_message_id', [[stranger, noXml]],
      );
      return rows.length === 2 ? rows : undefined;
    }, 'two set-aside records');
    assert.deepEqual(recorded, [
      { mail_message_id: noXml, sender: EMPLOYER, reason: 'no-xml-attachment', folder: 'Set aside' },
      { mail_message_id: stranger, sender: 'someone@elsewhere.example', reason: 'unknown-sender', folder: 'Set aside' },
    ]);
    await waitFor(async () => {
      const aside = (await folder('Set aside')).map((m) => m.messageId);
      return aside.includes(stranger) && aside.includes(noXml);
    }, 'both mails in the aside folder');
    assert.deepEqual((await folder('INBOX')).filter((m) => [stranger, noXml].includes(m.messageId)), []);
    assert.deepEqual(await query('SELECT 1 FROM messages WHERE external_id LIKE $1 OR external_id LIKE $2', [`${stranger}/%`, `${noXml}/%`]), []);
    assert.deepEqual(repliesTo(stranger), []);

    // Staff see them: the API, and the CLI through it.
    const address = gateway.http!.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const auth = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
    const response = await fetch(`http://127.0.0.1:${port}/api/mail/set-aside`, { headers: auth });
    assert.equal(response.status, 200);
    const { mails } = (await response.json()) as { mails: { mailMessageId: string; sender: string; subject: string; reason: string; folder: string; detail: string; receivedAt: string }[] };
    const listed = mails.filter((m) => [stranger, noXml].includes(m.mailMessageId)).sort((a, b) => a.mailMessageId.localeCompare(b.mailMessageId));
    expect(listed.map(({ mailMessageId, sender, subject, reason, folder }) => ({ mailMessageId, sender, subject, reason, folder }))).toStrictEqual([
      { mailMessageId: noXml, sender: EMPLOYER, subject: 'Forgot the file', reason: 'no-xml-attachment', folder: 'Set aside' },
      { mailMessageId: stranger, sender: 'someone@elsewhere.example', subject: 'Fees', reason: 'unknown-sender', folder: 'Set aside' },
    ]);
    assert.ok(listed.every((m) => m.detail.length > 0 && !Number.isNaN(Date.parse(m.receivedAt))));
    const bad = await fetch(`http://127.0.0.1:${port}/api/mail/set-aside?limit=0`, { headers: auth });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { code: string }).code, 'REQUEST_INVALID');
    assert.equal((await fetch(`http://127.0.0.1:${port}/api/mail/set-aside`)).status, 401);

    const work = await mkdtemp(join(tmpdir(), 'dg-mail-cli-'));
    try {
      const config = await writeConfigFile(work, testSettings(join(work, 'data'), { databaseUrl: gateway.database!.url, port, logLevel: 'warn' }));
      const json = await runCliToEnd(['mail-set-aside', '--limit', '1000', '--json', '--config', config]);
      assert.equal(json.code, 0, json.stderr);
      const ids = json.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { mailMessageId: string }).mailMessageId);
      assert.ok(ids.includes(stranger) && ids.includes(noXml), ids.join(', '));
      const human = await runCliToEnd(['mail-set-aside', '--config', config]);
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /^RECEIVED +SENDER +SUBJECT +REASON +FOLDER +DETAIL\n/);
      assert.match(human.stdout, /someone@elsewhere\.example +Fees +unknown-sender +Set aside /);
      const wrong = await runCliToEnd(['mail-set-aside', '--limit', 'all', '--config', config]);
      assert.equal(wrong.code, 2);
      assert.match(wrong.stderr, /REQUEST_INVALID/);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  test('mail not authenticated for its From domain, or over the size cap, is set aside with the reason and nothing of it applied', async () => {
    const forged = '<forged@employer.example>';
    const otherServer = '<other-server@employer.example>';
    const large = '<large@employer.example>';
    // Sent from elsewhere under the employer's address: SPF passed, but for the sender's own domain.
    await deliver(composeMail({
      from: EMPLOYER, messageId: forged, subject: 'Fees', attachments: [fees('MAIL-FORGED', 'INS-100001', '0.91')],
      authenticationResults: `${RECEIVING_SERVER}; spf=pass smtp.mailfrom=x@attacker.example; dkim=none; dmarc=fail header.from=employer.example`,
    }));
    // The sender wrote its own "pass", under another server's name.
    await deliver(composeMail({
      from: EMPLOYER, messageId: otherServer, subject: 'Fees', attachments: [fees('MAIL-OTHER-SERVER', 'INS-100001', '0.92')],
      authenticationResults: `mx.attacker.example; dmarc=pass header.from=employer.example`,
    }));
    await deliver(composeMail({
      from: EMPLOYER, messageId: large, subject: 'A large file', attachments: [{ name: 'large.xml', contentType: 'application/xml', body: `<a>${'x'.repeat(MAX_MAIL_BYTES)}</a>` }],
    }));
    const recorded = await waitFor(async () => {
      const rows = await query<{ mail_message_id: string; reason: string; detail: string }>(
        'SELECT mail_message_id, reason, detail FROM mail_set_aside WHERE mail_message_id = ANY($1) ORDER BY mail_message_id', [[forged, otherServer, large]],
      );
      return rows.length === 3 ? rows : undefined;
    }, 'three set-aside records');
    assert.deepEqual(recorded.map((row) => [row.mail_message_id, row.reason]), [[forged, 'not-authenticated'], [large, 'too-large'], [otherServer, 'not-authenticated']]);
    assert.match(recorded[0]!.detail, /no DMARC, DKIM or SPF pass for employer\.example from mx\.insurer\.example \(found: spf=pass \(x@attacker\.example\), dkim=none, dmarc=fail/);
    assert.match(recorded[1]!.detail, /bytes; mail\.imap\.maxMailBytes allows 262144/);
    assert.match(recorded[2]!.detail, /no Authentication-Results from mx\.insurer\.example/);
    await waitFor(async () => {
      const aside = (await folder('Set aside')).map((m) => m.messageId);
      return [forged, otherServer, large].every((id) => aside.includes(id));
    }, 'the three mails in the aside folder');
    assert.deepEqual(await query('SELECT 1 FROM messages WHERE external_id LIKE ANY($1)', [[`${forged}/%`, `${otherServer}/%`, `${large}/%`]]), []);
    assert.deepEqual([...repliesTo(forged), ...repliesTo(otherServer), ...repliesTo(large)], []);
  });

  test('the IMAP server going away while mail is taken loses nothing and applies nothing twice', async () => {
    const count = 12;
    const ids = Array.from({ length: count }, (_, i) => `<outage-${i}@employer.example>`);
    const c = await client();
    // Appended while the watcher is busy elsewhere is fine: it takes them in UID order.
    for (const [i, id] of ids.entries()) {
      await c.append('INBOX', composeMail({ from: EMPLOYER, messageId: id, subject: `Outage ${i}`, attachments: [fees(`MAIL-OUT-${i}`, 'INS-100006', `0.${10 + i}`)] }));
    }
    await waitFor(async () => (await query('SELECT 1 FROM messages WHERE external_id LIKE $1', ['<outage-%'])).length > 0, 'the first mail taken', 15_000);
    await dovecot.kill();
    const takenBeforeOutage = (await query('SELECT 1 FROM messages WHERE external_id LIKE $1', ['<outage-%'])).length;
    assert.ok(takenBeforeOutage < count, `the server went away while mail was being taken (${takenBeforeOutage} of ${count} taken)`);
    await sleep(700);
    await dovecot.start();

    await waitFor(async () => {
      const processed = new Set((await folder('Processed')).map((m) => m.messageId));
      return ids.every((id) => processed.has(id));
    }, 'every mail in Processed', 30_000).catch(async (error: Error) => assert.fail(`${error.message}\n${await dovecot.log()}`));
    assert.deepEqual((await folder('INBOX')).filter((m) => ids.includes(m.messageId)), []);
    await waitFor(async () => (await query(`SELECT 1 FROM messages WHERE external_id LIKE '<outage-%' AND status = 'applied'`)).length === count, 'every document applied', 30_000);
    // A mail read again after the outage is the one recorded: one message each, no duplicate.
    for (const [i, id] of ids.entries()) assert.deepEqual(await statusOf(`${id}/mail-out-${i}.xml`), ['applied'], id);
    const applied = await query<{ n: string }>(
      `SELECT count(*)::text AS n FROM insurance_fees f JOIN messages m ON m.id = f.message_id WHERE m.external_id LIKE '<outage-%'`,
    );
    assert.deepEqual(applied, [{ n: String(count) }]);
  });

  /** A reply's one attachment as text, and the codes of its errors. */
  const answerOf = (reply: SinkMail | undefined) => {
    const body = reply?.parsed.attachments[0]?.content.toString('utf8') ?? '';
    return { root: /<(\w+) xmlns=/.exec(body)?.[1], codes: [...body.matchAll(/<Code>(\w+)<\/Code>/g)].map((m) => m[1]) };
  };

  test('a mail read again after its move failed is the mail recorded: no second message, and its answer, not sent yet, is sent once', async () => {
    const messageId = '<move-failed@employer.example>';
    const externalId = `${messageId}/mail-move-failed.xml`;
    // Without its folder the move after intake fails (TRYCREATE), as a gateway killed there
    // leaves the mail; the watcher reconnects, makes the folder again and reads the mail again.
    const c = await client();
    await c.mailboxOpen('INBOX'); // not the folder renamed, which the client would go on reading as Processed
    await c.mailboxRename('Processed', 'Processed before move-failed');
    sink.refusing = true; // the first answer is still waiting to be sent when the mail is read again
    try {
      await deliver(composeMail({ from: EMPLOYER, messageId, subject: 'Moved once', attachments: [fees('MAIL-MOVE-FAILED', 'INS-100001', '0.41')] }));
      await waitFor(async () => (await folder('Processed')).some((m) => m.messageId === messageId), 'the mail in Processed, made again', 30_000);
    } finally {
      sink.refusing = false;
    }
    await waitFor(() => repliesTo(messageId).length > 0, 'the reply', 30_000);
    await waitFor(async () => (await statusOf(externalId)).includes('applied'), 'the document applied');
    await sleep(700); // a second answer would be delivered by now

    assert.deepEqual(await statusOf(externalId), ['applied'], 'one message for the mail read twice');
    assert.deepEqual(repliesTo(messageId).map(answerOf), [{ root: 'ChangeFeeResponse', codes: [] }], 'one answer, the document\'s own');
    assert.deepEqual((await folder('INBOX')).filter((m) => m.messageId === messageId), []);
    const feeRows = await query<{ n: string }>('SELECT count(*)::text AS n FROM insurance_fees f JOIN messages m ON m.id = f.message_id WHERE m.external_id = $1', [externalId]);
    assert.deepEqual(feeRows, [{ n: '1' }], 'applied once');
  });

  test('a mail recorded and answered before a stop, read again, is moved without a second answer', async () => {
    const messageId = '<answered-then-stopped@employer.example>';
    const two = [fees('MAIL-STOPPED-1', 'INS-100002', '0.42', PERSONS.bertil), fees('MAIL-STOPPED-2', 'INS-100002', '0.43', PERSONS.bertil)];
    const raw = composeMail({ from: EMPLOYER, messageId, subject: 'Stopped', attachments: two });
    // What the watcher did before it was stopped: the mail planned and its attachments handed to intake.
    const plan = planMail(readParsedMail(await simpleParser(raw), Buffer.from(raw)), new Map([['hr@employer.example', 'demo-employer']]), new Date(), {
      authservId: RECEIVING_SERVER, trustedRelay: new Set(),
    });
    assert.equal(plan.kind, 'intake');
    const first = await gateway.intake.receiveMany!(plan.envelopes);
    assert.ok(first.every((outcome) => 'receipt' in outcome && outcome.receipt.status === 'received'));
    await waitFor(() => repliesTo(messageId).length === 2, 'both answers sent');

    // The mail it never moved, read after the restart.
    await deliver(raw);
    await waitFor(async () => (await folder('Processed')).some((m) => m.messageId === messageId), 'the mail in Processed');
    await sleep(700);
    assert.deepEqual(await statusOf(`${messageId}/mail-stopped-1.xml`), ['applied']);
    assert.deepEqual(await statusOf(`${messageId}/mail-stopped-2.xml`), ['applied']);
    assert.deepEqual(repliesTo(messageId).map(answerOf), [{ root: 'ChangeFeeResponse', codes: [] }, { root: 'ChangeFeeResponse', codes: [] }]);
  });

  test('a new mail reusing a Message-ID with another document is FILE_NAME_REUSED; the same document in a new mail is a duplicate', async () => {
    const messageId = '<reused@employer.example>';
    const document = fees('MAIL-REUSED', 'INS-100001', '0.44');
    await deliver(composeMail({ from: EMPLOYER, messageId, subject: 'First', attachments: [document] }));
    await waitFor(() => repliesTo(messageId).length === 1, 'the first answer');
    // Another document under the same Message-ID and file name.
    await deliver(composeMail({ from: EMPLOYER, messageId, subject: 'Second', attachments: [{ ...fees('MAIL-REUSED-OTHER', 'INS-100001', '0.45'), name: document.name }] }));
    await waitFor(() => repliesTo(messageId).length === 2, 'the second answer');
    // The first document again, in a mail of its own.
    const again = '<reused-again@employer.example>';
    await deliver(composeMail({ from: EMPLOYER, messageId: again, subject: 'Again', attachments: [document] }));
    await waitFor(() => repliesTo(again).length === 1, 'the third answer');

    const answers = repliesTo(messageId).map(answerOf);
    assert.deepEqual(answers.map((a) => a.root).sort(), ['ChangeFeeResponse', 'MessageRejected']);
    assert.deepEqual(answers.find((a) => a.root === 'MessageRejected')?.codes, ['FILE_NAME_REUSED']);
    assert.deepEqual(repliesTo(again).map(answerOf), [{ root: 'MessageRejected', codes: ['DUPLICATE_DOCUMENT'] }]);
    assert.deepEqual(await statusOf(`${messageId}/${document.name}`), ['applied', 'rejected']);
    assert.deepEqual(await statusOf(`${again}/${document.name}`), ['duplicate']);
  });

  test('a reply the SMTP server refuses at first is retried and arrives once', async () => {
    const messageId = '<refused@employer.example>';
    sink.refusing = true;
    const refusedBefore = sink.refused;
    await deliver(composeMail({ from: EMPLOYER, messageId, subject: 'Retry please', attachments: [fees('MAIL-FEES-RETRY', 'INS-100001', '0.35')] }));
    await waitFor(() => sink.refused >= refusedBefore + 2, 'two refused attempts', 30_000);
    sink.refusing = false;

    await waitFor(() => repliesTo(messageId).length > 0, 'the reply once the server accepts', 30_000);
    await sleep(500);
    assert.equal(repliesTo(messageId).length, 1, 'exactly one reply');
    const outcomes = await query<{ outcome: string }>(
      `SELECT d.outcome FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.external_id = $1 ORDER BY d.id`, [`${messageId}/mail-fees-retry.xml`],
    );
    assert.ok(outcomes.length >= 3, `attempts: ${outcomes.map((o) => o.outcome).join(', ')}`);
    assert.ok(outcomes.slice(0, -1).every((o) => o.outcome === 'failed'));
    assert.equal(outcomes.at(-1)?.outcome, 'delivered');
    assert.deepEqual(await statusOf(`${messageId}/mail-fees-retry.xml`), ['applied']);
  });
});
