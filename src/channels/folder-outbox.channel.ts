import { randomBytes } from 'node:crypto';
import { closeSync, fchownSync, fdatasync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, sep } from 'node:path';
import { GatewayError } from '../core/gateway-error.ts';
import { counterpartySubfolder, outboxWorkFolder, type FolderCounterparty } from './folder.layout.ts';
import type { DeliveryOutcome, OutboundChannel, OutgoingDocument } from './outbound.ts';

/**
 * Delivers responses and outgoing documents into a counterparty's `outbox/` folder,
 * where their SFTP client collects them.
 *
 * Invariants:
 * - The outbox only ever holds complete answers: the body is written to a temporary
 *   file in the counterparty's work folder (`outboxWorkFolder`: under the gateway's data
 *   folder, outside what the counterparty's SFTP server shows, on the same file system),
 *   flushed to disk, then renamed onto the final name in the outbox in one atomic step;
 *   the outbox is synced after. A temporary file a kill leaves behind stays in the work
 *   folder, never seen by the counterparty. Where the work folder is on another file
 *   system than the outbox (a counterparty folder configured on a mount of its own) a
 *   rename cannot cross, and the temporary file is written in the outbox itself under a
 *   dot-name (`.<name>.<tag>.tmp`), as a warning at the first delivery says.
 * - A delivered file belongs to the outbox's group, as one created there would: the
 *   temporary file is given the outbox's group before the rename where the work
 *   folder's differs, so the counterparty's SFTP server reads it.
 * - Delivery is at-least-once with a deterministic name: a repeat replaces the same
 *   file, it never adds a second one; a repeat that finds the file still in place with
 *   the same bytes (delivered, then the process stopped before recording it) leaves it
 *   untouched, so the counterparty sees no second write.
 * - A failed delivery leaves no temporary file behind and is DELIVERY_FAILED; one cut
 *   short by a kill leaves its temporary file, which `removeStaleTemporaries`
 *   (folder-outbox.sweeper.ts) removes later by its name (`TEMPORARY_NAME`), in the work
 *   folders and in the outboxes.
 *
 * Cost: a batch (`deliverMany`) writes its files with synchronous calls, flushes them
 * side by side on the thread pool (the file system commits them together), renames them
 * and syncs each outbox once; deliveries side by side share one directory sync.
 */
export interface FolderOutboxOptions {
  /** The folder holding a work folder per counterparty (`<dataDir>/outbox-work`): it must not be inside a counterparty's folder. */
  readonly workRoot: string;
  /** Told once per counterparty whose work folder cannot be used. Default: silent. */
  readonly log?: { warn(obj: object, msg?: string): void };
}

/** Where a counterparty's answers are written first, and what the rename into its outbox needs. */
interface Place {
  readonly outbox: string;
  /** The work folder, or the outbox itself where the work folder is on another file system. */
  readonly work: string;
  /** The outbox's group, to give the temporary file before its rename where the work folder's group differs. */
  readonly group: number | undefined;
}

export class FolderOutbox implements OutboundChannel {
  readonly name = 'folder';
  readonly #outboxes: ReadonlyMap<string, string>;
  readonly #options: FolderOutboxOptions;
  /** Per counterparty, where its answers are written first: decided at its first delivery (one stat of each folder). */
  readonly #places = new Map<string, Place>();
  /** Per outbox folder, its directory syncs (one sync covers every rename before it began). */
  readonly #syncs = new Map<string, DirectorySync>();

  constructor(counterparties: readonly FolderCounterparty[], options: FolderOutboxOptions) {
    this.#outboxes = new Map(counterparties.map((c) => [c.id, counterpartySubfolder(c.folder, 'outbox')]));
    this.#options = Object.freeze({ ...options });
  }

  async deliver(document: OutgoingDocument): Promise<{ target: string }> {
    const [outcome] = await this.deliverMany([document]);
    if (!outcome || 'error' in outcome) throw outcome?.error ?? new Error('the outbox gave no outcome');
    return outcome;
  }

  async deliverMany(documents: readonly OutgoingDocument[]): Promise<DeliveryOutcome[]> {
    const outcomes: DeliveryOutcome[] = [];
    const written: { index: number; fd: number; temporary: string; target: string; outbox: string }[] = [];
    const synced = new Set<string>();
    for (const [index, document] of documents.entries()) {
      try {
        const { place, target } = this.#placeOf(document);
        const { outbox, work, group } = place;
        const bytes = Buffer.from(document.body, 'utf8');
        outcomes[index] = { target };
        if (holdsBytes(target, bytes)) {
          // Its rename may not have been made durable before the stop: sync the folder all the same.
          synced.add(outbox);
          continue;
        }
        const temporary = `${work}${sep}.${document.fileName}.${temporaryTag()}.tmp`;
        written.push({ index, fd: writeTemporary(work, temporary, bytes, group), temporary, target, outbox });
      } catch (error) {
        outcomes[index] = { error: failed(document, error) };
      }
    }
    const flushed = await Promise.all(written.map(({ fd }) => flush(fd)));
    for (const [position, file] of written.entries()) {
      const document = documents[file.index] as OutgoingDocument;
      try {
        closeSync(file.fd);
        const flushError = flushed[position];
        if (flushError) throw flushError;
        renameInto(file.temporary, file.target, file.outbox);
        synced.add(file.outbox);
      } catch (error) {
        rmSync(file.temporary, { force: true });
        outcomes[file.index] = { error: failed(document, error, file.target) };
      }
    }
    await Promise.all([...synced].map((outbox) => this.#syncOf(outbox).after()));
    return outcomes;
  }

  #placeOf(document: OutgoingDocument): { place: Place; target: string } {
    const outbox = this.#outboxes.get(document.counterpartyId);
    if (outbox === undefined) {
      throw new GatewayError('DELIVERY_FAILED', `Counterparty ${document.counterpartyId} has no folder.`, {
        details: { counterpartyId: document.counterpartyId, messageId: document.messageId },
      });
    }
    assertPlainFileName(document);
    let place = this.#places.get(document.counterpartyId);
    if (place === undefined) {
      place = this.#decidePlace(document.counterpartyId, outbox);
      this.#places.set(document.counterpartyId, place);
    }
    return { place, target: `${outbox}${sep}${document.fileName}` };
  }

  /**
   * The counterparty's work folder (made where missing) when a rename from it into the
   * outbox can work — the same file system — and the outbox's group where the two differ;
   * else the outbox itself, with a warning.
   */
  #decidePlace(counterpartyId: string, outbox: string): Place {
    const work = outboxWorkFolder(this.#options.workRoot, counterpartyId);
    mkdirSync(work, { recursive: true });
    mkdirSync(outbox, { recursive: true });
    const workStats = statSync(work);
    const outboxStats = statSync(outbox);
    if (workStats.dev !== outboxStats.dev) {
      this.#options.log?.warn(
        { counterpartyId, outbox, work },
        'the outbox is on another file system than the gateway\'s data folder: answers are written under a temporary dot-name in the outbox itself, where the counterparty can see it until the rename',
      );
      return { outbox, work: outbox, group: undefined };
    }
    if (workStats.gid === outboxStats.gid) return { outbox, work, group: undefined };
    // Only a member of a group (or root) may give a file to it; one created in the outbox gets its group all the same (setgid).
    if (process.getuid?.() === 0 || process.getgroups?.().includes(outboxStats.gid)) return { outbox, work, group: outboxStats.gid };
    this.#options.log?.warn(
      { counterpartyId, outbox, work, outboxGroup: outboxStats.gid },
      'the outbox belongs to a group the gateway is not a member of: answers are written under a temporary dot-name in the outbox itself, where the counterparty can see it until the rename',
    );
    return { outbox, work: outbox, group: undefined };
  }

  #syncOf(outbox: string): DirectorySync {
    let sync = this.#syncs.get(outbox);
    if (!sync) this.#syncs.set(outbox, (sync = new DirectorySync(outbox)));
    return sync;
  }
}

function failed(document: OutgoingDocument, error: unknown, target?: string): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError('DELIVERY_FAILED', `Could not write ${target ?? document.fileName}.`, {
    cause: error,
    details: { counterpartyId: document.counterpartyId, messageId: document.messageId, ...(target ? { target } : {}) },
  });
}

/**
 * The names of our temporary files, `.<file name>.<tag>.tmp` with the tag below: a
 * counterparty's own dot-files and other tools' `.tmp` files do not match.
 */
export const TEMPORARY_NAME = /^\..+\.[0-9a-f]{8}[0-9a-z]+\.tmp$/;

/** Temporary names unique to this process: a tag drawn once, then a counter. */
const PROCESS_TAG = randomBytes(4).toString('hex');
let temporaryCount = 0;
function temporaryTag(): string {
  temporaryCount += 1;
  return `${PROCESS_TAG}${temporaryCount.toString(36)}`;
}

/**
 * Whether `target` is a file holding exactly `bytes`. Most deliveries find no file
 * (one stat); only a file of the same size is read. Any doubt means no: write it.
 */
function holdsBytes(target: string, bytes: Buffer): boolean {
  try {
    const found = statSync(target, { throwIfNoEntry: false });
    if (!found?.isFile() || found.size !== bytes.byteLength) return false;
    return readFileSync(target).equals(bytes);
  } catch {
    return false;
  }
}

/**
 * Creates the temporary file (its folder, when it was removed, made again once), gives it
 * `group` when set, and writes the body; gives the open descriptor.
 */
function writeTemporary(folder: string, temporary: string, bytes: Buffer, group: number | undefined): number {
  let fd: number;
  try {
    fd = openSync(temporary, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(folder, { recursive: true });
    fd = openSync(temporary, 'wx');
  }
  try {
    if (group !== undefined) fchownSync(fd, -1, group);
    for (let offset = 0; offset < bytes.byteLength; ) offset += writeSync(fd, bytes, offset);
    return fd;
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Renames the temporary file onto its final name, making the outbox again once when it was removed. */
function renameInto(temporary: string, target: string, outbox: string): void {
  try {
    renameSync(temporary, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(outbox, { recursive: true });
    renameSync(temporary, target);
  }
}

/** Flushes a file's data to disk on the thread pool; gives the error instead of throwing it. */
function flush(fd: number): Promise<Error | undefined> {
  return new Promise((resolve) => fdatasync(fd, (error) => resolve(error ?? undefined)));
}

/**
 * Group commit of a folder's renames: a caller waits for a directory sync that began
 * after its rename. Deliveries running side by side share one sync instead of one each.
 */
class DirectorySync {
  /** The sync that will start next; callers that arrive now wait for it. */
  #next: Promise<void> | undefined;
  /** The sync running now (it may not cover renames made after it began). */
  #running: Promise<void> = Promise.resolve();

  constructor(private readonly folder: string) {}

  after(): Promise<void> {
    this.#next ??= this.#running.then(() => {
      this.#next = undefined;
      this.#running = syncDirectory(this.folder);
      return this.#running;
    });
    return this.#next;
  }
}

/** A file name that could climb out of the outbox, or name nothing, is a bug upstream. */
function assertPlainFileName(document: OutgoingDocument): void {
  const { fileName } = document;
  const plain = fileName !== '' && fileName !== '.' && fileName !== '..' && basename(fileName) === fileName && !/[\\/\0]/.test(fileName);
  if (!plain) {
    throw new GatewayError('DELIVERY_FAILED', `File name ${JSON.stringify(fileName)} is not a plain file name.`, {
      details: { counterpartyId: document.counterpartyId, messageId: document.messageId },
    });
  }
}

/** Makes the renames themselves durable. Not every platform can open a directory (Windows): best effort. */
async function syncDirectory(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch {
    // The renames already happened; only their durability across a power cut is weaker here.
  } finally {
    await handle?.close();
  }
}
