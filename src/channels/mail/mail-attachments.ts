import { createHash } from 'node:crypto';
import type { ParsedMail } from 'mailparser';
import type { Envelope } from '../envelope.ts';
import { authenticateMail } from './mail-authentication.ts';

/**
 * Decides what one mail from the gateway's mailbox is: the XML documents it carries
 * for intake, one envelope per attachment, or the reason it is set aside. Pure: it
 * reads a parsed mail (mailparser's simpleParser) and the sender directory, and does
 * no I/O, so the mailbox watcher stays a thin IMAP loop around it.
 *
 * Invariants:
 * - The counterparty comes from the From address only (case-insensitive), never from
 *   anything in the attachment; an address belongs to at most one counterparty.
 * - The From address is believed only when the insurer's receiving server found the
 *   mail authentic for its domain (mail-authentication.ts), or when the counterparty's
 *   mail comes through a relay the insurer trusts (`mail.trustedRelay`).
 * - An envelope's external id is `<Message-ID>/<attachment file name>`, and it names
 *   the delivery (`externalIdNamesDelivery`): the same mail read again (after a crash
 *   or a failed move between intake and its move to the processed folder) gives the
 *   same ids and bytes, and intake recognises each attachment as the message it
 *   recorded then, with no new message and no second answer. Another document under
 *   an id already used is FILE_NAME_REUSED, and the same document in another mail a
 *   duplicate, as for any channel. A mail without a Message-ID gets a stable one made
 *   from the hash of its raw bytes.
 * - A mail is never dropped: it yields envelopes or a set-aside reason.
 */

/** What the gateway keeps of a parsed mail. */
export interface ReadMail {
  /** Message-ID with its angle brackets. */
  readonly messageId: string;
  /** The From address as written (its case kept for the reply). */
  readonly from: string | undefined;
  readonly subject: string;
  /** The References chain, oldest first. */
  readonly references: readonly string[];
  readonly attachments: readonly MailAttachment[];
  /** The values of the mail's Authentication-Results headers (RFC 8601), topmost first. */
  readonly authenticationResults: readonly string[];
}

export interface MailAttachment {
  readonly fileName: string | undefined;
  readonly contentType: string;
  readonly content: Uint8Array;
}

/** Why a mail went to the aside folder instead of intake. */
export type SetAsideReason = 'unknown-sender' | 'not-authenticated' | 'too-large' | 'no-xml-attachment' | 'unreadable';

export type MailPlan =
  | { readonly kind: 'intake'; readonly counterpartyId: string; readonly envelopes: readonly Envelope[] }
  | { readonly kind: 'aside'; readonly reason: SetAsideReason; readonly detail: string };

/** Lower-cased sender address → counterparty id. */
export type SenderDirectory = ReadonlyMap<string, string>;

/** How a mail's From address is believed. */
export interface MailTrust {
  /** The insurer's receiving server, whose Authentication-Results count (`mail.imap.authservId`). */
  readonly authservId?: string | undefined;
  /** Counterparties whose mail comes through a relay the insurer trusts (`mail.trustedRelay`): not checked. */
  readonly trustedRelay: ReadonlySet<string>;
}

/**
 * Builds the sender directory from the counterparties' `mail.addresses`. Throws a
 * plain Error naming the address when two counterparties claim the same one.
 */
export function buildSenderDirectory(counterparties: readonly { readonly id: string; readonly mail?: { readonly addresses: readonly string[] } | undefined }[]): SenderDirectory {
  const directory = new Map<string, string>();
  for (const counterparty of counterparties) {
    for (const address of counterparty.mail?.addresses ?? []) {
      const key = address.trim().toLowerCase();
      const owner = directory.get(key);
      if (owner !== undefined && owner !== counterparty.id) {
        throw new Error(`mail address ${address} is given for both ${owner} and ${counterparty.id}`);
      }
      directory.set(key, counterparty.id);
    }
  }
  return directory;
}

/** The parts of mailparser's result the gateway uses; `raw` gives a Message-ID when the mail has none. */
export function readParsedMail(parsed: ParsedMail, raw: Uint8Array): ReadMail {
  const references = parsed.references === undefined ? [] : Array.isArray(parsed.references) ? parsed.references : [parsed.references];
  return {
    messageId: parsed.messageId ?? fallbackMessageId(raw),
    from: parsed.from?.value.find((address) => address.address)?.address,
    subject: parsed.subject ?? '',
    references,
    authenticationResults: parsed.headerLines
      .filter((header) => header.key === 'authentication-results')
      .map((header) => header.line.slice(header.line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim()),
    attachments: parsed.attachments.map((attachment) => ({
      fileName: attachment.filename,
      contentType: attachment.contentType,
      content: attachment.content,
    })),
  };
}

/** A stable Message-ID for a mail that has none: the same bytes give the same id. */
export function fallbackMessageId(raw: Uint8Array): string {
  return `<sha256-${createHash('sha256').update(raw).digest('hex')}@depot-gateway.invalid>`;
}

/** An attachment is XML by its content type (application/xml, text/xml, …+xml) or a .xml name. */
export function isXmlAttachment(attachment: MailAttachment): boolean {
  const type = attachment.contentType.toLowerCase().split(';')[0]?.trim() ?? '';
  return type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml') || /\.xml$/i.test(attachment.fileName ?? '');
}

/** What to do with one mail: its XML attachments to intake, or set it aside and why. */
export function planMail(mail: ReadMail, senders: SenderDirectory, receivedAt: Date, trust: MailTrust): MailPlan {
  const counterpartyId = mail.from === undefined ? undefined : senders.get(mail.from.trim().toLowerCase());
  if (counterpartyId === undefined) {
    return { kind: 'aside', reason: 'unknown-sender', detail: `${mail.from ?? 'no From address'} is not the address of any counterparty` };
  }
  if (!trust.trustedRelay.has(counterpartyId)) {
    const authentication = trust.authservId === undefined
      ? { ok: false as const, detail: 'mail.imap.authservId is not set, so no mail can be authenticated' }
      : authenticateMail(mail.authenticationResults, mail.from, trust.authservId);
    if (!authentication.ok) return { kind: 'aside', reason: 'not-authenticated', detail: `${mail.from} is ${counterpartyId}'s address, but ${authentication.detail}` };
  }
  const documents = mail.attachments.filter(isXmlAttachment);
  if (documents.length === 0) {
    const found = mail.attachments.map((a) => `${a.fileName ?? 'unnamed'} (${a.contentType})`).join(', ');
    return { kind: 'aside', reason: 'no-xml-attachment', detail: found ? `no XML attachment, only ${found}` : 'no attachment' };
  }
  const names = attachmentNames(documents);
  const envelopes = documents.map((attachment, index): Envelope => {
    const name = names[index] ?? `attachment-${index + 1}.xml`;
    return {
      channel: 'mail',
      counterpartyId,
      externalId: `${mail.messageId}/${name}`,
      receivedAt,
      content: { bytes: attachment.content },
      externalIdNamesDelivery: true,
      // fileName names the response after the attachment, as for a file from a folder.
      metadata: { mailMessageId: mail.messageId, from: mail.from, subject: mail.subject, references: mail.references, attachment: name, fileName: name },
    };
  });
  return { kind: 'intake', counterpartyId, envelopes };
}

/** One distinct name per attachment: unnamed ones are numbered, a repeated name gets its position. */
function attachmentNames(attachments: readonly MailAttachment[]): string[] {
  const seen = new Set<string>();
  return attachments.map((attachment, index) => {
    let name = attachment.fileName?.trim() || `attachment-${index + 1}.xml`;
    if (seen.has(name)) name = `${name}#${index + 1}`;
    seen.add(name);
    return name;
  });
}
