/** A root element sits in a document's first few hundred bytes, after its prolog. */
const ROOT_BYTES = 4096;
const SKIPPED = /<!--[\s\S]*?(?:-->|$)|<\?[\s\S]*?(?:\?>|$)|<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>?/g;
const ELEMENT_START = /<(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)[\s/>]/;

/**
 * The local name of a document's root element, read from its first bytes without
 * parsing it: intake labels what it receives by type (the metrics) before validation has
 * looked. A claim only — validation decides the type — and undefined when no element
 * start is found (not XML, or a prolog longer than ROOT_BYTES).
 */
export function readRootElement(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, ROOT_BYTES));
  // latin1 keeps every byte one character: the names looked for are ASCII, in UTF-8 as in latin1.
  return ELEMENT_START.exec(head.toString('latin1').replace(SKIPPED, ''))?.[1];
}
