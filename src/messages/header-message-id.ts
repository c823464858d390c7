/**
 * The sender's own MessageId, read from the start of a document's bytes without parsing
 * it: intake keys a document by it (per counterparty) before anything else has read the
 * document, so a document sent twice is recognised whatever its file name.
 *
 * Every request of the catalogue has a `Header` whose first child is `MessageId` (type
 * `Identifier`: 1 to 64 letters, digits or . _ : -). Only an id of that form found in
 * the first `HEAD_BYTES` is taken; anything else (not XML, no header, an id the schema
 * would refuse anyway) gives undefined, and the document has no MessageId key —
 * validation then says what is wrong with it. Comments, processing instructions and
 * CDATA are skipped, so an id mentioned in a comment is not taken for the header's.
 */

/** How much of a document is looked at: a header sits in its first few hundred bytes. */
export const HEAD_BYTES = 64 * 1024;

const IDENTIFIER = /^[A-Za-z0-9._:-]{1,64}$/;
const SKIPPED = /<!--[\s\S]*?(?:-->|$)|<\?[\s\S]*?(?:\?>|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)/g;
const HEADER_START = /<(?:[A-Za-z_][\w.-]*:)?Header(?:\s[^>]*)?>/;
const HEADER_END = /<\/(?:[A-Za-z_][\w.-]*:)?Header\s*>/;
const MESSAGE_ID = /^\s*<(?:[A-Za-z_][\w.-]*:)?MessageId\s*>([^<]*)<\/(?:[A-Za-z_][\w.-]*:)?MessageId\s*>/;

/** The header's MessageId in the document's first bytes, or undefined. */
export function readHeaderMessageId(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, HEAD_BYTES));
  // latin1 keeps every byte one character: the tags looked for are ASCII, in UTF-8 as in latin1.
  const text = head.toString('latin1').replace(SKIPPED, '');
  const start = HEADER_START.exec(text);
  if (!start) return undefined;
  const afterStart = text.slice(start.index + start[0].length);
  const end = HEADER_END.exec(afterStart);
  const header = end ? afterStart.slice(0, end.index) : afterStart;
  const id = MESSAGE_ID.exec(header)?.[1]?.trim();
  return id !== undefined && IDENTIFIER.test(id) ? id : undefined;
}
