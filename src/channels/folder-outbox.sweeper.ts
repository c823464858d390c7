import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { TEMPORARY_NAME } from './folder-outbox.channel.ts';
import { counterpartySubfolder, outboxWorkFolder, type FolderCounterparty } from './folder.layout.ts';

/**
 * Removes the temporary files a delivery cut short (the process killed between writing
 * and renaming) leaves in the counterparties' work folders (`outboxWorkFolder`), and in
 * the outboxes, where answers are written first only when the work folder is on another
 * file system (and where gateways before the work folders wrote them); nothing else would
 * ever remove them, and they fill the disk, or the counterparty's SFTP listing.
 *
 * Invariants:
 * - only our own temporary names (`TEMPORARY_NAME`) are touched: a counterparty's
 *   files, dot-files and other tools' `.tmp` files stay;
 * - only files unchanged for `olderThanMs` go: a delivery writes, flushes and renames
 *   its file within seconds, so a file that old belongs to no delivery in progress, in
 *   this process or another one sharing the folders (the response itself is written
 *   again by the delivery's retry);
 * - the file system's clock decides the age (modification times are its), not the
 *   gateway's business clock.
 */

export interface OutboxSweeperOptions {
  readonly counterparties: readonly FolderCounterparty[];
  /** The folder holding the counterparties' work folders (`<dataDir>/outbox-work`), as given to FolderOutbox. */
  readonly workRoot: string;
  /** Age (since last modification) from which a temporary file is left over. Default 15 minutes. */
  readonly olderThanMs?: number;
  /** Time between sweeps after the first, made at start. Default 5 minutes. */
  readonly everyMs?: number;
  readonly log: Logger;
}

export const DEFAULT_STALE_TEMPORARY_MS = 15 * 60_000;
export const DEFAULT_OUTBOX_SWEEP_MS = 5 * 60_000;

/** Removes our temporary files unchanged for `olderThanMs` from the counterparties' work folders and outboxes; gives their paths. */
export async function removeStaleTemporaries(counterparties: readonly FolderCounterparty[], olderThanMs: number, workRoot: string): Promise<string[]> {
  const removed: string[] = [];
  const folders = counterparties.flatMap(({ id, folder }) => [outboxWorkFolder(workRoot, id), counterpartySubfolder(folder, 'outbox')]);
  for (const folder of folders) {
    let names: string[];
    try {
      names = await readdir(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // made again by the next delivery
      throw error;
    }
    for (const name of names.filter((n) => TEMPORARY_NAME.test(n))) {
      const path = join(folder, name);
      const found = await stat(path).catch(() => undefined); // gone meanwhile: renamed by its delivery
      if (!found?.isFile() || Date.now() - found.mtimeMs < olderThanMs) continue;
      await rm(path, { force: true });
      removed.push(path);
    }
  }
  return removed;
}

/** Sweeps now and every `everyMs`; gives a stop function that waits for a sweep under way. */
export function startOutboxSweeper(options: OutboxSweeperOptions): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  const sweep = () => {
    if (running) return; // a slow folder: the sweep under way is enough
    running = removeStaleTemporaries(options.counterparties, options.olderThanMs ?? DEFAULT_STALE_TEMPORARY_MS, options.workRoot).then(
      (removed) => {
        if (removed.length > 0) options.log.info({ count: removed.length }, 'removed temporary files interrupted deliveries left');
      },
      (error: unknown) => options.log.warn({ err: (error as Error).message }, 'outbox sweep failed; the next one tries again'),
    ).finally(() => {
      running = undefined;
    });
  };
  sweep();
  const timer = setInterval(sweep, options.everyMs ?? DEFAULT_OUTBOX_SWEEP_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
