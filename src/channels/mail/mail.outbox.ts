import { GatewayError } from '../../core/gateway-error.ts';
import type { OutboundChannel, OutgoingDocument } from '../outbound.ts';
import type { MailSender } from './mail-sender.ts';

/**
 * Delivers responses and outgoing documents by mail (the 'mail' outbound channel): the
 * document is attached under its deterministic file name to a mail sent through the
 * MailSender port.
 *
 * Invariants:
 * - An answer to a mail goes to that mail's sender, as a reply: "Re: <subject>",
 *   In-Reply-To its Message-ID and References its chain plus its id, so mail clients
 *   thread it. A document without a request mail goes to the counterparty's first
 *   configured address.
 * - The Message-ID is deterministic (`<message id>.<document type>@depot-gateway`): a
 *   repeated delivery (at-least-once) is the same mail, which receivers can recognise.
 * - Any failure throws DELIVERY_FAILED, which the deliver stage retries with backoff.
 */
export class MailOutbox implements OutboundChannel {
  readonly name = 'mail';
  readonly #sender: MailSender;
  readonly #addresses: ReadonlyMap<string, readonly string[]>;

  /** @param addresses counterparty id → its `mail.addresses`, the first being where unrequested documents go. */
  constructor(sender: MailSender, addresses: ReadonlyMap<string, readonly string[]>) {
    this.#sender = sender;
    this.#addresses = addresses;
  }

  async deliver(document: OutgoingDocument): Promise<{ target: string }> {
    const request = requestMail(document.requestMetadata);
    const to = request?.from ?? this.#addresses.get(document.counterpartyId)?.[0];
    if (to === undefined) {
      throw new GatewayError('DELIVERY_FAILED', `Counterparty ${document.counterpartyId} has no mail address.`, {
        details: { counterpartyId: document.counterpartyId, messageId: document.messageId },
      });
    }
    const messageId = `<${document.messageId}.${document.documentType}@depot-gateway>`;
    await this.#sender.send({
      to,
      subject: request ? replySubject(request.subject) : `${document.documentType} ${document.fileName}`,
      text: bodyText(document, request?.attachment),
      attachments: [{ fileName: document.fileName, content: document.body, contentType: 'application/xml' }],
      messageId,
      ...(request ? { inReplyTo: request.mailMessageId, references: request.references } : {}),
    });
    return { target: `${to} ${messageId}` };
  }
}

interface RequestMail {
  readonly mailMessageId: string;
  readonly from: string;
  readonly subject: string;
  readonly references: readonly string[];
  readonly attachment: string | undefined;
}

/** The request mail's facts from the metadata the mailbox watcher recorded, if the request came by mail. */
function requestMail(metadata: Readonly<Record<string, unknown>>): RequestMail | undefined {
  const { mailMessageId, from, subject, references, attachment } = metadata;
  if (typeof mailMessageId !== 'string' || typeof from !== 'string') return undefined;
  return {
    mailMessageId,
    from,
    subject: typeof subject === 'string' ? subject : '',
    references: Array.isArray(references) ? references.filter((r): r is string => typeof r === 'string') : [],
    attachment: typeof attachment === 'string' ? attachment : undefined,
  };
}

/** "Re: " once, however many times the thread has gone back and forth. */
export function replySubject(subject: string): string {
  const trimmed = subject.trim();
  return /^re:/i.test(trimmed) ? trimmed : `Re: ${trimmed}`.trim();
}

function bodyText(document: OutgoingDocument, attachment: string | undefined): string {
  const about = attachment ? `the answer to ${attachment}` : `the document ${document.documentType}`;
  return `Attached is ${about} (${document.fileName}).\n\nThis mail was sent by depot-gateway. Reference: ${document.messageId}.\n`;
}
