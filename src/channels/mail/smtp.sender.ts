import nodemailer from 'nodemailer';
import { GatewayError } from '../../core/gateway-error.ts';
import type { MailSender, OutgoingMail } from './mail-sender.ts';
import { tlsMismatchHint } from './tls-mismatch.ts';

/** The `mail.smtp` settings: the insurer's SMTP relay. */
export interface SmtpSettings {
  readonly host: string;
  readonly port: number;
  /** true: TLS from the first byte (port 465); false: STARTTLS when the server offers it. */
  readonly secure: boolean;
  readonly user?: string | undefined;
  readonly password?: string | undefined;
  /** Sender address of every mail the gateway sends. */
  readonly from: string;
  readonly timeoutMs: number;
}

/**
 * Sends mail through an SMTP server with nodemailer, one pooled connection. A refusal
 * or an unreachable server is DELIVERY_FAILED (retryable): the caller's job retries.
 */
export function createSmtpSender(settings: SmtpSettings): MailSender {
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    pool: true,
    maxConnections: 2,
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs,
    ...(settings.user ? { auth: { user: settings.user, pass: settings.password ?? '' } } : {}),
  });
  return {
    async send(mail: OutgoingMail) {
      try {
        const info = await transport.sendMail({
          from: settings.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          ...(mail.messageId ? { messageId: mail.messageId } : {}),
          ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo, references: [...(mail.references ?? []), mail.inReplyTo] } : {}),
          attachments: (mail.attachments ?? []).map((a) => ({
            filename: a.fileName,
            content: typeof a.content === 'string' ? a.content : Buffer.from(a.content),
            contentType: a.contentType ?? 'application/xml',
          })),
        });
        return { messageId: info.messageId };
      } catch (error) {
        const hint = tlsMismatchHint(error, 'mail.smtp', settings);
        throw new GatewayError('DELIVERY_FAILED', `SMTP server ${settings.host}:${settings.port} did not take the mail to ${mail.to}: ${hint ?? (error as Error).message}`, { cause: error });
      }
    },
    async close() {
      transport.close();
    },
  };
}
