/**
 * What to tell the operator when a mail server connection fails because `secure` does
 * not match the port: TLS asked of a port that speaks plain text first (25, 587, 143),
 * or plain text sent to a port that expects TLS from the first byte (465, 993). The
 * libraries' own errors ("wrong version number", "Greeting never received") do not say
 * which setting to change. Undefined when the error is something else.
 */
export function tlsMismatchHint(error: unknown, setting: string, connection: { readonly port: number; readonly secure: boolean }): string | undefined {
  const text = `${(error as { code?: unknown })?.code ?? ''} ${error instanceof Error ? error.message : String(error)}`;
  const tlsPort = connection.port === 465 || connection.port === 993;
  if (connection.secure && /wrong version number|packet length too long|unknown protocol|record layer failure|EPROTO/i.test(text)) {
    return `${setting}: secure is true (TLS from the first byte) but port ${connection.port} answers in plain text; set secure: false — STARTTLS is used when the server offers it — or use the server's TLS port (465 for SMTP, 993 for IMAP)`;
  }
  if (!connection.secure && tlsPort && /greeting|timed? ?out|ETIMEDOUT|unexpected close|ECONNRESET|socket closed/i.test(text)) {
    return `${setting}: port ${connection.port} usually speaks TLS from the first byte, but secure is false; set secure: true for it`;
  }
  return undefined;
}
