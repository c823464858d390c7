import { watch, type FSWatcher, type Stats } from 'node:fs';
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { Envelope, IntakeOutcome, IntakePort } from './envelope.ts';
import { WaitingFiles, type Look } from './inbox-turn.ts';
import { counterpartySubfolder, ensureCounterpartyFolders, isTemporaryName, type FolderCounterparty } from './folder.layout.ts';
import { heldOpenForWriting } from './held-open-for-writing.ts';
import { folderLease, soleProcessLeases, type ChannelLeases } from './channel-leases.ts';
import { EDGE_BYTES, rootElementClosed } from './root-element-closed.ts';

/**
 * Takes the files counterparties drop into their `inbox/` folder (through an SFTP
 * server such as OpenSSH or SFTPGo writing to local disk) and hands them to intake.
 *
 * Invariants:
 * - Nothing leaves the inbox before intake has durably recorded it: the file is moved
 *   to archive/ (or to its set-aside place in rejected/) only after intake answered.
 *   If intake fails, the file stays and the periodic rescan offers it again.
 * - A file is answered once: envelopes are marked `inboxFile` and each move is
 *   reported to intake, so a recorded file found again (a stop before its move, or a
 *   move that failed) is moved without a second message or answer. A file that cannot
 *   be moved is reported once and tried again at every rescan.
 * - Temporary names (see `isTemporaryName`) are never taken, and a file is taken only
 *   once its size and mtime have been unchanged for `stableMs` and its document ends
 *   where its root element closes (`rootElementClosed`, on its first and last few KB).
 *   A file whose document ends before that is still being written — an SFTP client on
 *   a throttled link writes bursts seconds apart, longer than any `stableMs` — and waits,
 *   read again after each change; it is taken as it is (and answered XML_MALFORMED) only
 *   once unchanged for `incompleteGraceMs`, and not while a process the gateway can see
 *   holds it open for writing. It holds back its sender's later files meanwhile, as any
 *   file still being written does.
 * - Only regular files are taken. An entry is looked at without following it (lstat)
 *   and opened with O_NOFOLLOW (and O_NONBLOCK, so a FIFO never blocks), so a symbolic
 *   link, also one swapped in after the look, is never read through: the sender of a
 *   link would have the gateway ingest any file it can read. A link, FIFO, socket,
 *   device or folder goes to rejected/ untouched (kept as it is, never opened), logged
 *   once; one that cannot be moved stays, logged once while it does.
 * - The same file is never with intake twice at once; at most `maxInFlight` files are
 *   with intake, shared among the counterparties that have files waiting.
 * - Each counterparty's files reach intake in arrival order, oldest (mtime, then name)
 *   first, in turns: a turn is every complete file older than every file of that
 *   counterparty still being written, handed to intake together (one transaction), and
 *   the next turn begins when it is done. Intake numbers documents in the order it
 *   records them, and documents for the same agreement are applied in that order, so an
 *   employer that drops a purchase and then a billing stop for the new insurance gets
 *   them applied in that order.
 * - A file its sender was still writing when it was taken (an upload that stalled past
 *   the grace, or one whose document looked complete) is noticed: each taken file is
 *   looked at again at the next rescans, for GROWTH_WATCH_RESCANS of them, and one that
 *   grew after it was read is logged once and noted as a `grew_after_taken` event on its
 *   message for staff (the document recorded is the part read, usually answered
 *   XML_MALFORMED; the whole file sent again under its name is taken as new).
 * - A move out of the inbox whose record failed (the database away) is recorded again at
 *   every rescan until it is; every rescan, and the start, also forgets the recorded
 *   files that have left the inbox (gone from it, and in no turn). A file offered again
 *   that intake takes for a recorded one whose file is already in the archive under that
 *   message (its move's record was lost to a stop) is not that file: it is never moved
 *   onto the archived one's path; the stale record goes and the file is offered again,
 *   and answered as the re-send it is.
 * - A file larger than `maxDocumentBytes` is never read into memory. Intake reads it
 *   through the descriptor the watcher opened (`/proc/self/fd/<n>` where the system
 *   has it), so it reads the file that was checked, not whatever the name holds later.
 *
 * - An inbox is read only while this process holds its lease (`folderLease`): of several
 *   watchers of one inbox (several hosts on a shared file system) one takes its files,
 *   in their order, and the others stand by. A watcher that takes the lease lists the
 *   inbox at once; one that loses it starts no further turn there (a recorded file the
 *   holder had not moved yet is moved by the next holder, without a second answer).
 *
 * How files are noticed: each inbox is watched with the operating system's own change
 * notification (`fs.watch`: inotify on Linux), which names the file that changed; the
 * inbox is listed once at start and again every `rescanEveryMs`, which covers files
 * whose intake failed and any notification the system dropped or cannot give (a
 * network file system). A file is only ever looked at by name: the folder is never
 * listed per change, so a full inbox costs no more per file than an empty one.
 *
 * How files are looked at: the names reported in one turn of the event loop are looked
 * at (lstat) together, and each file again when it could first be stable — every
 * `pollIntervalMs` while it is still changing — so a complete file costs two looks. The
 * looks, reads and moves are synchronous calls made in batches: for the small files of
 * a local inbox they cost far less than a thread-pool round trip each.
 */

export interface FolderChannelLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface FolderChannelOptions {
  readonly counterparties: readonly FolderCounterparty[];
  readonly intake: IntakePort;
  /** Files larger than this are handed over as `{ path, setAsidePath }`, never read. */
  readonly maxDocumentBytes: number;
  /** A file is taken once its size and mtime have been unchanged this long. */
  readonly stableMs: number;
  /**
   * A file whose document ends before its root element closes is taken (as it is) only
   * once unchanged this long, and not while a process seen holds it open for writing.
   * Default 120000.
   */
  readonly incompleteGraceMs?: number;
  /** How often a file seen changing (still being written) is looked at again; an unchanged one is looked at when it could be stable. */
  readonly pollIntervalMs: number;
  /** Files with intake at the same time. Default 64. */
  readonly maxInFlight?: number;
  /** How often inboxes are listed again, to retake files whose intake failed. Default 5000. */
  readonly rescanEveryMs?: number;
  /** Source of `receivedAt`. Default `() => new Date()`. */
  readonly clock?: () => Date;
  /** Default: silent. */
  readonly log?: FolderChannelLog;
  /** Which inboxes this process may read now. Default: every one (the only process). */
  readonly leases?: ChannelLeases;
}

interface Inbox {
  readonly counterparty: FolderCounterparty;
  /** The inbox folder, and the archive folder its taken files go to (under a folder a day). */
  readonly path: string;
  readonly archive: string;
  /** Names reported (by a notification or a listing) and not looked at since. */
  readonly noticed: Set<string>;
  /** Files reported and not taken yet. */
  readonly waiting: WaitingFiles;
  /** Names of the files of the current turn (with intake, or being moved). */
  readonly taking: Set<string>;
  /** Names just moved out of the inbox: the notification of that move is not a new file. */
  readonly moved: Set<string>;
  /** Entries refused (not regular files) that could not be moved to rejected/: logged once while they stay. */
  readonly refused: Set<string>;
  watcher?: FSWatcher;
}

/**
 * Files come due for their next look on this grid (milliseconds): files that could be
 * stable within a few milliseconds of each other are looked at, and go to intake,
 * together — a steady stream makes turns of some files each, not of one or two.
 */
const LOOK_EVERY_MS = 25;
const onGrid = (time: number) => Math.ceil(time / LOOK_EVERY_MS) * LOOK_EVERY_MS;

const silentLog: FolderChannelLog = { info() {}, warn() {}, error() {} };

/** How many rescans a taken file is looked at again for growth (with the default 5 s rescan: 10–15 s). */
const GROWTH_WATCH_RESCANS = 3;

export const DEFAULT_INCOMPLETE_GRACE_MS = 120_000;

/** What `#readContent` gives for a file whose document does not end yet. */
const STILL_BEING_WRITTEN = Symbol('still being written');

/** A file just taken: where it went, and how much of it was read. */
interface TakenFile {
  readonly counterpartyId: string;
  readonly messageId: string;
  readonly name: string;
  readonly path: string;
  readonly bytesRead: number;
  rescansLeft: number;
}

export class FolderInboxWatcher {
  readonly #options: Required<FolderChannelOptions>;
  readonly #inboxes: Inbox[];
  /** Files with intake now, in every inbox. */
  #inFlight = 0;
  readonly #turns = new Set<Promise<void>>();
  #lookScheduled = false;
  #lookTimer: NodeJS.Timeout | undefined;
  #lookTimerAt = Infinity;
  #rescanTimer: NodeJS.Timeout | undefined;
  /** Files taken lately, looked at again at the next rescans in case their sender was still writing them. */
  readonly #recentlyTaken: TakenFile[] = [];
  /** Messages whose file left the inbox, not yet recorded (the record failed): recorded at the next rescans. */
  readonly #movesToRecord = new Set<string>();
  /** A rescan's forgetting of files that left the inbox, while under way; whether the last one failed (logged once). */
  #forgetting: Promise<void> | undefined;
  #forgetFailed = false;
  #idleWaiters: Array<() => void> = [];
  #state: 'new' | 'started' | 'stopped' = 'new';

  constructor(options: FolderChannelOptions) {
    this.#options = Object.freeze({
      ...options,
      counterparties: Object.freeze(options.counterparties.map((c) => Object.freeze({ ...c }))),
      maxInFlight: options.maxInFlight ?? 256,
      incompleteGraceMs: options.incompleteGraceMs ?? DEFAULT_INCOMPLETE_GRACE_MS,
      rescanEveryMs: options.rescanEveryMs ?? 5000,
      clock: options.clock ?? (() => new Date()),
      log: options.log ?? silentLog,
      leases: options.leases ?? soleProcessLeases,
    });
    if (!(this.#options.maxInFlight >= 1)) throw new RangeError('maxInFlight must be at least 1');
    if (!(this.#options.rescanEveryMs > 0)) throw new RangeError('rescanEveryMs must be positive');
    if (!(this.#options.incompleteGraceMs >= 0)) throw new RangeError('incompleteGraceMs must not be negative');
    this.#inboxes = this.#options.counterparties.map((counterparty) => ({
      counterparty, path: counterpartySubfolder(counterparty.folder, 'inbox'), archive: counterpartySubfolder(counterparty.folder, 'archive'), noticed: new Set(), waiting: new WaitingFiles(), taking: new Set(), moved: new Set(), refused: new Set(),
    }));
  }

  /** Creates missing folders, takes the files already waiting and watches for new ones. */
  async start(): Promise<void> {
    if (this.#state !== 'new') throw new Error(`FolderInboxWatcher cannot start: it is ${this.#state}`);
    this.#state = 'started';
    this.#options.leases.onChange((name, held) => this.#leaseChanged(name, held));
    for (const inbox of this.#inboxes) {
      await ensureCounterpartyFolders(inbox.counterparty.folder);
      // Watching before listing: a file arriving in between is reported twice, never missed.
      this.#watch(inbox);
    }
    // Every file found at start is looked at before any is taken, so they go in age order.
    this.#rescan();
    this.#look();
    this.#forgetFilesThatLeft();
    this.#scheduleRescan();
  }

  /** Stops watching and waits for the files already with intake; the others stay in the inbox. */
  async stop(): Promise<void> {
    this.#state = 'stopped';
    clearTimeout(this.#rescanTimer);
    clearTimeout(this.#lookTimer);
    for (const inbox of this.#inboxes) {
      inbox.watcher?.close();
      inbox.watcher = undefined;
      inbox.noticed.clear();
      inbox.waiting.clear();
    }
    await Promise.all([...this.#turns, this.#forgetting]);
    this.#notifyIfIdle();
  }

  /** Resolves when every file seen so far has been handed over and moved (or found gone). */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Notes every file the system reports as created, renamed into or changed in the inbox. */
  #watch(inbox: Inbox): void {
    const { counterparty } = inbox;
    let watcher: FSWatcher;
    try {
      watcher = watch(inbox.path, { persistent: false }, (_event, name) => {
        if (typeof name === 'string' && name !== '') this.#notice(inbox, name);
      });
    } catch (error) {
      this.#options.log.error({ err: error, counterpartyId: counterparty.id, inbox: inbox.path }, 'cannot watch the inbox; it is listed at every rescan until it can');
      return;
    }
    watcher.on('error', (error) => {
      this.#options.log.error({ err: error, counterpartyId: counterparty.id, inbox: inbox.path }, 'inbox watch failed; it is listed at every rescan until it can be watched again');
      watcher.close();
      if (inbox.watcher === watcher) inbox.watcher = undefined;
    });
    inbox.watcher = watcher;
  }

  #notice(inbox: Inbox, name: string): void {
    if (this.#state !== 'started' || !this.#reads(inbox) || isTemporaryName(name) || inbox.taking.has(name) || inbox.moved.delete(name)) return;
    // A file changed after its last look is looked at again now, even one found complete.
    if (!inbox.waiting.changed(name)) inbox.noticed.add(name);
    if (this.#lookScheduled) return;
    this.#lookScheduled = true;
    // The names reported in this turn of the event loop are looked at together.
    setImmediate(() => this.#look());
  }

  /**
   * Looks at the files just reported and at those due for another look, then starts
   * the turns that may go, and sets the timer for the next file due.
   */
  #look(): void {
    this.#lookScheduled = false;
    if (this.#state !== 'started') return;
    const { stableMs, pollIntervalMs } = this.#options;
    const now = Date.now();
    let nextDue = Infinity;
    for (const inbox of this.#inboxes) {
      for (const name of inbox.noticed) inbox.waiting.add(name, now);
      inbox.noticed.clear();
      for (const look of inbox.waiting.dueBy(now)) {
        const stats = statOf(pathIn(inbox.path, look.name), inbox, this.#options.log);
        // Gone (taken, or removed by its sender), not a file, or not readable (the rescan tries again).
        if (stats === undefined || !stats.isFile()) {
          if (stats !== undefined) this.#refuse(inbox, look.name, kindOf(stats));
          inbox.waiting.remove(look);
          continue;
        }
        inbox.refused.delete(look.name);
        const changed = look.size >= 0 && (stats.size !== look.size || stats.mtimeMs !== look.mtimeMs);
        if (changed) look.unchangedSince = now;
        look.size = stats.size;
        look.mtimeMs = stats.mtimeMs;
        // Stable: the mtime is stableMs old, or size and mtime were seen unchanged that long
        // (which also copes with an mtime in the future).
        const quietMs = Math.max(now - stats.mtimeMs, now - look.unchangedSince);
        look.dueAt =
          quietMs < stableMs ? onGrid(now + (changed ? Math.min(pollIntervalMs, stableMs - quietMs) : stableMs - quietMs))
          : look.incompleteAt === undefined ? 0
          : this.#incompleteDueAt(inbox, look, quietMs, now);
        inbox.waiting.looked(look);
      }
      nextDue = Math.min(nextDue, inbox.waiting.nextDue());
    }
    this.#startTurns();
    this.#lookAgainAt(nextDue);
    this.#notifyIfIdle();
  }

  /**
   * When a stable file whose document was found not to end yet goes on: at once (0) when
   * it was written to since (it is read again), or taken as it is once unchanged past the
   * grace with no writer seen; else looked at again when the grace runs out, or at the
   * next rescan's time for a file system that sends no notifications.
   */
  #incompleteDueAt(inbox: Inbox, look: Look, quietMs: number, now: number): number {
    const { incompleteGraceMs, rescanEveryMs } = this.#options;
    const verdict = look.incompleteAt;
    if (verdict === undefined || verdict.size !== look.size || verdict.mtimeMs !== look.mtimeMs) {
      look.incompleteAt = undefined;
      return 0;
    }
    const graceLeft = incompleteGraceMs - quietMs;
    if (graceLeft > 0) return onGrid(now + Math.min(graceLeft, rescanEveryMs));
    const path = pathIn(inbox.path, look.name);
    if (heldOpenForWriting(path)) return onGrid(now + rescanEveryMs);
    this.#options.log.warn(
      { counterpartyId: inbox.counterparty.id, path, size: look.size, unchangedForMs: quietMs },
      'inbox file still ends before its document does, unchanged past folders.incompleteGraceMs: taken as it is',
    );
    look.takeAsItIs = true;
    return 0;
  }

  #lookAgainAt(at: number): void {
    if (at === Infinity || at >= this.#lookTimerAt) return;
    clearTimeout(this.#lookTimer);
    this.#lookTimerAt = at;
    this.#lookTimer = setTimeout(() => {
      this.#lookTimerAt = Infinity;
      this.#look();
    }, Math.max(0, at - Date.now()));
  }

  /** Whether this process holds the inbox's lease, and so reads it. */
  #reads(inbox: Inbox): boolean {
    return this.#options.leases.holds(folderLease(inbox.counterparty.id));
  }

  /** An inbox whose lease was taken is listed at once; one whose lease was lost is no longer looked at (a turn under way ends). */
  #leaseChanged(name: string, held: boolean): void {
    const inbox = this.#inboxes.find((candidate) => folderLease(candidate.counterparty.id) === name);
    if (!inbox || this.#state !== 'started') return;
    if (held) {
      this.#rescan();
      this.#look();
      this.#forgetFilesThatLeft();
      return;
    }
    inbox.noticed.clear();
    inbox.waiting.clear();
    this.#notifyIfIdle();
  }

  /** Starts a turn for every counterparty without one whose oldest files may go, sharing the free places. */
  #startTurns(): void {
    const ready = this.#inboxes.filter((inbox) => inbox.taking.size === 0 && inbox.waiting.size > 0 && this.#reads(inbox));
    for (const [index, inbox] of ready.entries()) {
      const free = this.#options.maxInFlight - this.#inFlight;
      if (free <= 0) return;
      const share = Math.max(1, Math.floor(free / (ready.length - index)));
      const turn = inbox.waiting.takeTurn(share);
      if (turn.length === 0) continue;
      for (const look of turn) inbox.taking.add(look.name);
      this.#inFlight += turn.length;
      const running: Promise<void> = this.#take(inbox, turn)
        .catch((error: unknown) => this.#options.log.error({ err: error, counterpartyId: inbox.counterparty.id }, 'taking inbox files failed; left in the inbox'))
        .finally(() => {
          this.#turns.delete(running);
          // The turn's files still its own (those put back or offered again left it already).
          this.#inFlight -= inbox.taking.size;
          inbox.taking.clear();
          this.#startTurns();
          this.#notifyIfIdle();
        });
      this.#turns.add(running);
    }
  }

  /** One turn: the files read, handed to intake together, and each moved out of the inbox once recorded. */
  async #take(inbox: Inbox, turn: readonly Look[]): Promise<void> {
    // Descriptors of the large files, which intake reads through them: closed once the turn is done.
    const held: number[] = [];
    try {
      await this.#takeHolding(inbox, turn, held);
    } finally {
      for (const fd of held) closeSync(fd);
    }
  }

  async #takeHolding(inbox: Inbox, turn: readonly Look[], held: number[]): Promise<void> {
    const { counterparty } = inbox;
    const envelopes: Envelope[] = [];
    for (const [position, look] of turn.entries()) {
      const content = this.#readContent(inbox, look, held);
      if (content === undefined) continue; // gone since it was looked at, or not a regular file
      if (content === STILL_BEING_WRITTEN) {
        // It waits, and the turn's later files (newer) with it: they go after it, in order.
        this.#putBack(inbox, turn.slice(position));
        break;
      }
      const name = look.name;
      envelopes.push({ channel: 'folder', counterpartyId: counterparty.id, externalId: name, receivedAt: this.#options.clock(), content, metadata: { fileName: name }, inboxFile: true });
    }
    if (envelopes.length === 0) return;
    const { intake } = this.#options;
    const outcomes = await receiveAll(intake, envelopes);
    const moved: string[] = [];
    /** Files taken for a recorded file that is already archived: re-sends, offered again once that record is gone. */
    const resent: string[] = [];
    for (const [index, envelope] of envelopes.entries()) {
      const outcome = outcomes[index];
      const path = pathIn(inbox.path, envelope.externalId);
      if (!outcome || 'error' in outcome) {
        this.#options.log.warn({ err: outcome?.error, counterpartyId: counterparty.id, path }, 'intake failed; file left in the inbox for the next rescan');
        continue;
      }
      const { receipt } = outcome;
      if (receipt.recordedBefore && receipt.errorCode !== 'DOCUMENT_TOO_LARGE' && archivedAs(inbox.archive, `${receipt.messageId}-${envelope.externalId}`)) {
        // That message's file left the inbox, but the record of its move was lost (a stop
        // in between): this is the same file sent again, not that one. It is not moved onto
        // the archived file; the stale record goes, and the file is offered again.
        this.#options.log.info({ counterpartyId: counterparty.id, messageId: receipt.messageId, path }, 'inbox file was taken for one recorded before, whose file is archived: a re-send, offered again');
        moved.push(receipt.messageId);
        resent.push(envelope.externalId);
        continue;
      }
      const target =
        receipt.errorCode === 'DOCUMENT_TOO_LARGE'
          ? 'setAsidePath' in envelope.content
            ? envelope.content.setAsidePath
            : setAsidePath(counterparty, envelope.externalId, envelope.receivedAt)
          : pathIn(pathIn(inbox.archive, envelope.receivedAt.toISOString().slice(0, 10)), `${receipt.messageId}-${envelope.externalId}`);
      try {
        renameInto(path, target);
        inbox.moved.add(envelope.externalId);
        moved.push(receipt.messageId);
        if ('bytes' in envelope.content) {
          this.#recentlyTaken.push({ counterpartyId: counterparty.id, messageId: receipt.messageId, name: envelope.externalId, path: target, bytesRead: envelope.content.bytes.byteLength, rescansLeft: GROWTH_WATCH_RESCANS });
        }
      } catch (error) {
        // Removed by its sender meanwhile: it has left the inbox all the same.
        if (!existsSync(path)) {
          moved.push(receipt.messageId);
          continue;
        }
        // Left to the rescan, which offers it again: intake knows the file and answers nothing new.
        await this.#reportNotMoved(receipt.messageId, error, { counterpartyId: counterparty.id, path, target });
        continue;
      }
      this.#options.log.info({ counterpartyId: counterparty.id, messageId: receipt.messageId, status: receipt.status, recordedBefore: receipt.recordedBefore, target }, 'inbox file taken');
    }
    // Until this is recorded, the same file sent again is taken for this one, and found archived.
    if (await this.#recordMoves(moved, counterparty.id)) this.#offerAgain(inbox, resent);
  }

  /**
   * Records that these messages' files have left the inbox. When that fails (the database
   * away) they are recorded at the next rescans, until it works; false then.
   */
  async #recordMoves(messageIds: readonly string[], counterpartyId: string): Promise<boolean> {
    const { intake, log } = this.#options;
    if (messageIds.length === 0 || !intake.inboxFilesMoved) return true;
    try {
      await intake.inboxFilesMoved(messageIds);
      return true;
    } catch (error) {
      for (const id of messageIds) this.#movesToRecord.add(id);
      log.warn({ err: error, counterpartyId, messageIds }, 'moved inbox files, but could not record it; recorded at the next rescans');
      return false;
    }
  }

  /**
   * At start and every rescan: records the moves whose record failed, and forgets the
   * recorded files that have left the inbox — no longer in it, and in no turn here — of
   * which a stop lost the record. A file's record left behind would have the same file
   * sent again taken for it.
   */
  #forgetFilesThatLeft(): void {
    if (this.#forgetting || !this.#options.intake.inboxFilesMoved) return;
    this.#forgetting = this.#forget().finally(() => {
      this.#forgetting = undefined;
    });
  }

  async #forget(): Promise<void> {
    const { intake, log } = this.#options;
    if (!intake.inboxFilesMoved) return;
    try {
      const left = new Set(this.#movesToRecord);
      // Only the inboxes read here: another watcher's turn may be moving the files of the others.
      const inboxes = new Map(this.#inboxes.filter((inbox) => this.#reads(inbox)).map((inbox) => [inbox.counterparty.id, inbox]));
      if (intake.unmovedInboxFiles && inboxes.size > 0) {
        for (const file of await intake.unmovedInboxFiles([...inboxes.keys()])) {
          const inbox = inboxes.get(file.counterpartyId);
          // A file of a turn is with intake or being moved: its turn records its move.
          if (!inbox || inbox.taking.has(file.fileName)) continue;
          if (lstatSync(pathIn(inbox.path, file.fileName), { throwIfNoEntry: false }) === undefined) left.add(file.messageId);
        }
      }
      if (left.size > 0) {
        await intake.inboxFilesMoved([...left]);
        for (const id of left) this.#movesToRecord.delete(id);
        log.info({ messageIds: [...left] }, 'recorded that inbox files have left the inbox');
      }
      this.#forgetFailed = false;
    } catch (error) {
      if (!this.#forgetFailed) log.warn({ err: error }, 'could not record which inbox files have left the inbox; every rescan tries again');
      this.#forgetFailed = true;
    }
  }

  /** Files of the current turn to be offered again in a turn of their own. */
  #offerAgain(inbox: Inbox, names: readonly string[]): void {
    for (const name of names) {
      if (!inbox.taking.delete(name)) continue;
      this.#inFlight -= 1;
      this.#notice(inbox, name);
    }
  }

  /**
   * The turn's files from the first whose document does not end yet: that one waits to
   * be looked at again (read again once it changed), the later ones wait complete behind
   * it. They leave the turn, so their changes are noticed again.
   */
  #putBack(inbox: Inbox, looks: readonly Look[]): void {
    for (const look of looks) {
      inbox.taking.delete(look.name);
      this.#inFlight -= 1;
      inbox.waiting.putBack(look);
    }
    const first = looks[0];
    if (first) this.#lookAgainAt(first.dueAt);
  }

  /** A recorded file that cannot be moved out of the inbox is reported once (log, and an event on its message for staff). */
  async #reportNotMoved(messageId: string, error: unknown, where: { counterpartyId: string; path: string; target: string }): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error);
    const first = await (this.#options.intake.inboxFileNotMoved?.(messageId, reason) ?? Promise.resolve(true)).catch(() => true);
    if (first) this.#options.log.error({ err: error, messageId, ...where }, 'recorded inbox file cannot be moved out of the inbox; it is not answered again, and every rescan tries the move again');
  }

  /**
   * The file's bytes, or for one over the size limit a path to its open descriptor (added
   * to `held`) and where it goes instead; undefined when it is gone or not a regular file
   * (refused); STILL_BEING_WRITTEN when its document does not end yet (noted on `look`).
   * Opened without following a link, and without waiting for a FIFO's writer.
   */
  #readContent(inbox: Inbox, look: Look, held: number[]): Envelope['content'] | undefined | typeof STILL_BEING_WRITTEN {
    const { maxDocumentBytes, clock } = this.#options;
    const path = pathIn(inbox.path, look.name);
    let fd: number;
    try {
      fd = openSync(path, OPEN_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      // O_NOFOLLOW refuses a symbolic link put in place since the look.
      if (code === 'ELOOP') {
        this.#refuse(inbox, look.name, 'symbolic link');
        return undefined;
      }
      throw error;
    }
    let keep = false;
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) {
        this.#refuse(inbox, look.name, kindOf(stats));
        return undefined;
      }
      if (stats.size <= maxDocumentBytes) {
        const bytes = readFileSync(fd);
        if (bytes.byteLength <= maxDocumentBytes) return look.takeAsItIs || documentEnds(bytes) ? { bytes } : stillBeingWritten(look, stats);
        // It grew between the look and the read: treat it as the large file it now is.
      }
      if (!look.takeAsItIs && !documentEndsIn(fd, fstatSync(fd).size)) return stillBeingWritten(look, stats);
      keep = true;
      held.push(fd);
      return { path: descriptorPath(fd) ?? path, setAsidePath: setAsidePath(inbox.counterparty, look.name, clock()) };
    } finally {
      if (!keep) closeSync(fd);
    }
  }

  /**
   * An inbox entry that is not a regular file is not taken: it goes to rejected/ as it
   * is (a link is moved, not followed; a FIFO is never read), logged once. One that
   * cannot be moved stays in the inbox, logged once while it does.
   */
  #refuse(inbox: Inbox, name: string, kind: string): void {
    if (inbox.refused.has(name)) return;
    const { counterparty } = inbox;
    const path = pathIn(inbox.path, name);
    let target: string;
    try {
      target = setAsidePath(counterparty, name, this.#options.clock());
      renameInto(path, target);
    } catch (error) {
      if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return; // removed by its sender meanwhile
      inbox.refused.add(name);
      this.#options.log.warn({ err: error, counterpartyId: counterparty.id, path, kind }, `inbox entry is a ${kind}, not a regular file: not taken, and it cannot be moved to rejected/, so it stays in the inbox`);
      return;
    }
    inbox.moved.add(name);
    this.#options.log.warn({ counterpartyId: counterparty.id, path, kind, target }, `inbox entry is a ${kind}, not a regular file: not taken, moved to rejected/`);
  }

  #scheduleRescan(): void {
    if (this.#state !== 'started') return;
    this.#rescanTimer = setTimeout(() => {
      this.#checkTakenFilesGrowth();
      this.#rescan();
      this.#look();
      this.#forgetFilesThatLeft();
      this.#scheduleRescan();
    }, this.#options.rescanEveryMs);
  }

  /**
   * Looks at the files taken lately: one larger now than when it was read was still
   * being written when it was taken (its writes went on into the archived file).
   * Reported once each — a warning, and an event on its message for staff.
   */
  #checkTakenFilesGrowth(): void {
    const watched = this.#recentlyTaken.splice(0);
    for (const taken of watched) {
      let size: number;
      try {
        size = lstatSync(taken.path).size;
      } catch {
        continue; // moved on or removed by the insurer's housekeeping: nothing to compare
      }
      if (size > taken.bytesRead) {
        this.#reportGrown(taken, size);
        continue;
      }
      if (--taken.rescansLeft > 0) this.#recentlyTaken.push(taken);
    }
  }

  #reportGrown(taken: TakenFile, sizeNow: number): void {
    const { counterpartyId, messageId, name, path, bytesRead } = taken;
    this.#options.log.warn(
      { counterpartyId, messageId, name, path, bytesRead, sizeNow },
      'inbox file grew after it was taken: its sender was still writing it. The document recorded is the part read; the sender should upload under a temporary name and rename, or folders.stableMs be raised',
    );
    void this.#options.intake.inboxFileGrew?.(messageId, { bytesRead, sizeNow }).catch((error: unknown) =>
      this.#options.log.warn({ err: error, messageId }, 'could not note on the message that its file grew after it was taken'),
    );
  }

  /** Notes every non-temporary inbox file not already known: covers failed intakes and missed notifications. */
  #rescan(): void {
    for (const inbox of this.#inboxes) {
      if (!this.#reads(inbox)) continue;
      // A move whose notification never came must not hide a later file of that name for long.
      inbox.moved.clear();
      if (this.#state === 'started' && inbox.watcher === undefined) this.#watch(inbox);
      let names: string[];
      try {
        names = readdirSync(inbox.path);
      } catch (error) {
        this.#options.log.warn({ err: error, counterpartyId: inbox.counterparty.id, inbox: inbox.path }, 'inbox rescan failed');
        continue;
      }
      for (const name of names) {
        if (!isTemporaryName(name) && !inbox.taking.has(name) && !inbox.waiting.has(name)) inbox.noticed.add(name);
      }
      // A refused entry gone and back is logged again.
      const present = new Set(names);
      for (const name of inbox.refused) if (!present.has(name)) inbox.refused.delete(name);
    }
  }

  #isIdle(): boolean {
    return this.#turns.size === 0 && this.#inboxes.every((inbox) => inbox.noticed.size === 0 && inbox.waiting.size === 0);
  }

  #notifyIfIdle(): void {
    if (!this.#isIdle()) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** Whether a document read whole ends where its root element closes (its first and last EDGE_BYTES tell). */
function documentEnds(bytes: Buffer): boolean {
  const head = bytes.subarray(0, EDGE_BYTES);
  return rootElementClosed(head, bytes.byteLength <= EDGE_BYTES ? head : bytes.subarray(bytes.byteLength - EDGE_BYTES), bytes.byteLength);
}

/** The same for a file too large to read whole: two reads of EDGE_BYTES, at its start and at its end. */
function documentEndsIn(fd: number, size: number): boolean {
  const head = Buffer.alloc(Math.min(EDGE_BYTES, size));
  const tail = Buffer.alloc(Math.min(EDGE_BYTES, size));
  const headRead = readSync(fd, head, 0, head.byteLength, 0);
  const tailRead = readSync(fd, tail, 0, tail.byteLength, size - tail.byteLength);
  return rootElementClosed(head.subarray(0, headRead), tail.subarray(0, tailRead), size);
}

/**
 * Notes on a file just read that its document does not end yet, as it stood then: it
 * is looked at again at once, and read again only once it has changed.
 */
function stillBeingWritten(look: Look, stats: Stats): typeof STILL_BEING_WRITTEN {
  const now = Date.now();
  if (stats.size !== look.size || stats.mtimeMs !== look.mtimeMs) look.unchangedSince = now;
  look.size = stats.size;
  look.mtimeMs = stats.mtimeMs;
  look.incompleteAt = { size: stats.size, mtimeMs: stats.mtimeMs };
  look.dueAt = onGrid(now);
  return STILL_BEING_WRITTEN;
}

/** Whether `name` is in a day folder of the archive (`archive/<date>/<name>`). */
function archivedAs(archive: string, name: string): boolean {
  let days: string[];
  try {
    days = readdirSync(archive);
  } catch {
    return false;
  }
  return days.some((day) => {
    try {
      return lstatSync(pathIn(pathIn(archive, day), name), { throwIfNoEntry: false }) !== undefined;
    } catch {
      return false; // not a folder, or not readable
    }
  });
}

/** A file's path in a folder: names here come from the folder's listing or its notifications, never with a separator. */
function pathIn(folder: string, name: string): string {
  return `${folder}${sep}${name}`;
}

/** How inbox files are opened: read only, never through a link, never waiting for a FIFO's writer or taking a terminal. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Where the system names open descriptors as files (Linux): opening one there opens that very file. */
const DESCRIPTOR_FOLDER = existsSync('/proc/self/fd') ? '/proc/self/fd' : undefined;

function descriptorPath(fd: number): string | undefined {
  return DESCRIPTOR_FOLDER === undefined ? undefined : `${DESCRIPTOR_FOLDER}/${fd}`;
}

/** What an inbox entry that is not a regular file is, in words for the log. */
function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return 'symbolic link';
  if (stats.isDirectory()) return 'folder';
  if (stats.isFIFO()) return 'FIFO';
  if (stats.isSocket()) return 'socket';
  if (stats.isBlockDevice() || stats.isCharacterDevice()) return 'device';
  return 'special file';
}

/** The entry itself, a link not followed. */
function statOf(path: string, inbox: Inbox, log: FolderChannelLog): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    log.warn({ err: error, counterpartyId: inbox.counterparty.id, path }, 'cannot look at an inbox file; the rescan tries again');
    return undefined;
  }
}

/** rejected/<name>, unless a set-aside file already has that name: intake was promised we keep it. */
function setAsidePath(counterparty: FolderCounterparty, name: string, at: Date): string {
  const rejected = counterpartySubfolder(counterparty.folder, 'rejected');
  const plain = join(rejected, name);
  if (lstatSync(plain, { throwIfNoEntry: false }) === undefined) return plain;
  return join(rejected, `${at.toISOString().replace(/[:.]/g, '-')}-${name}`);
}

/** Renames, creating the target's folder when it is missing (the day's archive folder, once a day). */
function renameInto(path: string, target: string): void {
  try {
    renameSync(path, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dirname(target), { recursive: true });
    renameSync(path, target);
  }
}

/** The envelopes through `receiveMany` when the port has it, else one `receive` after the other, in order. */
async function receiveAll(intake: IntakePort, envelopes: readonly Envelope[]): Promise<IntakeOutcome[]> {
  if (envelopes.length > 1 && intake.receiveMany) return intake.receiveMany(envelopes);
  const outcomes: IntakeOutcome[] = [];
  for (const envelope of envelopes) outcomes.push(await intake.receive(envelope).then((receipt) => ({ receipt }), (error: unknown) => ({ error })));
  return outcomes;
}
