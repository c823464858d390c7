/**
 * Mail as a counterparty's mail client writes it and the insurer's receiving server
 * stores it, for the mailbox tests (put into the Dovecot test server with IMAP APPEND).
 */
import { randomBytes } from 'node:crypto';
import { changeFee, PERSONS } from './documents.ts';

/** The gateway's own address. */
export const GATEWAY = 'documents@insurer.example';

/** The insurer's receiving server, whose Authentication-Results the gateway believes. */
export const RECEIVING_SERVER = 'mx.insurer.example';

export interface Attachment {
  readonly name: string;
  readonly contentType: string;
  readonly body: string;
}

/** What the receiving server found of a mail from `from`: SPF, DKIM and DMARC passed for its domain. */
export function passedFor(from: string): string {
  const domain = from.split('@')[1];
  return `${RECEIVING_SERVER}; spf=pass smtp.mailfrom=${from}; dkim=pass header.d=${domain} header.s=mail; dmarc=pass (p=reject) header.from=${domain}`;
}

/**
 * A literal RFC 822 mail with base64 attachments, as a mail client sends it and the
 * insurer's receiving server stores it: with its Authentication-Results on top
 * (`authenticationResults: null` for none).
 */
export function composeMail(fields: { from: string; messageId: string; subject: string; references?: string; attachments: readonly Attachment[]; authenticationResults?: string | null }): string {
  const boundary = `b-${randomBytes(6).toString('hex')}`;
  const parts = [
    `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHej, here is this month's file.\r\n`,
    ...fields.attachments.map((a) => {
      const base64 = Buffer.from(a.body).toString('base64').replace(/.{76}/g, '$&\r\n');
      return `--${boundary}\r\nContent-Type: ${a.contentType}; name="${a.name}"\r\nContent-Disposition: attachment; filename="${a.name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64}\r\n`;
    }),
  ];
  const results = fields.authenticationResults === undefined ? passedFor(fields.from) : fields.authenticationResults;
  return [
    ...(results === null ? [] : [`Authentication-Results: ${results}`]),
    `From: Employer HR <${fields.from}>`,
    `To: ${GATEWAY}`,
    `Subject: ${fields.subject}`,
    `Message-ID: ${fields.messageId}`,
    ...(fields.references ? [`References: ${fields.references}`] : []),
    'Date: Sun, 22 Nov 2026 10:00:00 +0100',
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `${parts.join('')}--${boundary}--`,
    '',
  ].join('\r\n');
}

/** A ChangeFee document with one capital charge, attached under its MessageId in lower case. */
export function fees(messageId: string, insurance = 'INS-100001', value = '0.25', pin: string = PERSONS.anna): Attachment {
  return { name: `${messageId.toLowerCase()}.xml`, contentType: 'application/xml', body: changeFee({ messageId }, [{ pin, insurance, date: '2026-12-01', type: 'CapitalCharge', value }]) };
}
