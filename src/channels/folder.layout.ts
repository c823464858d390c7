import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * The folder layout a counterparty's SFTP server (OpenSSH, SFTPGo …) writes into,
 * shared by the inbox watcher and the outbox channel:
 *
 *     <folder>/inbox      the counterparty drops documents here; we take them
 *     <folder>/outbox     we write responses and outgoing documents here
 *     <folder>/archive    taken files, as archive/<YYYY-MM-DD>/<messageId>-<name>
 *     <folder>/rejected   files intake refused to read (too large), kept as promised, and
 *                         inbox entries that are not regular files (links, FIFOs …), never opened
 *
 * and, outside it, the work folder where answers are written before their rename into
 * the outbox (`outboxWorkFolder`): `<dataDir>/outbox-work/<id>`. Not in `<folder>`, as the
 * SFTP server may show the counterparty all of it (OpenSSH's ChrootDirectory does), even
 * a dot-folder; in the data folder, which holds `<folder>` by default, so on the same
 * file system and the rename is atomic.
 */

/** A counterparty reached through a local folder. */
export interface FolderCounterparty {
  /** Configured counterparty id. */
  readonly id: string;
  /** Folder root holding inbox/, outbox/, archive/ and rejected/. */
  readonly folder: string;
}

export const COUNTERPARTY_SUBFOLDERS = ['inbox', 'outbox', 'archive', 'rejected'] as const;
export type CounterpartySubfolder = (typeof COUNTERPARTY_SUBFOLDERS)[number];

/** Absolute path of one of a counterparty's subfolders. */
export function counterpartySubfolder(folder: string, subfolder: CounterpartySubfolder): string {
  return join(resolve(folder), subfolder);
}

/** A counterparty's work folder for answers not yet in its outbox, under `workRoot` (`<dataDir>/outbox-work`). */
export function outboxWorkFolder(workRoot: string, counterpartyId: string): string {
  return join(resolve(workRoot), counterpartyId);
}

/** Creates inbox/, outbox/, archive/ and rejected/ under `folder` where missing (mkdir -p). */
export async function ensureCounterpartyFolders(folder: string): Promise<void> {
  await Promise.all(COUNTERPARTY_SUBFOLDERS.map((subfolder) => mkdir(counterpartySubfolder(folder, subfolder), { recursive: true })));
}

const TEMPORARY_SUFFIXES = ['.tmp', '.part', '.partial', '.filepart', '.crdownload', '.uploading'] as const;

/**
 * Whether a file name belongs to an upload still in progress or to a tool's scratch
 * file, and so must never be taken: dot-files, `~$` office lock files and the
 * suffixes SFTP clients and browsers write under (.tmp, .part, .partial, WinSCP's
 * .filepart, .crdownload, .uploading). Case-insensitive.
 *
 * @example isTemporaryName('holdings.xml.FILEPART') // true
 */
export function isTemporaryName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('.') || lower.startsWith('~$') || TEMPORARY_SUFFIXES.some((suffix) => lower.endsWith(suffix));
}
