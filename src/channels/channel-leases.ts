/**
 * Which process reads a counterparty's inbox, remote folder or mailbox: one at a time.
 *
 * Several `watch` processes (on several hosts, sharing one inbox folder over a shared
 * file system, polling one remote SFTP folder, or reading one mailbox) would otherwise each take the same
 * file, and its sender would get a second answer (a DUPLICATE_DOCUMENT for its own
 * document) — and two readers of one inbox would record its files out of their order.
 * A reader works on a counterparty's folder only while its process holds that folder's
 * lease; the others stand by, and one of them takes the lease over when its holder
 * stops or dies. The lease is PostgreSQL's (src/ledger/postgres-leases.ts); with the
 * embedded database, which admits one process, every lease is held (`soleProcessLeases`).
 */
export interface ChannelLeases {
  /** Whether this process holds the lease `name` now (see `folderLease`, `remoteSftpLease`, `mailboxLease`). */
  holds(name: string): boolean;
  /** Called with a lease's name whenever this process takes it (true) or loses it (false). */
  onChange(listener: (name: string, held: boolean) => void): void;
}

/** The lease of a counterparty's local inbox folder. */
export const folderLease = (counterpartyId: string): string => `folder:${counterpartyId}`;
/** The lease of polling a counterparty's own SFTP server. */
export const remoteSftpLease = (counterpartyId: string): string => `sftp:${counterpartyId}`;

/** The lease of reading the gateway's mailbox (one IMAP user's folder on one server). */
export const mailboxLease = (imap: { readonly user: string; readonly host: string; readonly port: number; readonly mailbox: string }): string =>
  `mail:${imap.user}@${imap.host}:${imap.port}/${imap.mailbox}`;

/** A process that is the only one (the embedded database admits one): it holds every lease, always. */
export const soleProcessLeases: ChannelLeases = Object.freeze({
  holds: () => true,
  onChange: () => undefined,
});
