import { join } from 'node:path';
import type { IntakePort } from '../envelope.ts';
import { RemoteSftpOutbox } from './remote-sftp.outbox.ts';
import { RemoteSftpPoller, type RemoteFileLedger, type RemoteSftpFolders } from './remote-sftp.poller.ts';
import { SftpSession, type SftpEndpoint, type SftpSessionLog } from './sftp-session.ts';
import type { ChannelHealth } from '../channel-health.ts';
import type { ChannelLeases } from '../channel-leases.ts';

/**
 * The remote SFTP channel: counterparties that host their own SFTP server. It holds one
 * session per such counterparty, shared by the outbound channel ('sftp', registered
 * with the delivery router in every role that delivers) and the pollers (role `watch`).
 *
 * Invariants kept by its parts:
 * - The server is trusted only with its pinned host key; connections are reused and
 *   reopened with backoff (SftpSession).
 * - Nothing leaves a remote outbox before intake has recorded it, and nothing is
 *   fetched twice, across restarts (RemoteSftpPoller, `remote_files`); of several
 *   `watch` processes one polls a server at a time (its lease).
 * - Pushed files appear complete or not at all (RemoteSftpOutbox).
 */

/** A counterparty's `sftp` settings (config `counterparties[].sftp`). */
export interface RemoteSftpSettings extends SftpEndpoint, RemoteSftpFolders {
  readonly inboxPath: string;
}

export interface RemoteSftpChannelOptions {
  /** Counterparties with their role and `sftp` settings; those without `sftp` are left out. */
  readonly counterparties: readonly { readonly id: string; readonly role: string; readonly sftp?: RemoteSftpSettings | undefined }[];
  readonly log: SftpSessionLog;
}

export interface RemoteSftpPollingOptions {
  readonly intake: IntakePort;
  readonly ledger: RemoteFileLedger;
  /** Downloads go to `<workDir>/<counterparty>/`. */
  readonly workDir: string;
  /** limits.maxDocumentBytes: larger documents are downloaded to disk, never read into memory. */
  readonly maxDocumentBytes: number;
  /** limits.maxReportBytes: a custodian's larger files are not downloaded (the others' over maxDocumentBytes are not). */
  readonly maxReportBytes: number;
  readonly clock: () => Date;
  /** Where each poller reports whether its server answers. */
  readonly health?: ChannelHealth | undefined;
  /** Which servers this process may poll now (`remoteSftpLease`). Default: every one. */
  readonly leases?: ChannelLeases | undefined;
}

export class RemoteSftpChannel {
  /** The outbound channel 'sftp'. */
  readonly outbox: RemoteSftpOutbox;
  readonly #sessions = new Map<string, { readonly session: SftpSession; readonly settings: RemoteSftpSettings; readonly role: string }>();
  readonly #pollers: RemoteSftpPoller[] = [];
  readonly #log: SftpSessionLog;

  constructor(options: RemoteSftpChannelOptions) {
    this.#log = options.log;
    for (const { id, role, sftp } of options.counterparties) {
      if (sftp) this.#sessions.set(id, { session: new SftpSession({ counterpartyId: id, endpoint: sftp, log: options.log }), settings: sftp, role });
    }
    this.outbox = new RemoteSftpOutbox(new Map([...this.#sessions].map(([id, { session, settings }]) => [id, { session, inboxPath: settings.inboxPath }])));
  }

  /** Whether any counterparty has an SFTP server. */
  get configured(): boolean {
    return this.#sessions.size > 0;
  }

  /** Starts one poller per counterparty with an SFTP server. */
  async startPolling(options: RemoteSftpPollingOptions): Promise<void> {
    for (const [id, { session, settings, role }] of this.#sessions) {
      const poller = new RemoteSftpPoller({
        session, folders: settings, intake: options.intake, ledger: options.ledger, workDir: join(options.workDir, id),
        maxDocumentBytes: options.maxDocumentBytes,
        // What intake keeps of a counterparty: a custodian's report up to maxReportBytes, any other document up to maxDocumentBytes.
        maxFetchBytes: role === 'custodian' ? options.maxReportBytes : options.maxDocumentBytes,
        clock: options.clock, log: this.#log, health: options.health, leases: options.leases,
      });
      await poller.start();
      this.#pollers.push(poller);
    }
  }

  /** Stops the pollers, waiting for a poll in progress. */
  async stopPolling(): Promise<void> {
    await Promise.all(this.#pollers.splice(0).map((poller) => poller.stop()));
  }

  /** Stops the pollers, then ends every connection. */
  async close(): Promise<void> {
    await this.stopPolling();
    await Promise.all([...this.#sessions.values()].map(({ session }) => session.close()));
  }
}
