import { watch, type FSWatcher, type Stats } from 'node:fs';
import { mkdir, readFile, readdir, rename, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ArrivalSequencer } from './arrival-sequencer.ts';
import { IntakeBatcher } from './intake-batcher.ts';
import type { Envelope, IntakePort, IntakeReceipt } from './envelope.ts';
import { counterpartySubfolder, ensureCounterpartyFolders, isTemporaryName, type FolderCounterparty } from './folder.layout.ts';

/**
 * Takes the files counterparties drop into their `inbox/` folder (through an SFTP
 * server such as OpenSSH or SFTPGo writing to local disk) and hands each to intake.
 *
 * Invariants:
 * - Nothing leaves the inbox before intake has durably recorded it: the file is moved
 *   to archive/ (or to its set-aside place in rejected/) only after `receive` resolved.
 *   If intake fails, the file stays and the periodic rescan offers it again.
 * - Temporary names (see `isTemporaryName`) are never taken, and a file is taken only
 *   once its size and mtime have been unchanged for `stableMs`.
 * - The same path is never with intake twice at once; at most `maxInFlight` files are
 *   being taken, and each counterparty's files reach intake in arrival order, oldest
 *   (mtime, then name) first, in turns of all the files that may go (see
 *   ArrivalSequencer); the files of a turn are recorded together (IntakeBatcher).
 * - A file larger than `maxDocumentBytes` is never read into memory.
 *
 * How files are noticed: each inbox is watched with the operating system's own change
 * notification (`fs.watch`: inotify on Linux), which names the file that changed; the
 * inbox is listed once at start and again every `rescanEveryMs`, which covers files
 * whose intake failed and any notification the system dropped or cannot give (a
 * network file system). A file is only ever looked at by name: the folder is never
 * listed per change, so a full inbox costs no more per file than an empty one.
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
}

interface InboxFile {
  readonly path: string;
  readonly counterparty: FolderCounterparty;
  /** When the file was offered (0 when it was already gone); orders the queue with the name. */
  mtimeMs?: number;
  /** The look taken when it was offered: the first observation of its stability wait. */
  offered?: { readonly stats: Stats; readonly at: number };
}

const silentLog: FolderChannelLog = { info() {}, warn() {}, error() {} };

export class FolderInboxWatcher {
  readonly #options: Required<FolderChannelOptions>;
  /** Files waiting for a slot, oldest (mtime, then name) first. */
  readonly #queue: InboxFile[] = [];
  /** Paths queued or with intake: never offered twice at once. */
  readonly #pending = new Set<string>();
  readonly #running = new Set<Promise<void>>();
  /** Offered files whose age is still being read; the queue is not pumped meanwhile, so it sees them all. */
  #offering = 0;
  /** True until the first scan of every inbox is complete: files found at start are ordered together. */
  #scanning = true;
  /** Per counterparty id: the order its files are handed to intake. */
  readonly #sequencers = new Map<string, ArrivalSequencer>();
  /** Files whose turn comes together reach intake together, in their order. */
  readonly #batcher: IntakeBatcher;
  #idleWaiters: Array<() => void> = [];
  /** Per counterparty id, the watch on its inbox (absent after the watch failed, until a rescan renews it). */
  readonly #watchers = new Map<string, FSWatcher>();
  #rescanTimer: NodeJS.Timeout | undefined;
  #state: 'new' | 'started' | 'stopped' = 'new';

  constructor(options: FolderChannelOptions) {
    this.#options = Object.freeze({
      ...options,
      counterparties: Object.freeze(options.counterparties.map((c) => Object.freeze({ ...c }))),
      maxInFlight: options.maxInFlight ?? 64,
      rescanEveryMs: options.rescanEveryMs ?? 5000,
      clock: options.clock ?? (() => new Date()),
      log: options.log ?? silentLog,
    });
    if (!(this.#options.maxInFlight >= 1)) throw new RangeError('maxInFlight must be at least 1');
    this.#batcher = new IntakeBatcher(this.#options.intake);
    if (!(this.#options.rescanEveryMs > 0)) throw new RangeError('rescanEveryMs must be positive');
  }

  /** Creates missing folders, takes the files already waiting and watches for new ones. */
  async start(): Promise<void> {
    if (this.#state !== 'new') throw new Error(`FolderInboxWatcher cannot start: it is ${this.#state}`);
    this.#state = 'started';
    for (const counterparty of this.#options.counterparties) {
      await ensureCounterpartyFolders(counterparty.folder);
      // Watching before listing: a file arriving in between is offered twice, never missed.
      this.#watch(counterparty);
    }
    await this.#rescan();
    // Every file found at start is queued (in age order) before any is taken.
    await this.#offersSettled();
    this.#scanning = false;
    this.#pump();
    this.#scheduleRescan();
  }

  /** Offers every file the system reports as created, renamed into or changed in the inbox. */
  #watch(counterparty: FolderCounterparty): void {
    const inbox = counterpartySubfolder(counterparty.folder, 'inbox');
    let watcher: FSWatcher;
    try {
      watcher = watch(inbox, { persistent: false }, (_event, name) => {
        if (typeof name === 'string' && name !== '' && !isTemporaryName(name)) this.#offer({ path: join(inbox, name), counterparty });
      });
    } catch (error) {
      this.#options.log.error({ err: error, counterpartyId: counterparty.id, inbox }, 'cannot watch the inbox; it is listed at every rescan until it can');
      return;
    }
    watcher.on('error', (error) => {
      this.#options.log.error({ err: error, counterpartyId: counterparty.id, inbox }, 'inbox watch failed; it is listed at every rescan until it can be watched again');
      watcher.close();
      if (this.#watchers.get(counterparty.id) === watcher) this.#watchers.delete(counterparty.id);
    });
    this.#watchers.set(counterparty.id, watcher);
  }

  /** Stops watching and waits for the files already with intake; queued files stay in the inbox. */
  async stop(): Promise<void> {
    this.#state = 'stopped';
    clearTimeout(this.#rescanTimer);
    for (const file of this.#queue.splice(0)) this.#pending.delete(file.path);
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
    await Promise.all([...this.#running]);
    this.#notifyIfIdle();
  }

  /** Resolves when every file seen so far has been handed over and moved (queue and in-flight empty). */
  idle(): Promise<void> {
    if (this.#queue.length === 0 && this.#running.size === 0 && this.#offering === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #offer(file: InboxFile): void {
    if (this.#state !== 'started' || this.#pending.has(file.path)) return;
    this.#pending.add(file.path);
    // Queued by age, so the files being taken are always the oldest known: the arrival
    // order the sequencer keeps among them then holds for the whole inbox. Files reported
    // together (a drop, the scan at start) are all queued before any of them starts.
    this.#offering += 1;
    void statIfPresent(file.path)
      .catch(() => undefined)
      .then((stats) => {
        this.#offering -= 1;
        file.mtimeMs = stats?.mtimeMs ?? 0;
        if (stats) file.offered = { stats, at: Date.now() };
        // Gone (taken, or removed by its sender: the system reports removals too) or a folder.
        if (this.#state !== 'started' || !stats?.isFile()) {
          this.#pending.delete(file.path);
          this.#notifyIfIdle();
          return;
        }
        this.#queue.splice(insertionIndex(this.#queue, file), 0, file);
        if (!this.#scanning && (this.#offering === 0 || this.#queue.length >= this.#options.maxInFlight)) this.#pump();
      });
  }

  #pump(): void {
    while (this.#running.size < this.#options.maxInFlight && this.#queue.length > 0) {
      const file = this.#queue.shift()!;
      const task: Promise<void> = this.#take(file)
        .catch((error: unknown) => this.#options.log.error({ err: error, path: file.path }, 'taking inbox file failed; left in the inbox'))
        .finally(() => {
          this.#running.delete(task);
          this.#pending.delete(file.path);
          this.#pump();
        });
      this.#running.add(task);
    }
    this.#notifyIfIdle();
  }

  /** Resolves once every offered file has been queued. */
  async #offersSettled(): Promise<void> {
    while (this.#offering > 0) await sleep(1);
  }

  #notifyIfIdle(): void {
    if (this.#queue.length > 0 || this.#running.size > 0 || this.#offering > 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Hands one file to intake in its arrival turn and, once intake has recorded it, moves it out of the inbox. */
  async #take({ path, counterparty, offered }: InboxFile): Promise<void> {
    const sequencer = this.#sequencerOf(counterparty.id);
    sequencer.register(path);
    let receipt: IntakeReceipt;
    let envelope: Envelope;
    try {
      const stats = await this.#waitUntilStable(path, (mtimeMs) => sequencer.observe(path, mtimeMs), offered);
      if (stats === undefined) return; // gone (already taken, or removed by its sender) or not a file
      const name = basename(path);
      const content = await this.#readContent(path, stats, counterparty, name);
      await sequencer.turn(path, stats.mtimeMs, name);
      envelope = { channel: 'folder', counterpartyId: counterparty.id, externalId: name, receivedAt: this.#options.clock(), content, metadata: { fileName: name } };
      receipt = await this.#batcher.receive(envelope);
    } catch (error) {
      this.#options.log.warn({ err: error, counterpartyId: counterparty.id, path }, 'intake failed; file left in the inbox for the next rescan');
      return;
    } finally {
      sequencer.done(path);
    }
    await this.#moveTaken(path, counterparty, envelope, receipt);
  }

  #sequencerOf(counterpartyId: string): ArrivalSequencer {
    let sequencer = this.#sequencers.get(counterpartyId);
    if (!sequencer) this.#sequencers.set(counterpartyId, (sequencer = new ArrivalSequencer()));
    return sequencer;
  }

  async #moveTaken(path: string, counterparty: FolderCounterparty, envelope: Envelope, receipt: IntakeReceipt): Promise<void> {
    const { receivedAt, externalId: name, content } = envelope;
    const target =
      receipt.errorCode === 'DOCUMENT_TOO_LARGE'
        ? 'setAsidePath' in content
          ? content.setAsidePath
          : await this.#setAsidePath(counterparty, name, receivedAt)
        : join(counterpartySubfolder(counterparty.folder, 'archive'), receivedAt.toISOString().slice(0, 10), `${receipt.messageId}-${name}`);
    // A failed move is left to the rescan: intake then answers "duplicate" and the file moves.
    await renameInto(path, target);
    this.#options.log.info({ counterpartyId: counterparty.id, messageId: receipt.messageId, status: receipt.status, target }, 'inbox file taken');
  }

  /**
   * A file is taken only when its writer is done, whether it was noticed by a change
   * notification, at start or by the rescan. Stable means the mtime is `stableMs` old,
   * or size and mtime were seen unchanged for `stableMs` (which also copes with an mtime
   * set in the future). The look taken when the file was offered counts as the first
   * observation, and the file is looked at again when it could first be stable — every
   * `pollIntervalMs` while it is still changing — so a complete file costs two looks,
   * not one per poll interval.
   */
  async #waitUntilStable(path: string, seen: (mtimeMs: number) => void, offered?: InboxFile['offered']): Promise<Stats | undefined> {
    const { stableMs, pollIntervalMs } = this.#options;
    let previous: Stats | undefined = offered?.stats;
    let unchangedSince = offered?.at ?? Date.now();
    for (;;) {
      const stats = await statIfPresent(path);
      if (stats === undefined || !stats.isFile()) return undefined;
      seen(stats.mtimeMs);
      const now = Date.now();
      const changed = previous !== undefined && (stats.size !== previous.size || stats.mtimeMs !== previous.mtimeMs);
      if (changed) unchangedSince = now;
      const quietMs = Math.max(now - stats.mtimeMs, now - unchangedSince);
      if (quietMs >= stableMs) return stats;
      if (this.#state === 'stopped') return undefined;
      previous = stats;
      await sleep(changed ? Math.min(pollIntervalMs, stableMs - quietMs) : stableMs - quietMs);
    }
  }

  async #readContent(path: string, stats: Stats, counterparty: FolderCounterparty, name: string): Promise<Envelope['content']> {
    const { maxDocumentBytes, clock } = this.#options;
    if (stats.size <= maxDocumentBytes) {
      const bytes = await readFile(path);
      if (bytes.byteLength <= maxDocumentBytes) return { bytes };
      // It grew between stat and read: treat it as the large file it now is.
    }
    return { path, setAsidePath: await this.#setAsidePath(counterparty, name, clock()) };
  }

  /** rejected/<name>, unless a set-aside file already has that name: intake was promised we keep it. */
  async #setAsidePath(counterparty: FolderCounterparty, name: string, at: Date): Promise<string> {
    const rejected = counterpartySubfolder(counterparty.folder, 'rejected');
    const plain = join(rejected, name);
    if ((await statIfPresent(plain)) === undefined) return plain;
    return join(rejected, `${at.toISOString().replace(/[:.]/g, '-')}-${name}`);
  }

  #scheduleRescan(): void {
    if (this.#state !== 'started') return;
    this.#rescanTimer = setTimeout(() => void this.#rescan().finally(() => this.#scheduleRescan()), this.#options.rescanEveryMs);
  }

  /** Offers every settled, non-temporary inbox file not already pending: covers failed intakes and missed events. */
  async #rescan(): Promise<void> {
    const { stableMs, log } = this.#options;
    for (const counterparty of this.#options.counterparties) {
      const inbox = counterpartySubfolder(counterparty.folder, 'inbox');
      if (this.#state === 'started' && !this.#watchers.has(counterparty.id)) this.#watch(counterparty);
      try {
        for (const name of (await readdir(inbox)).sort()) {
          const path = join(inbox, name);
          if (isTemporaryName(name) || this.#pending.has(path)) continue;
          if (this.#scanning) {
            // At start every file is offered; #take waits for those still being written.
            this.#offer({ path, counterparty });
            continue;
          }
          const stats = await statIfPresent(path);
          if (stats?.isFile() && Date.now() - stats.mtimeMs >= stableMs) this.#offer({ path, counterparty });
        }
      } catch (error) {
        log.warn({ err: error, counterpartyId: counterparty.id, inbox }, 'inbox rescan failed');
      }
    }
  }
}

/** Where `file` goes in a queue kept in (mtime, path) order: after every file not younger. */
function insertionIndex(queue: readonly InboxFile[], file: InboxFile): number {
  const younger = (other: InboxFile) =>
    (other.mtimeMs ?? 0) > (file.mtimeMs ?? 0) || ((other.mtimeMs ?? 0) === (file.mtimeMs ?? 0) && other.path > file.path);
  let low = 0;
  let high = queue.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (younger(queue[middle] as InboxFile)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Renames, creating the target's folder when it is missing (the day's archive folder, once a day). */
async function renameInto(path: string, target: string): Promise<void> {
  try {
    await rename(path, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dirname(target), { recursive: true });
    await rename(path, target);
  }
}

async function statIfPresent(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
