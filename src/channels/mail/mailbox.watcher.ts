import { setTimeout as sleep } from 'node:timers/promises';
import { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import type { Envelope, IntakeOutcome, IntakePort } from '../envelope.ts';
import { fallbackMessageId, planMail, readParsedMail, type MailPlan, type MailTrust, type ReadMail, type SenderDirectory, type SetAsideReason } from './mail-attachments.ts';
import type { ChannelHealth } from '../channel-health.ts';
import { mailboxLease, soleProcessLeases, type ChannelLeases } from '../channel-leases.ts';
import { tlsMismatchHint } from './tls-mismatch.ts';

/**
 * Reads the gateway's mailbox over IMAP (imapflow) and hands each XML attachment to
 * intake as a document from the counterparty the sender address belongs to. It waits
 * for new mail with IDLE and also polls, and reconnects with exponential backoff when
 * the server goes away.
 *
 * Invariants:
 * - A mail leaves the mailbox only after intake has durably recorded every one of its
 *   documents: then it is flagged \Seen and moved to the processed folder. If intake
 *   fails the mail stays, and the watcher stops for this round so later mail does not
 *   overtake it; the next round offers it again.
 * - A mail is answered once, whatever stops the watcher between intake and the move (a
 *   kill, a lost connection, a move the server refused): every mail in the mailbox is
 *   taken, read or not, so such a mail is read again, and intake recognises each of its
 *   attachments (same Message-ID, file name and bytes: the envelope names the delivery)
 *   as the message it recorded, records and answers nothing new, and the mail is moved
 *   then. An attachment not recorded before the stop is recorded now, once.
 * - Mail from an unknown sender, not authenticated for its From domain, larger than
 *   `maxMailBytes` (found from its size before it is fetched), without an XML
 *   attachment or that cannot be parsed is recorded (SetAsideRecorder), logged as a
 *   warning and moved to the aside folder, never deleted.
 * - Mail is taken in the mailbox's order (UID), one at a time.
 */

/** The `mail.imap` settings. */
export interface ImapSettings {
  readonly host: string;
  readonly port: number;
  /** true: TLS from the first byte (port 993); false: STARTTLS when the server offers it. */
  readonly secure: boolean;
  readonly user: string;
  readonly password: string;
  /** The folder counterparties' mail arrives in. Default INBOX. */
  readonly mailbox: string;
  /** Where a mail goes once its documents are recorded; created when missing. */
  readonly processedMailbox: string;
  /** Where mail the gateway cannot take goes; created when missing. */
  readonly asideMailbox: string;
  /** How often the mailbox is looked at besides IDLE (the only way with `idle: false`). */
  readonly pollIntervalMs: number;
  /** Wait for new mail with IMAP IDLE. */
  readonly idle: boolean;
  /** A larger mail is set aside without being fetched. */
  readonly maxMailBytes: number;
}

/** A mail moved to the aside folder, as recorded for staff. */
export interface SetAsideMail {
  readonly mailMessageId: string;
  readonly from: string | undefined;
  readonly subject: string;
  readonly reason: SetAsideReason;
  readonly detail: string;
  /** The folder the mail was moved to. */
  readonly folder: string;
  readonly receivedAt: Date;
}

/** Keeps a durable record of each mail set aside; recording the same mail twice is harmless. */
export interface SetAsideRecorder {
  record(mail: SetAsideMail): Promise<void>;
}

export interface MailboxLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface MailboxWatcherOptions {
  readonly imap: ImapSettings;
  readonly intake: IntakePort;
  /** Sender address → counterparty id (see buildSenderDirectory). */
  readonly senders: SenderDirectory;
  /** How a From address is believed (Authentication-Results, trusted relays). */
  readonly trust: MailTrust;
  /**
   * Which process reads the mailbox (`mailboxLease`): it connects only while it holds the
   * lease, and when it loses it stops after the mail being taken and logs out, for the
   * holder to read. Default: the only process (`soleProcessLeases`).
   */
  readonly leases?: ChannelLeases | undefined;
  /** Told whether the mailbox could be reached, at each connection and each failure (staff's channel view). */
  readonly health?: ChannelHealth | undefined;
  readonly setAside: SetAsideRecorder;
  /** Source of `receivedAt`. Default `() => new Date()`. */
  readonly clock?: () => Date;
  readonly log: MailboxLog;
  /** First reconnect delay; doubles up to `reconnectMaxMs`, with jitter. Default 500. */
  readonly reconnectMinMs?: number;
  /** Default 30000. */
  readonly reconnectMaxMs?: number;
}

export class MailboxWatcher {
  readonly #options: MailboxWatcherOptions;
  readonly #clock: () => Date;
  readonly #stopping = new AbortController();
  #loop: Promise<void> | undefined;
  /** The open connection, closed at once by stop() unless a mail is being taken. */
  #client: ImapFlow | undefined;
  #taking = false;
  /** Wakes the loop when it waits for mail. */
  #wake: (() => void) | undefined;
  /** New mail was announced while the loop was busy. */
  #announced = false;
  readonly #leases: ChannelLeases;
  readonly #lease: string;
  /** Wakes the loop when it waits for the lease. */
  #leaseChanged: (() => void) | undefined;

  constructor(options: MailboxWatcherOptions) {
    this.#options = Object.freeze({ ...options, imap: Object.freeze({ ...options.imap }) });
    this.#clock = options.clock ?? (() => new Date());
    this.#leases = options.leases ?? soleProcessLeases;
    this.#lease = mailboxLease(options.imap);
    this.#leases.onChange((name, held) => {
      if (name !== this.#lease) return;
      this.#leaseChanged?.();
      // A lost lease ends the wait for mail, and with it the connection.
      if (!held) this.#wake?.();
    });
  }

  /** Starts reading the mailbox in the background; connection problems are retried, never thrown. */
  start(): void {
    if (this.#loop) throw new Error('MailboxWatcher is already started');
    this.#loop = this.#run();
  }

  /** Stops after the mail being taken, if any, and logs out. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    this.#wake?.();
    // A connect or a wait is cut short; a mail being taken is finished first.
    if (!this.#taking) this.#client?.close();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const { reconnectMinMs = 500, reconnectMaxMs = 30_000 } = this.#options;
    let delay = reconnectMinMs;
    let lastProblem: string | undefined;
    while (!this.#stopping.signal.aborted) {
      if (!this.#leases.holds(this.#lease)) {
        await this.#waitForLease();
        continue;
      }
      const client = this.#connectClient();
      try {
        await client.connect();
        delay = reconnectMinMs;
        lastProblem = undefined;
        await this.#ensureFolders(client);
        while (!this.#stopping.signal.aborted && client.usable && this.#leases.holds(this.#lease)) {
          await this.#takeAll(client);
          this.#options.health?.report({ subject: 'mailbox', channel: 'mail', state: 'up' });
          await this.#waitForMail(client);
        }
      } catch (error) {
        if (!this.#stopping.signal.aborted) {
          const problem = tlsMismatchHint(error, 'mail.imap', this.#options.imap) ?? errorText(error);
          this.#options.health?.report({ subject: 'mailbox', channel: 'mail', state: 'down', detail: problem });
          // The same failure again at every reconnect is no news: warned once, until it changes or the mailbox answers.
          if (problem !== lastProblem) this.#options.log.warn({ err: problem, host: this.#options.imap.host, retryInMs: delay }, 'mailbox connection failed; reconnecting');
          lastProblem = problem;
        }
      } finally {
        this.#client = undefined;
        await closeClient(client);
      }
      if (this.#stopping.signal.aborted) break;
      await sleep(delay * (0.75 + Math.random() / 2), undefined, { signal: this.#stopping.signal }).catch(() => undefined);
      delay = Math.min(delay * 2, reconnectMaxMs);
    }
  }

  #connectClient(): ImapFlow {
    const { imap } = this.#options;
    const client = new ImapFlow({
      host: imap.host,
      port: imap.port,
      secure: imap.secure,
      auth: { user: imap.user, pass: imap.password },
      logger: false,
      disableAutoIdle: !imap.idle,
      autoIdleDelay: 1000,
      connectionTimeout: 30_000,
      greetingTimeout: 15_000,
    });
    // Without a listener an 'error' event would end the process; the loop sees the failure itself.
    client.on('error', () => undefined);
    client.on('exists', () => {
      this.#announced = true;
      this.#wake?.();
    });
    client.on('close', () => this.#wake?.());
    this.#client = client;
    return client;
  }

  async #ensureFolders(client: ImapFlow): Promise<void> {
    const existing = new Set((await client.list()).map((mailbox) => mailbox.path));
    for (const folder of [this.#options.imap.processedMailbox, this.#options.imap.asideMailbox]) {
      if (!existing.has(folder)) await client.mailboxCreate(folder);
    }
  }

  /** Resolves when the lease changes hands, or on stop. */
  async #waitForLease(): Promise<void> {
    if (this.#stopping.signal.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.#leaseChanged = undefined;
        this.#stopping.signal.removeEventListener('abort', done);
        resolve();
      };
      this.#leaseChanged = done;
      this.#stopping.signal.addEventListener('abort', done);
    });
  }

  /** Resolves on announced mail, after the poll interval, when the connection closes, or on stop. */
  async #waitForMail(client: ImapFlow): Promise<void> {
    if (this.#announced || !client.usable || this.#stopping.signal.aborted) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#wake?.(), this.#options.imap.pollIntervalMs);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /** Takes every mail in the mailbox, oldest UID first; stops at a mail intake could not record. */
  async #takeAll(client: ImapFlow): Promise<void> {
    this.#announced = false;
    const { mailbox } = this.#options.imap;
    const lock = await client.getMailboxLock(mailbox);
    try {
      const uids = (await client.search({ all: true }, { uid: true })) || [];
      for (const uid of [...uids].sort((a, b) => a - b)) {
        if (this.#stopping.signal.aborted || !this.#leases.holds(this.#lease)) return;
        this.#taking = true;
        try {
          if (!(await this.#takeMail(client, uid))) return;
        } finally {
          this.#taking = false;
        }
      }
    } finally {
      lock.release();
    }
  }

  /** Returns false when intake failed and the mail stays for the next round. */
  async #takeMail(client: ImapFlow, uid: number): Promise<boolean> {
    const receivedAt = this.#clock();
    const { mail, plan } = await this.#fetchMail(client, uid, receivedAt);
    if (!mail) return true;
    if (plan.kind === 'aside') {
      const { asideMailbox } = this.#options.imap;
      await this.#options.setAside.record({
        mailMessageId: mail.messageId, from: mail.from, subject: mail.subject, reason: plan.reason, detail: plan.detail, folder: asideMailbox, receivedAt,
      });
      this.#options.log.warn({ mailMessageId: mail.messageId, from: mail.from, subject: mail.subject, reason: plan.reason, detail: plan.detail, folder: asideMailbox }, 'mail set aside');
      await move(client, uid, asideMailbox);
      return true;
    }
    const outcomes = await receiveAll(this.#options.intake, plan.envelopes);
    const failure = outcomes.find((outcome): outcome is { error: unknown } => 'error' in outcome);
    if (failure) {
      this.#options.log.warn({ err: errorText(failure.error), mailMessageId: mail.messageId, from: mail.from }, 'intake could not record the mail; it stays in the mailbox');
      return false;
    }
    await flagSeen(client, uid);
    await move(client, uid, this.#options.imap.processedMailbox);
    const receipts = outcomes.flatMap((outcome) => ('receipt' in outcome ? [outcome.receipt] : []));
    // Read again after a stop between intake and the move: these were recorded, and are answered, as before.
    const recordedBefore = receipts.filter((receipt) => receipt.recordedBefore).map((receipt) => receipt.messageId);
    this.#options.log.info({
      mailMessageId: mail.messageId, counterpartyId: plan.counterpartyId,
      messages: receipts.map((receipt) => `${receipt.messageId}:${receipt.status}`),
      ...(recordedBefore.length > 0 ? { recordedBefore } : {}),
    }, 'mail taken');
    return true;
  }

  /**
   * The mail and what to do with it. Its size is asked for first: one over maxMailBytes
   * is planned for the aside folder from its envelope (Message-ID, From, Subject) and
   * never fetched whole. `mail` is undefined for a UID that has no content (gone).
   */
  async #fetchMail(client: ImapFlow, uid: number, receivedAt: Date): Promise<{ mail?: ReadMail; plan: MailPlan }> {
    const { maxMailBytes } = this.#options.imap;
    const head = await client.fetchOne(String(uid), { uid: true, size: true, envelope: true }, { uid: true });
    if (!head) throw new Error(`mail UID ${uid} could not be fetched`);
    if (head.size !== undefined && head.size > maxMailBytes) {
      const mail: ReadMail = {
        messageId: head.envelope?.messageId ?? `<uid-${uid}-${head.size}@depot-gateway.invalid>`,
        from: head.envelope?.from?.[0]?.address,
        subject: head.envelope?.subject ?? '',
        references: [], attachments: [], authenticationResults: [],
      };
      return { mail, plan: { kind: 'aside', reason: 'too-large', detail: `the mail is ${head.size} bytes; mail.imap.maxMailBytes allows ${maxMailBytes}. Send large documents by SFTP.` } };
    }
    const fetched = await client.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
    if (!fetched) throw new Error(`mail UID ${uid} could not be fetched`);
    if (!fetched.source) return { plan: { kind: 'aside', reason: 'unreadable', detail: 'no content' } };
    return readMail(fetched.source, this.#options.senders, receivedAt, this.#options.trust);
  }
}

/** Parses one mail; a mail mailparser cannot read is planned for the aside folder. */
async function readMail(source: Buffer, senders: SenderDirectory, receivedAt: Date, trust: MailTrust): Promise<{ mail: ReadMail; plan: MailPlan }> {
  try {
    const mail = readParsedMail(await simpleParser(source), source);
    return { mail, plan: planMail(mail, senders, receivedAt, trust) };
  } catch (error) {
    const mail: ReadMail = { messageId: fallbackMessageId(source), from: undefined, subject: '', references: [], attachments: [], authenticationResults: [] };
    return { mail, plan: { kind: 'aside', reason: 'unreadable', detail: `the mail could not be parsed: ${errorText(error)}` } };
  }
}

async function receiveAll(intake: IntakePort, envelopes: readonly Envelope[]): Promise<IntakeOutcome[]> {
  if (envelopes.length > 1 && intake.receiveMany) return intake.receiveMany(envelopes);
  const outcomes: IntakeOutcome[] = [];
  for (const envelope of envelopes) outcomes.push(await intake.receive(envelope).then((receipt) => ({ receipt }), (error: unknown) => ({ error })));
  return outcomes;
}

async function flagSeen(client: ImapFlow, uid: number): Promise<void> {
  if (!(await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true }))) throw new Error(`could not flag mail UID ${uid} as seen`);
}

async function move(client: ImapFlow, uid: number, folder: string): Promise<void> {
  if (!(await client.messageMove(String(uid), folder, { uid: true }))) throw new Error(`could not move mail UID ${uid} to ${folder}`);
}

async function closeClient(client: ImapFlow): Promise<void> {
  if (client.usable) await client.logout().catch(() => undefined);
  client.close();
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
