import { SaxesParser } from 'saxes';
import type { ErrorCode } from '../core/error-codes.ts';
import type { XmlElement } from './xml-element.ts';

/**
 * The first look at a document's bytes, before libxml sees them. In one streaming
 * pass it refuses what must never reach a parser — bytes that are not UTF-8, DTDs,
 * entity declarations (external entities, "billion laughs"), nesting past the cap,
 * more attributes than an element or a document may have, text that is not
 * well-formed — each with its own code, and it builds the element
 * tree the handlers read. Nothing here fetches, expands or recurses without bound.
 * Every document goes through this one saxes pass: a second, hand-written reader for
 * plain documents saved 10–20 µs per 2 KB document, not worth a second parser to keep
 * exactly as strict as this one.
 */
export interface XmlGateLimits {
  readonly maxDepth: number;
  /**
   * Attributes one element may carry (default 64). libxml2 checks an element's
   * attributes for duplicates pair by pair, so its time grows with the square of their
   * number: 200,000 attributes on one element held the validation thread for 72 s.
   */
  readonly maxAttributesPerElement?: number;
  /** Attributes the whole document may carry (default 250,000: a full-size document of items with one attribute each passes). */
  readonly maxAttributesPerDocument?: number;
}

/** The attribute caps where a caller names none (the same as the `limits.*` defaults). */
export const DEFAULT_MAX_ATTRIBUTES_PER_ELEMENT = 64;
export const DEFAULT_MAX_ATTRIBUTES_PER_DOCUMENT = 250_000;

export interface GateRejection {
  readonly ok: false;
  readonly code: ErrorCode;
  readonly text: string;
  readonly line?: number;
}

export interface GatePass {
  readonly ok: true;
  /** The document as text (UTF-8 decoded, byte-order mark removed). */
  readonly text: string;
  readonly root: XmlElement;
}

const ACCEPTED_ENCODINGS = new Set(['utf-8', 'utf8', 'us-ascii', 'ascii']);
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Stops the parse from inside a handler with a classified rejection. */
class Stop extends Error {
  constructor(readonly rejection: GateRejection) {
    super(rejection.text);
  }
}

export function inspectXml(bytes: Uint8Array, limits: XmlGateLimits): GateRejection | GatePass {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return reject('XML_ENCODING_INVALID', `The bytes are not valid UTF-8${firstInvalidUtf8(bytes)}. Send UTF-8 encoded XML.`);
  }
  if (text.trim() === '') return reject('DOCUMENT_EMPTY', 'The document has no content.');
  const declared = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
  if (declared && !ACCEPTED_ENCODINGS.has(declared.toLowerCase())) {
    return reject('XML_ENCODING_INVALID', `The XML declaration names encoding "${declared}"; only UTF-8 is accepted.`);
  }
  try {
    return { ok: true, text, root: parseTree(text, limits) };
  } catch (error) {
    if (error instanceof Stop) return error.rejection;
    const message = (error as Error).message;
    const position = /^(\d+):(\d+):/.exec(message);
    return reject('XML_MALFORMED', message.replace(/^\d+:\d+:\s*/, ''), position ? Number(position[1]) : undefined);
  }
}

function parseTree(text: string, limits: XmlGateLimits): XmlElement {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const perElement = limits.maxAttributesPerElement ?? DEFAULT_MAX_ATTRIBUTES_PER_ELEMENT;
  const perDocument = limits.maxAttributesPerDocument ?? DEFAULT_MAX_ATTRIBUTES_PER_DOCUMENT;
  let elementAttributes = 0;
  let documentAttributes = 0;

  parser.on('doctype', (doctype) => {
    throw new Stop(classifyDoctype(doctype, parser.line));
  });
  // Counted as each attribute is read, so a flood is refused at its first attribute too many.
  parser.on('opentagstart', () => {
    elementAttributes = 0;
  });
  parser.on('attribute', () => {
    elementAttributes += 1;
    documentAttributes += 1;
    if (elementAttributes > perElement) {
      throw new Stop(reject('XML_TOO_MANY_ATTRIBUTES', `An element has more than ${perElement} attributes.`, parser.line));
    }
    if (documentAttributes > perDocument) {
      throw new Stop(reject('XML_DOCUMENT_TOO_MANY_ATTRIBUTES', `The document has more than ${perDocument} attributes.`, parser.line));
    }
  });
  parser.on('opentag', (tag) => {
    if (stack.length >= limits.maxDepth) {
      throw new Stop(reject('XML_TOO_DEEP', `Elements nest deeper than ${limits.maxDepth} levels.`, parser.line));
    }
    const attrs: Record<string, string> = {};
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.prefix !== 'xmlns' && attribute.name !== 'xmlns') attrs[attribute.local] = attribute.value;
    }
    const element: XmlElement = { name: tag.local, ns: tag.uri, attrs, children: [], text: '', line: parser.line };
    const parent = stack.at(-1);
    if (parent) parent.children.push(element);
    else root = element;
    if (!tag.isSelfClosing) stack.push(element);
  });
  parser.on('closetag', (tag) => {
    if (!tag.isSelfClosing) stack.pop();
  });
  parser.on('text', (chunk) => {
    const current = stack.at(-1);
    if (current && current.children.length === 0) current.text += chunk;
  });
  parser.on('cdata', (chunk) => {
    const current = stack.at(-1);
    if (current) current.text += chunk;
  });
  parser.on('error', (error) => {
    throw error;
  });
  parser.write(text).close();
  if (!root) throw new Error('1:1: the document has no root element');
  return root;
}

export function classifyDoctype(doctype: string, line: number): GateRejection {
  if (/<!ENTITY\s+(%\s+)?\S+\s+(SYSTEM|PUBLIC)\b/i.test(doctype)) {
    return reject('XML_EXTERNAL_ENTITY', 'The document declares an external entity; external entities are never resolved.', line);
  }
  if (/<!ENTITY/i.test(doctype)) {
    return reject('XML_ENTITY_EXPANSION', 'The document declares entities; entity declarations are not accepted.', line);
  }
  return reject('XML_DTD_FORBIDDEN', 'The document has a document type declaration (<!DOCTYPE>); DTDs are not accepted.', line);
}

export function reject(code: ErrorCode, text: string, line?: number): GateRejection {
  return line === undefined ? { ok: false, code, text } : { ok: false, code, text, line };
}

/** " at byte N" for the first byte sequence that is not UTF-8, to help the sender find it. */
function firstInvalidUtf8(bytes: Uint8Array): string {
  const probe = new TextDecoder('utf-8', { fatal: true });
  let low = 0;
  let high = bytes.length;
  // Binary search for the shortest prefix that fails to decode.
  while (low < high) {
    const middle = (low + high) >>> 1;
    try {
      probe.decode(bytes.subarray(0, middle + 1), { stream: true });
      low = middle + 1;
    } catch {
      high = middle;
    }
  }
  if (low >= bytes.length) return '';
  // The decoder notices a bad sequence at the byte that breaks it; report where it began.
  let start = low;
  while (start > 0 && low - start < 3 && ((bytes[start - 1] ?? 0) & 0xc0) === 0x80) start -= 1;
  if (start > 0 && ((bytes[start - 1] ?? 0) & 0xc0) === 0xc0) start -= 1;
  return ` at byte ${start}`;
}
