/**
 * The port for mail the gateway sends: answers to counterparties that write to us by
 * e-mail, and notices to the insurer's operations team (late custodian reports). The
 * SMTP adapter (smtp.sender.ts) implements it; tests run it against a real SMTP server.
 */
export interface OutgoingMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly attachments?: readonly { readonly fileName: string; readonly content: string | Uint8Array; readonly contentType?: string }[];
  /** Message-ID of the mail this one answers: sets In-Reply-To and References, so mail clients thread it. */
  readonly inReplyTo?: string;
  /** The earlier chain of Message-IDs of the thread, oldest first (the answered mail's own References). */
  readonly references?: readonly string[];
  /**
   * A Message-ID for this mail, so a repeated send of the same answer carries the same
   * id (receivers and our records can tell it is the same mail). Generated when absent.
   */
  readonly messageId?: string;
}

export interface MailSender {
  /** Hands the mail to the SMTP server; resolves with its Message-ID once the server accepted it. */
  send(mail: OutgoingMail): Promise<{ messageId: string }>;
  close(): Promise<void>;
}

/** The same sender, telling `onFailure` of every mail the SMTP server did not take (the metrics' connection failures). */
export function observingSendFailures(sender: MailSender, onFailure: (error: unknown) => void): MailSender {
  return {
    async send(mail) {
      try {
        return await sender.send(mail);
      } catch (error) {
        onFailure(error);
        throw error;
      }
    },
    close: () => sender.close(),
  };
}
