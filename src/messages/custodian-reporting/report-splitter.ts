import type { ErrorCode } from '../../core/error-codes.ts';
import type { XmlElement } from '../xml-element.ts';
import { inspectXml, reject, type GateRejection } from '../xml-gate.ts';

/**
 * Splits a streamed custodian report into its preamble (the root's start tag and what
 * comes before the first record: the header and the as-of date) and its records (one
 * `<Account>` each), as the bytes arrive. Memory holds the records of one chunk.
 *
 * It is a scanner, not a parser: it follows tags, comments, CDATA and processing
 * instructions far enough to know where each child of the root begins and ends, and
 * hands over each record as the sender's own text. The XML inside a record is parsed
 * by libxml2 when its batch is validated (report-batch.validator.ts): a record that is
 * not well-formed rejects its account, not the report. What the scanner itself refuses
 * rejects the whole document, with the XML gate's codes: bytes that are not UTF-8,
 * another declared encoding, a DTD (so no entity can ever be declared), a preamble the
 * gate refuses, and a document that ends before its root element is closed.
 */
export interface ReportRecord {
  /** The record's text exactly as sent, from `<Account` to its end tag. */
  readonly text: string;
  /** Line of the sender's file where the record begins. */
  readonly line: number;
}

export interface ReportPreamble {
  /** The root's start tag as sent (with its namespace declarations). */
  readonly rootStartTag: string;
  /** The root's qualified name, for its end tag. */
  readonly rootQName: string;
  /** Text between the root's start tag and the first record. */
  readonly text: string;
  /** Line of the root's start tag. */
  readonly line: number;
  /** The preamble parsed by the XML gate: the root with Header, AsOfDate … */
  readonly root: XmlElement;
}

export type ReportChunk = { readonly kind: 'preamble'; readonly preamble: ReportPreamble } | { readonly kind: 'record'; readonly record: ReportRecord };

/** The report cannot be read on: the whole document is rejected with this code. */
export class ReportRejected extends Error {
  constructor(readonly rejection: GateRejection) {
    super(rejection.text);
  }

  get code(): ErrorCode {
    return this.rejection.code;
  }
}

export interface SplitOptions {
  /** Local name of a record element, a child of the root. */
  readonly recordName: string;
  readonly maxDepth: number;
  /** Stop after the preamble (enough to learn the header). */
  readonly preambleOnly?: boolean;
}

const ACCEPTED_ENCODINGS = new Set(['utf-8', 'utf8', 'us-ascii', 'ascii']);
const LT = 60; // <

/** Yields the preamble once, then each record in document order. */
export async function* splitReport(source: AsyncIterable<Uint8Array>, options: SplitOptions): AsyncGenerator<ReportChunk> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const scanner = new Scanner(options);
  for await (const bytes of source) {
    let text: string;
    try {
      text = decoder.decode(bytes, { stream: true });
    } catch {
      throw new ReportRejected(reject('XML_ENCODING_INVALID', `The bytes are not valid UTF-8 (after line ${scanner.line}). Send UTF-8 encoded XML.`));
    }
    yield* scanner.push(text);
    if (options.preambleOnly && scanner.preambleSent) return;
  }
  try {
    decoder.decode();
  } catch {
    throw new ReportRejected(reject('XML_ENCODING_INVALID', 'The bytes end inside a UTF-8 character.'));
  }
  yield* scanner.end();
}

class Scanner {
  readonly #options: SplitOptions;
  readonly #recordPattern: RegExp;
  /** Text not yet consumed; it always starts at a clean point (between children of the root, or before the root). */
  #buffer = '';
  /** Line at the start of the buffer. */
  line = 1;
  #rootStartTag: string | undefined;
  #rootQName = '';
  #rootLine = 1;
  #preambleText = '';
  #rootClosed = false;
  #first = true;
  preambleSent = false;

  constructor(options: SplitOptions) {
    this.#options = options;
    this.#recordPattern = new RegExp(`^(?:[A-Za-z_][\\w.-]*:)?${options.recordName}$`);
  }

  *push(text: string): Generator<ReportChunk> {
    if (this.#first) {
      this.#first = false;
      const declared = /^\uFEFF?\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
      if (declared && !ACCEPTED_ENCODINGS.has(declared.toLowerCase())) {
        throw new ReportRejected(reject('XML_ENCODING_INVALID', `The XML declaration names encoding "${declared}"; only UTF-8 is accepted.`));
      }
    }
    this.#buffer = this.#buffer ? this.#buffer + text : text;
    yield* this.#scan(false);
  }

  *end(): Generator<ReportChunk> {
    yield* this.#scan(true);
    if (!this.#rootStartTag) throw new ReportRejected(reject('DOCUMENT_EMPTY', 'The document has no root element.'));
    if (!this.#rootClosed) {
      throw new ReportRejected(reject('XML_MALFORMED', `The document ends before </${this.#rootQName}> (an element is left open, or the file was cut short).`, this.line));
    }
    if (!this.preambleSent) yield this.#preamble();
  }

  /** Consumes every complete construct of the buffer; at the end of input an incomplete one is an error. */
  *#scan(final: boolean): Generator<ReportChunk> {
    const buffer = this.#buffer;
    let clean = 0;
    for (;;) {
      const start = buffer.indexOf('<', clean);
      if (start < 0) {
        this.#consume(buffer, clean, buffer.length, final);
        break;
      }
      if (!this.#rootStartTag) {
        const prolog = this.#prolog(buffer, start);
        if (prolog === undefined) break;
        if (prolog === 'root') {
          const end = tagEnd(buffer, start);
          if (end < 0) break;
          this.#startRoot(buffer, clean, start, end);
          clean = end + 1;
          continue;
        }
        this.#advance(buffer, clean, prolog);
        clean = prolog;
        continue;
      }
      if (this.#rootClosed) {
        const next = skipMisc(buffer, start);
        if (next === undefined) break;
        if (next < 0) throw new ReportRejected(reject('XML_MALFORMED', 'Content after the root element.', this.line));
        this.#advance(buffer, clean, next);
        clean = next;
        continue;
      }
      // Inside the root: a child element, the root's end tag, or misc.
      if (buffer.startsWith('</', start)) {
        const end = buffer.indexOf('>', start);
        if (end < 0) break;
        this.#rootClosed = true;
        this.#text(buffer, clean, start);
        this.#advance(buffer, start, end + 1);
        clean = end + 1;
        continue;
      }
      const misc = skipMisc(buffer, start);
      if (misc === undefined) break;
      if (misc >= 0) {
        this.#text(buffer, clean, misc);
        clean = misc;
        continue;
      }
      const childEnd = elementEnd(buffer, start, this.#options.maxDepth - 1, this.line);
      if (childEnd < 0) break;
      const name = tagName(buffer, start);
      const beforeLines = countLines(buffer, clean, start);
      // Every child after the first record is handed on as a record too: one the schema does not expect is named by validation.
      if (this.preambleSent || this.#recordPattern.test(name)) {
        if (!this.preambleSent) {
          this.#preambleText += buffer.slice(clean, start);
          this.line += beforeLines;
          yield this.#preamble();
          if (this.#options.preambleOnly) return;
        } else {
          this.line += beforeLines;
        }
        const text = buffer.slice(start, childEnd);
        yield { kind: 'record', record: { text, line: this.line } };
        this.line += countLines(text, 0, text.length);
      } else {
        this.#text(buffer, clean, childEnd);
      }
      clean = childEnd;
    }
    this.#buffer = buffer.slice(clean);
    if (final && this.#buffer.trim() !== '') {
      throw new ReportRejected(reject('XML_MALFORMED', 'The document ends inside a tag, comment or element.', this.line));
    }
  }

  /** Before the root: XML declaration, comments, PIs, whitespace; a DOCTYPE is refused. Gives where the next construct starts, 'root', or undefined when more input is needed. */
  #prolog(buffer: string, start: number): number | 'root' | undefined {
    if (buffer.startsWith('<!DOCTYPE', start) || buffer.startsWith('<!doctype', start)) {
      const declaration = buffer.slice(start, start + 2000);
      const code = /<!ENTITY\s+(%\s+)?\S+\s+(SYSTEM|PUBLIC)\b/i.test(declaration) ? 'XML_EXTERNAL_ENTITY' : /<!ENTITY/i.test(declaration) ? 'XML_ENTITY_EXPANSION' : 'XML_DTD_FORBIDDEN';
      const text = code === 'XML_DTD_FORBIDDEN' ? 'The document has a document type declaration (<!DOCTYPE>); DTDs are not accepted.'
        : code === 'XML_EXTERNAL_ENTITY' ? 'The document declares an external entity; external entities are never resolved.'
        : 'The document declares entities; entity declarations are not accepted.';
      throw new ReportRejected(reject(code, text, this.line));
    }
    const misc = skipMisc(buffer, start);
    if (misc === undefined) return undefined;
    return misc >= 0 ? misc : 'root';
  }

  #startRoot(buffer: string, clean: number, start: number, end: number): void {
    this.line += countLines(buffer, clean, start);
    this.#rootLine = this.line;
    this.#rootStartTag = buffer.slice(start, end + 1);
    this.#rootQName = tagName(buffer, start);
    this.line += countLines(buffer, start, end + 1);
    if (buffer[end - 1] === '/') throw new ReportRejected(reject('SCHEMA_VIOLATION', `<${this.#rootQName}/> is empty.`, this.#rootLine));
  }

  /** Text inside the root that is not a record: part of the preamble while no record has come. */
  #text(buffer: string, from: number, to: number): void {
    if (!this.preambleSent) this.#preambleText += buffer.slice(from, to);
    this.line += countLines(buffer, from, to);
  }

  #advance(buffer: string, from: number, to: number): void {
    this.line += countLines(buffer, from, to);
  }

  #consume(buffer: string, from: number, to: number, final: boolean): void {
    if (!final) return;
    if (buffer.slice(from, to).trim() !== '' && this.#rootStartTag && !this.#rootClosed && !this.preambleSent) this.#preambleText += buffer.slice(from, to);
  }

  #preamble(): ReportChunk {
    this.preambleSent = true;
    const rootStartTag = this.#rootStartTag ?? '';
    const wrapped = `${rootStartTag}${this.#preambleText}</${this.#rootQName}>`;
    const gate = inspectXml(Buffer.from(wrapped), { maxDepth: this.#options.maxDepth });
    if (!gate.ok) {
      const line = gate.line ? gate.line + this.#rootLine - 1 : undefined;
      throw new ReportRejected(reject(gate.code, gate.text, line));
    }
    return {
      kind: 'preamble',
      preamble: { rootStartTag, rootQName: this.#rootQName, text: this.#preambleText, line: this.#rootLine, root: gate.root },
    };
  }
}

/** Skips a comment, PI, CDATA section or whitespace-only text at `start` (a '<'): gives the index after it, -1 when it is an element tag, undefined when incomplete. */
function skipMisc(buffer: string, start: number): number | undefined {
  if (buffer.startsWith('<!--', start)) {
    const end = buffer.indexOf('-->', start + 4);
    return end < 0 ? undefined : end + 3;
  }
  if (buffer.startsWith('<?', start)) {
    const end = buffer.indexOf('?>', start + 2);
    return end < 0 ? undefined : end + 2;
  }
  if (buffer.startsWith('<![CDATA[', start)) {
    const end = buffer.indexOf(']]>', start + 9);
    return end < 0 ? undefined : end + 3;
  }
  if (buffer.length - start < 9 && '<![CDATA['.startsWith(buffer.slice(start)) && buffer.length - start > 1) return undefined;
  return -1;
}

/** The '>' ending the tag that starts at `start`, skipping quoted attribute values; -1 when incomplete. */
function tagEnd(buffer: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const gt = buffer.indexOf('>', i);
    if (gt < 0) return -1;
    const quote = firstQuote(buffer, i, gt);
    if (quote < 0) return gt;
    const close = buffer.indexOf(buffer[quote] as string, quote + 1);
    if (close < 0) return -1;
    i = close + 1;
  }
}

function firstQuote(buffer: string, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const code = buffer.charCodeAt(i);
    if (code === 34 || code === 39) return i;
  }
  return -1;
}

/**
 * The index after the element that starts at `start`, following nested tags, comments,
 * PIs and CDATA; -1 when the buffer ends inside it. Nesting past `maxDepth` is refused.
 */
function elementEnd(buffer: string, start: number, maxDepth: number, line: number): number {
  let depth = 0;
  let i = start;
  for (;;) {
    if (buffer.charCodeAt(i) !== LT) {
      i = buffer.indexOf('<', i);
      if (i < 0) return -1;
    }
    const misc = skipMisc(buffer, i);
    if (misc === undefined) return -1;
    if (misc >= 0) {
      i = misc;
      continue;
    }
    const end = tagEnd(buffer, i);
    if (end < 0) return -1;
    if (buffer.charCodeAt(i + 1) === 47 /* / */) depth -= 1;
    else if (buffer.charCodeAt(end - 1) !== 47) {
      depth += 1;
      if (depth > maxDepth) throw new ReportRejected(reject('XML_TOO_DEEP', `Elements nest deeper than ${maxDepth + 1} levels.`, line));
    }
    i = end + 1;
    if (depth <= 0) return i;
  }
}

function tagName(buffer: string, start: number): string {
  return /^<\/?([^\s/>]+)/.exec(buffer.slice(start, start + 200))?.[1] ?? '';
}

function countLines(text: string, from: number, to: number): number {
  let count = 0;
  let i = text.indexOf('\n', from);
  while (i >= 0 && i < to) {
    count += 1;
    i = text.indexOf('\n', i + 1);
  }
  return count;
}
