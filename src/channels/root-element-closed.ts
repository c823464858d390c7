/**
 * Whether an inbox file's bytes hold the end of an XML document: the end tag of the
 * root element its first bytes open (or a root written `<Root … />`). An upload still
 * running under its final name stops somewhere inside the root, so a file that fails
 * this is still being written, or was cut short (then it is malformed, and validation
 * says so). Whatever follows the root's end — whitespace, comments, or text that makes
 * the document malformed — does not matter: the document has ended.
 *
 * It reads the first and the last `EDGE_BYTES` only — for a large file two reads of a
 * few kilobytes, never the whole file — and parses nothing: a claim for the watcher's
 * patience, not a verdict on the document. A complete document always passes; a file
 * cut just after an inner element named like its root passes too (validation then
 * answers XML_MALFORMED, as before).
 *
 * A file that does not begin like XML (after an optional byte-order mark and
 * whitespace, its first character is not `<`) passes: there is nothing to wait for.
 *
 * @example rootElementClosed(Buffer.from('<a:Doc xmlns:a="urn:x"><b/></a:Doc>\n'), …) // true
 * @example rootElementClosed(Buffer.from('<Doc><Item>1</Item><It'), …) // false
 */

/** How much of each end of a file is looked at. */
export const EDGE_BYTES = 4096;

const NAME = '[A-Za-z_][\\w.-]*(?::[A-Za-z_][\\w.-]*)?';
/** The prolog's parts before the root: declaration, comments, processing instructions, a DOCTYPE. */
const PROLOG_PART = /^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>)/;
const ROOT_START = new RegExp(`^<(${NAME})(?=[\\s/>])`);
/** The rest of a start tag: attributes (quoted values may hold `>`), then `>` or `/>`. */
const START_TAG_REST = /^(?:[^"'>]|"[^"]*"|'[^']*')*?(\/?)>/;

/**
 * `head` is the file's first bytes and `tail` its last (the same bytes for a file of
 * at most `EDGE_BYTES`); `size` is the file's size.
 */
export function rootElementClosed(head: Uint8Array, tail: Uint8Array, size: number): boolean {
  if (size === 0) return false; // created, nothing written yet
  // latin1 keeps every byte one character: the names and marks looked for are ASCII, in UTF-8 as in latin1.
  const headText = latin1(head);
  let start = headText.replace(/^\u00ef\u00bb\u00bf/, '');
  if (/^[ \t\r\n]*[^<\s]/.test(start)) return true; // not XML: nothing to wait for
  for (let part = PROLOG_PART.exec(start); part; part = PROLOG_PART.exec(start)) start = start.slice(part[0].length);
  const root = ROOT_START.exec(start);
  if (!root) return false; // the root has not begun within the first bytes: still being written
  if (START_TAG_REST.exec(start.slice(root[0].length))?.[1] === '/') return true; // <Root … />: nothing follows
  return endTagIn(tail === head ? headText : latin1(tail), root[1] as string);
}

/** Whether `</name>` (spaces allowed before the `>`) occurs in `text`. */
function endTagIn(text: string, name: string): boolean {
  const opening = `</${name}`;
  for (let at = text.lastIndexOf(opening); at >= 0; at = at === 0 ? -1 : text.lastIndexOf(opening, at - 1)) {
    if (/^[ \t\r\n]*>/.test(text.slice(at + opening.length, at + opening.length + 64))) return true;
  }
  return false;
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}
