/**
 * A real SMTP server for the mail tests (the smtp-server package) on a free loopback
 * port: it keeps every mail it accepts, raw and parsed with mailparser. While
 * `refusing` is set it answers each mail with a temporary failure (451), as a relay
 * under load does, so a test can watch the gateway retry; an address in
 * `refusedRecipients` is refused for good (550 at RCPT TO), as a mailbox that does not exist.
 */
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { freePort } from './processes.ts';

export interface SinkMail {
  readonly raw: Buffer;
  readonly parsed: ParsedMail;
  readonly envelopeTo: readonly string[];
}

export interface SmtpSink {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly mails: SinkMail[];
  /** Mails refused while `refusing` was set. */
  refused: number;
  refusing: boolean;
  readonly refusedRecipients: Set<string>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const port = await freePort();
  const sink: SmtpSink = {
    host: '127.0.0.1',
    port,
    mails: [],
    refused: 0,
    refusing: false,
    refusedRecipients: new Set(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (sink.refusedRecipients.has(address.address)) return callback(Object.assign(new Error('5.1.1 no such mailbox'), { responseCode: 550 }));
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (sink.refusing) {
          sink.refused += 1;
          callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
          return;
        }
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (parsed) => {
            sink.mails.push({ raw, parsed, envelopeTo: session.envelope.rcptTo.map((r) => r.address) });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  server.on('error', () => undefined);
  return sink;
}
