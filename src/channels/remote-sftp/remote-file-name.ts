/**
 * Which names a counterparty's SFTP server may list for the gateway to use. The server
 * is the counterparty's, not ours: a name it lists goes into local paths (the work
 * folder), remote paths (the archive move) and logs, so only a plain file name is used,
 * and anything else is left on the server untouched.
 */

/**
 * The longest name taken, in UTF-8 bytes: 255 (the limit of common file systems) less
 * room for the prefixes the gateway adds to it — `<messageId>-` in the remote archive,
 * a time and a random tag in the work folder.
 */
export const MAX_REMOTE_NAME_BYTES = 200;

/**
 * Why a listed name cannot be used as a file name, or undefined when it can. Refused:
 * an empty name, `.` and `..`, a name holding `/` or `\` (a path, on the server or
 * here), a control character (NUL, a line break, an escape …: they forge paths and
 * log lines) or more than MAX_REMOTE_NAME_BYTES bytes.
 *
 * @example remoteNameProblem('fees-2026-11.xml') // undefined
 * @example remoteNameProblem('../fees.xml') // 'it holds a path separator'
 */
export function remoteNameProblem(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..') return 'it is not a file name';
  if (/[/\\]/.test(name)) return 'it holds a path separator';
  if (/\p{Cc}/u.test(name)) return 'it holds a control character';
  if (Buffer.byteLength(name, 'utf8') > MAX_REMOTE_NAME_BYTES) return `it is longer than ${MAX_REMOTE_NAME_BYTES} bytes`;
  return undefined;
}
