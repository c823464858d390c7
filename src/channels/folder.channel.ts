/**
 * The local-folder channel: counterparties exchange documents as files in folders an
 * SFTP server (OpenSSH, SFTPGo …) writes into, one folder root per counterparty with
 * inbox/, outbox/, archive/ and rejected/.
 *
 * Invariants kept by its parts:
 * - Nothing leaves an inbox before intake has durably recorded it (FolderInboxWatcher).
 * - Temporary names and files still being written are never taken (isTemporaryName,
 *   stability wait).
 * - Outbox writes are atomic and idempotent: temp file, fsync, rename onto a
 *   deterministic name, skipped when that file already holds the same bytes
 *   (FolderOutbox); temp files a kill left behind are swept away once old
 *   (startOutboxSweeper).
 */
export { ensureCounterpartyFolders, isTemporaryName, type FolderCounterparty } from './folder.layout.ts';
export { FolderInboxWatcher, type FolderChannelLog, type FolderChannelOptions } from './folder-inbox.watcher.ts';
export { FolderOutbox } from './folder-outbox.channel.ts';
export { startOutboxSweeper } from './folder-outbox.sweeper.ts';
