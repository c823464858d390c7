/**
 * The port the deliver stage sends responses and outgoing documents through. Each
 * channel that can answer (folder outbox, remote SFTP, SMTP, SSEK push) implements it.
 * Delivery is at-least-once: the file name is deterministic, so a repeat overwrites
 * the same file instead of adding a second one.
 */
export interface OutgoingDocument {
  /** The message this document answers (or the outgoing document's own id). */
  readonly messageId: string;
  readonly counterpartyId: string;
  /** Root element of the document, e.g. ChangeFeeResponse. */
  readonly documentType: string;
  /** Deterministic file name, e.g. salary-2026-11.01J…SalaryAdjustmentResponse.xml. */
  readonly fileName: string;
  readonly body: string;
  /** The request's channel metadata (file name, Message-ID …), for threading a reply. */
  readonly requestMetadata: Readonly<Record<string, unknown>>;
}

/** Where one document of a batch went, or why it could not. */
export type DeliveryOutcome = { readonly target: string } | { readonly error: unknown };

export interface OutboundChannel {
  /** Channel name as used in delivery records and routes: 'folder', 'sftp', 'mail' … */
  readonly name: string;
  /** Delivers the document; resolves with where it went, throws when it could not. */
  deliver(document: OutgoingDocument): Promise<{ target: string }>;
  /**
   * Delivers several documents at once, for a channel that does that for less than one
   * delivery each; gives each its outcome, in order. One document's failure does not
   * fail the others. Optional: the deliver stage calls `deliver` for each otherwise.
   */
  deliverMany?(documents: readonly OutgoingDocument[]): Promise<DeliveryOutcome[]>;
}

/** The documents through `deliverMany` when the channel has it, else `deliver` each, side by side; each gets its outcome, in order. */
export function deliverAll(channel: OutboundChannel, documents: readonly OutgoingDocument[]): Promise<DeliveryOutcome[]> {
  if (channel.deliverMany) return channel.deliverMany(documents);
  return Promise.all(documents.map((document) => channel.deliver(document).then(({ target }) => ({ target }), (error: unknown) => ({ error }))));
}
