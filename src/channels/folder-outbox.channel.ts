import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { GatewayError } from '../core/gateway-error.ts';
import { counterpartySubfolder, type FolderCounterparty } from './folder.layout.ts';
import type { OutboundChannel, OutgoingDocument } from './outbound.ts';

/**
 * Delivers responses and outgoing documents into a counterparty's `outbox/` folder,
 * where their SFTP client collects them.
 *
 * Invariants:
 * - A reader never sees a half-written file: the body is written to a dot-named
 *   `.tmp` file (which readers, and our own inbox watcher, ignore), fsynced, then
 *   renamed onto the final name in one atomic step.
 * - Delivery is at-least-once with a deterministic name: a repeat replaces the same
 *   file, it never adds a second one.
 * - A failed delivery leaves no temporary file behind and throws DELIVERY_FAILED.
 */
export class FolderOutbox implements OutboundChannel {
  readonly name = 'folder';
  readonly #outboxes: ReadonlyMap<string, string>;
  /** Per outbox folder, its directory syncs (one sync covers every rename before it began). */
  readonly #syncs = new Map<string, DirectorySync>();

  constructor(counterparties: readonly FolderCounterparty[]) {
    this.#outboxes = new Map(counterparties.map((c) => [c.id, counterpartySubfolder(c.folder, 'outbox')]));
  }

  async deliver(document: OutgoingDocument): Promise<{ target: string }> {
    const outbox = this.#outboxes.get(document.counterpartyId);
    if (outbox === undefined) {
      throw new GatewayError('DELIVERY_FAILED', `Counterparty ${document.counterpartyId} has no folder.`, {
        details: { counterpartyId: document.counterpartyId, messageId: document.messageId },
      });
    }
    assertPlainFileName(document);
    const target = join(outbox, document.fileName);
    const temporary = join(outbox, `.${document.fileName}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await writeDurably(temporary, document.body).catch(async (error: unknown) => {
        // The outbox was removed: made again, once.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        await mkdir(outbox, { recursive: true });
        await writeDurably(temporary, document.body);
      });
      await rename(temporary, target);
      await this.#syncOf(outbox).after();
    } catch (error) {
      await rm(temporary, { force: true });
      throw new GatewayError('DELIVERY_FAILED', `Could not write ${target}.`, {
        cause: error,
        details: { counterpartyId: document.counterpartyId, messageId: document.messageId, target },
      });
    }
    return { target };
  }

  #syncOf(outbox: string): DirectorySync {
    let sync = this.#syncs.get(outbox);
    if (!sync) this.#syncs.set(outbox, (sync = new DirectorySync(outbox)));
    return sync;
  }
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

async function writeDurably(path: string, body: string): Promise<void> {
  const handle = await open(path, 'wx');
  try {
    await handle.writeFile(body, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes the rename itself durable. Not every platform can open a directory (Windows): best effort. */
async function syncDirectory(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch {
    // The rename already happened; only its durability across a power cut is weaker here.
  } finally {
    await handle?.close();
  }
}
