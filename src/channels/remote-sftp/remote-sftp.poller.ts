import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type SftpClient from 'ssh2-sftp-client';
import type { Envelope, IntakePort, IntakeReceipt } from '../envelope.ts';
import { isTemporaryName } from '../folder.layout.ts';
import { remoteNameProblem } from './remote-file-name.ts';
import { SftpBackoffError, type SftpSession, type SftpSessionLog } from './sftp-session.ts';
import type { ChannelHealth } from '../channel-health.ts';
import { remoteSftpLease, soleProcessLeases, type ChannelLeases } from '../channel-leases.ts';

/**
 * Fetches a counterparty's documents from the outbox folder of its own SFTP server and
 * hands each to intake.
 *
 * Invariants:
 * - A file is taken only when two listings `stableMs` apart show the same size and
 *   mtime, under a name that is not temporary (`isTemporaryName`), and when the remote
 *   file still has that size and mtime after it was downloaded.
 * - Nothing leaves the remote outbox before intake has durably recorded it: intake
 *   commits, the fetch is recorded (`remote_files`), then the file is moved to
 *   `archivePath` (or deleted), then marked removed.
 * - A file version (path, size, mtime) already recorded is never handed to intake
 *   again, across restarts: only its removal is finished. A stop between intake's
 *   commit and the record is covered by finding the message by its metadata.
 * - Files go to intake one at a time, oldest (mtime, then name) first.
 * - A listed name is used (in a path, local or remote, or a log line) only once
 *   `remoteNameProblem` finds nothing wrong with it: a file under any other name is left
 *   on the server, and logged once while it stays there.
 * - A file listed larger than `maxFetchBytes` is never downloaded: intake answers it
 *   DOCUMENT_TOO_LARGE from its listed size, and it moves to `archivePath` (without one
 *   it stays in the outbox: the gateway kept no copy to delete it after). A download
 *   never reads more than the listed size.
 * - A file larger than `maxDocumentBytes` (a custodian's report) is downloaded to disk,
 *   never read into memory.
 * - The remote outbox is polled only while this process holds its lease
 *   (`remoteSftpLease`): of several pollers of one counterparty's server (several
 *   `watch` processes) one takes its files, in order, and the others stand by. A poller
 *   without the lease forgets its sightings, so the one that takes the lease over takes
 *   a file only after two listings of its own, `stableMs` apart.
 */

/** Where the poller remembers what it fetched (PostgreSQL `remote_files`). */
export interface RemoteFileLedger {
  /** The message a file version became, and whether it has left the remote outbox. */
  findFetched(file: RemoteFileVersion, externalId: string): Promise<{ messageId: string; removed: boolean } | undefined>;
  recordFetched(file: RemoteFileVersion, messageId: string): Promise<void>;
  markRemoved(file: RemoteFileVersion): Promise<void>;
}

export interface RemoteFileVersion {
  readonly counterpartyId: string;
  readonly remotePath: string;
  readonly size: number;
  /** ms since the epoch (SFTP gives whole seconds). */
  readonly mtime: number;
}

/** The remote folders of one counterparty, and how often and how patiently to look. */
export interface RemoteSftpFolders {
  /** Remote folder the counterparty puts documents for us in. */
  readonly outboxPath: string;
  /** Remote folder taken files move to as `<messageId>-<name>`; without it they are deleted. */
  readonly archivePath?: string | undefined;
  readonly pollIntervalMs: number;
  /** Size and mtime must stand still across two listings this far apart. */
  readonly stableMs: number;
}

export interface RemoteSftpPollerOptions {
  readonly session: SftpSession;
  readonly folders: RemoteSftpFolders;
  readonly intake: IntakePort;
  readonly ledger: RemoteFileLedger;
  /** Local folder for this counterparty's downloads: incoming/ (scratch) and rejected/ (kept). */
  readonly workDir: string;
  /** Larger files are handed over as `{ path, setAsidePath }`, never read. */
  readonly maxDocumentBytes: number;
  /**
   * Files listed larger than this are not downloaded; intake answers them
   * DOCUMENT_TOO_LARGE. The most intake keeps of this counterparty: limits.maxReportBytes
   * for a custodian, limits.maxDocumentBytes for the others.
   */
  readonly maxFetchBytes: number;
  readonly clock: () => Date;
  readonly log: SftpSessionLog;
  /** Told after every poll whether the server could be reached (staff's channel view). */
  readonly health?: ChannelHealth | undefined;
  /** Whether this process may poll now. Default: always (the only process). */
  readonly leases?: ChannelLeases | undefined;
}

interface Sighting {
  readonly size: number;
  readonly mtime: number;
  readonly since: number;
}

type Listed = SftpClient.FileInfo;

export class RemoteSftpPoller {
  readonly #options: RemoteSftpPollerOptions;
  readonly #counterpartyId: string;
  /** Last size and mtime seen per file name, and since when. */
  readonly #sightings = new Map<string, Sighting>();
  /** Listed names refused (`remoteNameProblem`), logged once while they stay listed. */
  readonly #refusedNames = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  /** The failure of a poll logged last, until a poll works. */
  #lastProblem: string | undefined;
  #stopped = false;

  constructor(options: RemoteSftpPollerOptions) {
    this.#options = Object.freeze({ ...options, folders: Object.freeze({ ...options.folders }) });
    this.#counterpartyId = options.session.counterpartyId;
  }

  /** Clears scratch downloads of an earlier run and starts polling (the first poll at once). */
  async start(): Promise<void> {
    const incoming = join(this.#options.workDir, 'incoming');
    await rm(incoming, { recursive: true, force: true });
    await mkdir(incoming, { recursive: true });
    this.#schedule(0);
  }

  /** Stops polling and waits for the poll in progress; a file half taken is finished at the next start. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#polling;
  }

  /** Lists the outbox once and takes every file that is ready. Exposed for tests and for `start`. */
  async pollOnce(): Promise<void> {
    const { session, folders } = this.#options;
    const listing = await session.run('list', (client) => client.list(folders.outboxPath));
    const now = Date.now();
    const ready: Listed[] = [];
    const listed = new Set<string>();
    const refused = new Set<string>();
    for (const file of listing) {
      if (file.type !== '-') continue;
      if (!this.#isUsableName(file.name)) {
        refused.add(file.name);
        continue;
      }
      if (isTemporaryName(file.name)) continue;
      listed.add(file.name);
      const seen = this.#sightings.get(file.name);
      if (!seen || seen.size !== file.size || seen.mtime !== file.modifyTime) {
        this.#sightings.set(file.name, { size: file.size, mtime: file.modifyTime, since: now });
      } else if (now - seen.since >= folders.stableMs) {
        ready.push(file);
      }
    }
    for (const name of this.#sightings.keys()) if (!listed.has(name)) this.#sightings.delete(name);
    for (const name of this.#refusedNames) if (!refused.has(name)) this.#refusedNames.delete(name);
    ready.sort((a, b) => a.modifyTime - b.modifyTime || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const file of ready) {
      if (this.#stopped) return;
      await this.#take(file);
      this.#sightings.delete(file.name);
    }
  }

  /** Whether a listed name may be used; a refused one is logged the first time it is listed. */
  #isUsableName(name: string): boolean {
    const problem = remoteNameProblem(name);
    if (problem === undefined) return true;
    if (!this.#refusedNames.has(name)) {
      this.#refusedNames.add(name);
      this.#options.log.warn(
        { counterpartyId: this.#counterpartyId, outboxPath: this.#options.folders.outboxPath, name: JSON.stringify(name.slice(0, 300)), problem },
        `remote file not taken: its name is not a plain file name (${problem}); left on the server`,
      );
    }
    return false;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      if (!(this.#options.leases ?? soleProcessLeases).holds(remoteSftpLease(this.#counterpartyId))) {
        // Another process polls this server: what was seen here may be taken there meanwhile.
        this.#sightings.clear();
        this.#schedule(this.#options.folders.pollIntervalMs);
        return;
      }
      const health = this.#options.health;
      this.#polling = this.pollOnce()
        .then(() => {
          health?.report({ subject: this.#counterpartyId, channel: 'sftp', state: 'up' });
          this.#lastProblem = undefined;
        })
        .catch((error: unknown) => this.#pollFailed(error))
        .finally(() => {
          this.#polling = undefined;
          this.#schedule(this.#options.folders.pollIntervalMs);
        });
    }, delayMs);
  }

  /**
   * A failed poll shows the channel down with its cause. A connect failure was logged by
   * the session (once per kind); any other failure is logged here once until it changes
   * or a poll works, the repeats at debug.
   */
  #pollFailed(error: unknown): void {
    const cause = error instanceof SftpBackoffError && error.cause instanceof Error ? error.cause : error;
    const detail = cause instanceof Error ? cause.message : String(cause);
    this.#options.health?.report({ subject: this.#counterpartyId, channel: 'sftp', state: 'down', detail });
    const log = this.#options.log;
    if (this.#options.session.logged(error) || detail === this.#lastProblem) {
      log.debug({ counterpartyId: this.#counterpartyId, error: detail }, 'remote SFTP poll failed again; trying again');
      return;
    }
    this.#lastProblem = detail;
    log.warn({ err: error, counterpartyId: this.#counterpartyId }, 'remote SFTP poll failed; trying again, and logging this again only when it changes');
  }

  async #take(file: Listed): Promise<void> {
    const { folders, ledger, log } = this.#options;
    const version: RemoteFileVersion = {
      counterpartyId: this.#counterpartyId, remotePath: `${folders.outboxPath.replace(/\/$/, '')}/${file.name}`, size: file.size, mtime: file.modifyTime,
    };
    const fetched = await ledger.findFetched(version, file.name);
    if (fetched) {
      if (fetched.removed) return;
      // Found by its message alone when the gateway stopped before recording it: record it now.
      await ledger.recordFetched(version, fetched.messageId);
      await this.#remove(version, file.name, fetched.messageId);
      return;
    }
    const tooLarge = version.size > this.#options.maxFetchBytes;
    const receipt = tooLarge ? await this.#answerTooLarge(version, file.name) : await this.#fetch(version, file.name);
    if (receipt === undefined) return;
    await ledger.recordFetched(version, receipt.messageId);
    if (tooLarge) {
      log.warn(
        { counterpartyId: this.#counterpartyId, messageId: receipt.messageId, status: receipt.status, errorCode: receipt.errorCode, remotePath: version.remotePath, size: version.size, limit: this.#options.maxFetchBytes },
        'remote file over the size limit: answered without fetching it',
      );
    } else {
      log.info({ counterpartyId: this.#counterpartyId, messageId: receipt.messageId, status: receipt.status, remotePath: version.remotePath }, 'remote file taken');
    }
    await this.#remove(version, file.name, receipt.messageId);
  }

  /** Downloads the file and hands it to intake; undefined when it changed meanwhile (taken at a later poll). */
  async #fetch(version: RemoteFileVersion, name: string): Promise<IntakeReceipt | undefined> {
    const local = await this.#download(version);
    if (local === undefined) return undefined;
    let receipt: IntakeReceipt;
    let envelope: Envelope;
    try {
      envelope = this.#envelope(version, name, await this.#content(local, name));
      receipt = await this.#options.intake.receive(envelope);
    } catch (error) {
      await rm(local, { force: true });
      throw error;
    }
    if ('setAsidePath' in envelope.content && receipt.errorCode === 'DOCUMENT_TOO_LARGE') {
      await mkdir(dirname(envelope.content.setAsidePath), { recursive: true });
      await rename(local, envelope.content.setAsidePath);
    } else {
      await rm(local, { force: true });
    }
    return receipt;
  }

  /** A file listed over the limit: intake records and answers it by its listed size alone. */
  #answerTooLarge(version: RemoteFileVersion, name: string): Promise<IntakeReceipt> {
    return this.#options.intake.receive(this.#envelope(version, name, { notFetched: { sizeBytes: version.size, location: `sftp:${version.remotePath}` } }));
  }

  #envelope(version: RemoteFileVersion, name: string, content: Envelope['content']): Envelope {
    return {
      channel: 'sftp',
      counterpartyId: this.#counterpartyId,
      externalId: name,
      receivedAt: this.#options.clock(),
      content,
      metadata: { remotePath: version.remotePath, size: version.size, mtime: version.mtime },
    };
  }

  /** A recorded file that cannot leave the outbox must not hold up the files after it: the next poll tries again. */
  async #remove(version: RemoteFileVersion, name: string, messageId: string): Promise<void> {
    try {
      await this.#removeRemote(version, name, messageId);
    } catch (error) {
      this.#options.log.warn(
        { err: error, counterpartyId: this.#counterpartyId, messageId, remotePath: version.remotePath },
        'remote file recorded but not yet archived or deleted; trying again at the next poll',
      );
    }
  }

  /**
   * Downloads to the work folder, never more than the listed size (whatever the server
   * says when the file is opened); undefined when the remote file changed meanwhile
   * (taken at a later poll).
   */
  async #download(version: RemoteFileVersion): Promise<string | undefined> {
    const { session, workDir } = this.#options;
    const local = join(workDir, 'incoming', `${randomBytes(8).toString('hex')}.part`);
    const { remotePath, size, mtime } = version;
    const unchangedSince = (listed: { size: number; modifyTime: number }) => listed.size === size && listed.modifyTime === mtime;
    // ssh2 then reads exactly this many bytes instead of the size the server gives the open file.
    const options: SftpClient.FastGetTransferOptions & { readonly fileSize: number } = { concurrency: 4, fileSize: size };
    try {
      const unchanged = await session.run(`download ${remotePath}`, async (client) => {
        // Asking for bytes a file no longer has would be repeated until the timeout: a changed file waits.
        if (!unchangedSince(await client.stat(remotePath))) return false;
        if (size === 0) await writeFile(local, '');
        else await client.fastGet(remotePath, local, options);
        return unchangedSince(await client.stat(remotePath));
      });
      if (unchanged && (await stat(local)).size === size) return local;
      this.#options.log.info({ counterpartyId: this.#counterpartyId, remotePath: version.remotePath }, 'remote file changed while downloading; taken later');
    } catch (error) {
      await rm(local, { force: true });
      throw error;
    }
    await rm(local, { force: true });
    this.#sightings.delete(version.remotePath.slice(version.remotePath.lastIndexOf('/') + 1));
    return undefined;
  }

  /** The bytes; for a file over `maxDocumentBytes` (a custodian's report, which intake keeps) its path, and where it goes if intake refuses it. */
  async #content(local: string, name: string): Promise<Envelope['content']> {
    const { maxDocumentBytes, workDir, clock } = this.#options;
    const { size } = await stat(local);
    if (size <= maxDocumentBytes) return { bytes: await readFile(local) };
    return { path: local, setAsidePath: join(workDir, 'rejected', `${clock().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}-${name}`) };
  }

  /**
   * Moves a recorded file to the remote archive (or deletes it), then marks it removed.
   * One not fetched for its size stays in the outbox when there is no archive: the
   * gateway has no copy, so deleting it would lose it.
   */
  async #removeRemote(version: RemoteFileVersion, name: string, messageId: string): Promise<void> {
    const { session, folders, ledger, maxFetchBytes } = this.#options;
    const archive = folders.archivePath;
    if (archive === undefined && version.size > maxFetchBytes) return;
    if (archive === undefined) {
      await session.run(`delete ${version.remotePath}`, (client) => client.delete(version.remotePath, true));
    } else {
      const target = `${archive.replace(/\/$/, '')}/${messageId}-${name}`;
      await session.run(`archive ${version.remotePath}`, (client) => client.rename(version.remotePath, target));
    }
    await ledger.markRemoved(version);
  }
}
