import type { ErrorCode } from '../core/error-codes.ts';
import type { UnmovedInboxFile } from '../ledger/messages/inbox-files.repository.ts';

/**
 * What a channel hands to intake: who sent which bytes, by which way, under which
 * external id (file name, Message-ID, SSEK TxId …). Channels never parse business XML.
 */
export interface Envelope {
  /** The channel the document came by: 'folder', 'rest', 'cli', later 'sftp', 'mail', 'ssek'. */
  readonly channel: string;
  /** Configured counterparty id, as the channel authenticated it. */
  readonly counterpartyId: string;
  /** The sender's identity of this delivery; the same counterparty + external id twice is a duplicate. */
  readonly externalId: string;
  readonly receivedAt: Date;
  /**
   * The bytes, or a file the bytes are in, or only the size of a document the channel
   * would not fetch. A file larger than the size limit is never read into memory:
   * intake hashes it as a stream and records `setAsidePath`, where the channel promises
   * to keep it. A document announced over the limit (`notFetched`: a remote SFTP listing
   * gave its size) is answered DOCUMENT_TOO_LARGE without its bytes; `location` names
   * where its sender offered it.
   */
  readonly content:
    | { readonly bytes: Uint8Array }
    | { readonly path: string; readonly setAsidePath: string }
    | { readonly notFetched: { readonly sizeBytes: number; readonly location: string } };
  /** Channel facts kept with the message (file name, reply address …). */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * The bytes are a file (named by the external id) that stays in the sender's inbox
   * until intake has recorded it and the channel has moved it out, which the channel
   * reports with `IntakePort.inboxFilesMoved`. Until then, the same file offered again
   * (same name, size and content) is this delivery, not a re-send: intake records and
   * answers nothing new for it.
   */
  readonly inboxFile?: boolean;
  /**
   * The external id is the key of this one delivery: SSEK's TxId, which its sender sends
   * again unchanged when it did not get the answer, or a mail's Message-ID and attachment
   * name, which the mailbox watcher reads again when it stopped between intake and moving
   * the mail out of the mailbox. Offered again under that key
   * with the same content, the envelope is that delivery: intake records and answers
   * nothing new, and gives the receipt of the message recorded the first time
   * (`recordedBefore`) — an original, a duplicate or a rejection. With other content it
   * is recorded FILE_NAME_REUSED. Such envelopes are recorded each in a transaction of
   * its own under a lock on the key, so one delivery offered several times at once is
   * recorded once.
   */
  readonly externalIdNamesDelivery?: true;
}

/** Intake's answer, given only after the message is durably recorded. */
export interface IntakeReceipt {
  readonly messageId: string;
  /** received: queued for processing; duplicate / rejected: answered at once, not processed. */
  readonly status: 'received' | 'duplicate' | 'rejected';
  readonly duplicateOf?: string;
  readonly errorCode?: ErrorCode;
  /**
   * Nothing new was recorded or answered: the envelope is a delivery recorded before as
   * `messageId` — an inbox file whose move out of the inbox was never recorded (a stop or
   * a failed move in between), or an envelope with `externalIdNamesDelivery` sent again.
   * `status` and `errorCode` are those intake gave it then.
   */
  readonly recordedBefore?: true;
}

/** What intake made of one envelope of a batch: its receipt, or why it could not be recorded. */
export type IntakeOutcome = { readonly receipt: IntakeReceipt } | { readonly error: unknown };

/** The only door into the gateway. */
export interface IntakePort {
  receive(envelope: Envelope): Promise<IntakeReceipt>;
  /**
   * Records several envelopes at once, in the given order (documents for the same
   * agreement are applied in that order), with one statement for the common case.
   * One envelope's failure does not fail the others. Optional for a port that takes
   * one envelope at a time: channels then call `receive` for each, in order.
   */
  receiveMany?(envelopes: readonly Envelope[]): Promise<IntakeOutcome[]>;
  /** The files of these messages (envelopes with `inboxFile`) have left the inbox. */
  inboxFilesMoved?(messageIds: readonly string[]): Promise<void>;
  /**
   * The recorded inbox files of these counterparties whose leaving the inbox is not
   * recorded yet: the channel records those no longer in their inbox (a stop between the
   * move and its record left them).
   */
  unmovedInboxFiles?(counterpartyIds: readonly string[]): Promise<readonly UnmovedInboxFile[]>;
  /**
   * The file of this message could not be moved out of the inbox. Records it for staff
   * (an event on the message) the first time; true then, so the channel reports it once.
   */
  inboxFileNotMoved?(messageId: string, reason: string): Promise<boolean>;
  /** The file of this message grew after it was taken (its sender was still writing it): an event on the message for staff. */
  inboxFileGrew?(messageId: string, sizes: { readonly bytesRead: number; readonly sizeNow: number }): Promise<void>;
}
