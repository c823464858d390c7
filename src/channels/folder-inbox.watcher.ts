import type { Stats } from 'node:fs';
import { mkdir, readFile, readdir, rename, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { watch, type FSWatcher } from 'chokidar';
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
 * - The same path is never with intake twice at once; at most `maxInFlight` files are.
 * - A file larger than `maxDocumentBytes` is never read into memory.
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
  /** How often a file still being written is looked at again. */
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
}

const silentLog: FolderChannelLog = { info() {}, warn() {}, error() {} };

export class FolderInboxWatcher {
  readonly #options: Required<FolderChannelOptions>;
  /** Files waiting for a slot, FIFO in the order they were reported. */
  readonly #queue: InboxFile[] = [];
  /** Paths queued or with intake: never offered twice at once. */
  readonly #pending = new Set<string>();
  readonly #running = new Set<Promise<void>>();
  #idleWaiters: Array<() => void> = [];
  #watchers: FSWatcher[] = [];
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
    if (!(this.#options.rescanEveryMs > 0)) throw new RangeError('rescanEveryMs must be positive');
  }

  /** Creates missing folders, takes the files already waiting and watches for new ones. */
  async start(): Promise<void> {
    if (this.#state !== 'new') throw new Error(`FolderInboxWatcher cannot start: it is ${this.#state}`);
    this.#state = 'started';
    const { log } = this.#options;
    for (const counterparty of this.#options.counterparties) {
      await ensureCounterpartyFolders(counterparty.folder);
      const inbox = counterpartySubfolder(counterparty.folder, 'inbox');
      const watcher = watch(inbox, {
        depth: 0,
        ignoreInitial: false,
        usePolling: false,
        atomic: false,
        // No awaitWriteFinish: #waitUntilStable checks every file, including those found at start.
        ignored: (path: string) => path !== inbox && isTemporaryName(basename(path)),
      });
      // 'change' too: a file that reappears under a name we just archived may be reported as one.
      watcher.on('add', (path) => this.#offer({ path, counterparty }));
      watcher.on('change', (path) => this.#offer({ path, counterparty }));
      watcher.on('error', (error) => log.error({ err: error, counterpartyId: counterparty.id, inbox }, 'folder watcher failed'));
      this.#watchers.push(watcher);
      await new Promise<void>((resolve) => watcher.once('ready', resolve));
    }
    this.#scheduleRescan();
  }

  /** Stops watching and waits for the files already with intake; queued files stay in the inbox. */
  async stop(): Promise<void> {
    this.#state = 'stopped';
    clearTimeout(this.#rescanTimer);
    for (const file of this.#queue.splice(0)) this.#pending.delete(file.path);
    await Promise.all(this.#watchers.map((watcher) => watcher.close()));
    this.#watchers = [];
    await Promise.all([...this.#running]);
    this.#notifyIfIdle();
  }

  /** Resolves when every file seen so far has been handed over and moved (queue and in-flight empty). */
  idle(): Promise<void> {
    if (this.#queue.length === 0 && this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #offer(file: InboxFile): void {
    if (this.#state !== 'started' || this.#pending.has(file.path)) return;
    this.#pending.add(file.path);
    this.#queue.push(file);
    this.#pump();
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

  #notifyIfIdle(): void {
    if (this.#queue.length > 0 || this.#running.size > 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Hands one file to intake and, once intake has recorded it, moves it out of the inbox. */
  async #take({ path, counterparty }: InboxFile): Promise<void> {
    const { intake, clock, log } = this.#options;
    const stats = await this.#waitUntilStable(path);
    if (stats === undefined) return; // gone (already taken, or removed by its sender) or not a file
    const name = basename(path);
    const receivedAt = clock();
    const envelope: Envelope = {
      channel: 'folder',
      counterpartyId: counterparty.id,
      externalId: name,
      receivedAt,
      content: await this.#readContent(path, stats, counterparty, name),
      metadata: { fileName: name },
    };
    let receipt: IntakeReceipt;
    try {
      receipt = await intake.receive(envelope);
    } catch (error) {
      log.warn({ err: error, counterpartyId: counterparty.id, path }, 'intake failed; file left in the inbox for the next rescan');
      return;
    }
    const target =
      receipt.errorCode === 'DOCUMENT_TOO_LARGE'
        ? 'setAsidePath' in envelope.content
          ? envelope.content.setAsidePath
          : await this.#setAsidePath(counterparty, name, receivedAt)
        : join(counterpartySubfolder(counterparty.folder, 'archive'), receivedAt.toISOString().slice(0, 10), `${receipt.messageId}-${name}`);
    await mkdir(dirname(target), { recursive: true });
    // A failed move is left to the rescan: intake then answers "duplicate" and the file moves.
    await rename(path, target);
    log.info({ counterpartyId: counterparty.id, messageId: receipt.messageId, status: receipt.status, target }, 'inbox file taken');
  }

  /**
   * chokidar only waits for writes to finish after its initial scan, and only compares
   * sizes; this also covers files found at start and by the rescan. Stable means the
   * mtime is `stableMs` old, or size and mtime were seen unchanged for `stableMs`
   * (which also copes with an mtime set in the future).
   */
  async #waitUntilStable(path: string): Promise<Stats | undefined> {
    const { stableMs, pollIntervalMs } = this.#options;
    let previous: Stats | undefined;
    let unchangedSince = Date.now();
    for (;;) {
      const stats = await statIfPresent(path);
      if (stats === undefined || !stats.isFile()) return undefined;
      const now = Date.now();
      if (previous !== undefined && (stats.size !== previous.size || stats.mtimeMs !== previous.mtimeMs)) unchangedSince = now;
      const quietMs = Math.max(now - stats.mtimeMs, now - unchangedSince);
      if (quietMs >= stableMs) return stats;
      if (this.#state === 'stopped') return undefined;
      previous = stats;
      await sleep(Math.min(pollIntervalMs, stableMs - quietMs));
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
      try {
        for (const name of (await readdir(inbox)).sort()) {
          const path = join(inbox, name);
          if (isTemporaryName(name) || this.#pending.has(path)) continue;
          const stats = await statIfPresent(path);
          if (stats?.isFile() && Date.now() - stats.mtimeMs >= stableMs) this.#offer({ path, counterparty });
        }
      } catch (error) {
        log.warn({ err: error, counterpartyId: counterparty.id, inbox }, 'inbox rescan failed');
      }
    }
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
