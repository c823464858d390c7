import type { XmlElement } from './xml-element.ts';

/**
 * The XML gate's quick reader: builds the element tree of a document written in the
 * plain subset of XML that counterparties' systems write — elements, attributes, text,
 * the predefined entities and character references, comments, CDATA, an XML
 * declaration at the start, ASCII names — in one pass over the text, with far less
 * work and garbage than a general streaming parser.
 *
 * It never decides anything about a document: it gives up (undefined) at the first
 * thing outside that subset or not well-formed — a DTD, any other processing
 * instruction, an unknown entity, a name with other characters, a prefix not bound,
 * nesting past the cap, two attributes of one local name — and the gate then reads the
 * document with its full parser, which accepts or rejects it with the precise reason.
 * What it does accept, it reads exactly as that parser does: the same elements,
 * namespaces, attributes (values normalised the same way), text and lines; a test
 * holds the two to that over every fixture and many mutations of them.
 */

const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';
const XML_DECLARATION = /^<\?xml\s+version\s*=\s*(["'])1\.0\1(?:\s+encoding\s*=\s*(["'])[A-Za-z][A-Za-z0-9._-]*\2)?(?:\s+standalone\s*=\s*(["'])(?:yes|no)\3)?\s*\?>/;
/** Shared by the elements without attributes (nothing writes to an element's attributes). */
const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});
const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** A namespace scope: prefix → URI ('' is the default namespace), chained to the parent's. */
type Scope = ReadonlyMap<string, string>;
const ROOT_SCOPE: Scope = new Map([['xml', XML_NAMESPACE], ['', '']]);

/** Thrown inside the reader to give up; never leaves this module. */
class NotPlain extends Error {}

export function readPlainXml(text: string, maxDepth: number): XmlElement | undefined {
  try {
    return new Reader(text, maxDepth).document();
  } catch (error) {
    if (error instanceof NotPlain) return undefined;
    throw error;
  }
}

const giveUp = (): never => {
  throw new NotPlain();
};

class Reader {
  #at = 0;
  #line = 1;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  document(): XmlElement {
    const declaration = XML_DECLARATION.exec(this.text);
    if (declaration) {
      this.#skipCharacters(0, declaration[0].length);
      this.#at = declaration[0].length;
    } else if (this.text.startsWith('<?')) giveUp();
    this.#misc();
    if (this.#code() !== 0x3c) giveUp();
    const root = this.#element(ROOT_SCOPE, 1);
    this.#misc();
    if (this.#at < this.text.length) giveUp();
    return root;
  }

  /** Whitespace and comments outside the root element. */
  #misc(): void {
    for (;;) {
      this.#whitespace();
      if (this.text.startsWith('<!--', this.#at)) this.#comment();
      else return;
    }
  }

  #code(): number {
    return this.#at < this.text.length ? this.text.charCodeAt(this.#at) : 0;
  }

  #whitespace(): void {
    const { text } = this;
    for (;;) {
      const code = text.charCodeAt(this.#at);
      if (code === 0x20 || code === 0x09) this.#at += 1;
      else if (code === 0x0a) {
        this.#at += 1;
        this.#line += 1;
      } else if (code === 0x0d) {
        this.#at += 1;
        if (text.charCodeAt(this.#at) === 0x0a) this.#at += 1;
        this.#line += 1;
      } else return;
    }
  }

  /** An ASCII name, with at most one colon between its prefix and local part. */
  #name(): string {
    const { text } = this;
    const start = this.#at;
    let colon = -1;
    for (;;) {
      const code = text.charCodeAt(this.#at);
      const first = this.#at === start || this.#at === colon + 1;
      if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f) this.#at += 1;
      else if (!first && ((code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x2e)) this.#at += 1;
      else if (code === 0x3a && !first && colon < 0) {
        colon = this.#at;
        this.#at += 1;
      } else break;
    }
    if (this.#at === start || this.#at === colon + 1) giveUp();
    return text.slice(start, this.#at);
  }

  #element(parentScope: Scope, depth: number): XmlElement {
    if (depth > this.maxDepth) giveUp();
    this.#at += 1; // <
    const qualified = this.#name();
    let attributes: [string, string][] | undefined;
    let scope = parentScope;
    let declared: Set<string> | undefined;
    let selfClosing = false;
    for (;;) {
      const before = this.#at;
      this.#whitespace();
      const code = this.#code();
      if (code === 0x3e) {
        this.#at += 1;
        break;
      }
      if (code === 0x2f && this.text.charCodeAt(this.#at + 1) === 0x3e) {
        this.#at += 2;
        selfClosing = true;
        break;
      }
      if (this.#at === before) giveUp(); // attributes are separated by whitespace
      const name = this.#name();
      this.#whitespace();
      if (this.#code() !== 0x3d) giveUp();
      this.#at += 1;
      this.#whitespace();
      const value = this.#attributeValue();
      if (name === 'xmlns' || name.startsWith('xmlns:')) {
        const prefix = name === 'xmlns' ? '' : name.slice(6);
        // Namespace names are URIs: one with white space (which parsers treat differently) is left to the full parser.
        if (prefix === 'xml' || prefix === 'xmlns' || (prefix !== '' && value === '') || value === XML_NAMESPACE || /\s/.test(value)) giveUp();
        declared ??= new Set();
        if (declared.has(prefix)) giveUp(); // declared twice on one element
        declared.add(prefix);
        if (scope === parentScope) scope = new Map(parentScope);
        (scope as Map<string, string>).set(prefix, value);
      } else {
        (attributes ??= []).push([name, value]);
      }
    }
    const line = this.#line;
    const element: XmlElement = { name: localOf(qualified), ns: namespaceOf(qualified, scope), attrs: attributes ? attributesOf(attributes, scope) : NO_ATTRIBUTES, children: [], text: '', line };
    if (!selfClosing) this.#content(element, qualified, scope, depth);
    return element;
  }

  #attributeValue(): string {
    const { text } = this;
    const quote = this.#code();
    if (quote !== 0x22 && quote !== 0x27) giveUp();
    this.#at += 1;
    let value = '';
    let start = this.#at;
    for (;;) {
      const code = text.charCodeAt(this.#at);
      if (code === quote) break;
      if (Number.isNaN(code) || code === 0x3c) giveUp();
      if (code === 0x26) {
        value += text.slice(start, this.#at) + this.#reference();
        start = this.#at;
        continue;
      }
      if (code === 0x09 || code === 0x0a || code === 0x0d) {
        // Attribute-value normalisation: each line end or tab becomes one space.
        value += `${text.slice(start, this.#at)} `;
        this.#at += code === 0x0d && text.charCodeAt(this.#at + 1) === 0x0a ? 2 : 1;
        if (code !== 0x09) this.#line += 1;
        start = this.#at;
        continue;
      }
      if (!isCharacter(code)) giveUp();
      this.#at += 1;
    }
    value += text.slice(start, this.#at);
    this.#at += 1;
    return value;
  }

  /** `&…;` at the cursor: a predefined entity or a character reference. */
  #reference(): string {
    const { text } = this;
    const end = text.indexOf(';', this.#at);
    if (end < 0 || end - this.#at > 10) giveUp();
    const body = text.slice(this.#at + 1, end);
    this.#at = end + 1;
    const predefined = PREDEFINED[body];
    if (predefined !== undefined) return predefined;
    const code = /^#[0-9]{1,7}$/.test(body) ? Number(body.slice(1)) : /^#x[0-9A-Fa-f]{1,6}$/.test(body) ? Number.parseInt(body.slice(2), 16) : NaN;
    if (!(code === 0x09 || code === 0x0a || code === 0x0d || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff))) {
      return giveUp();
    }
    return String.fromCodePoint(code);
  }

  /** Everything up to the element's end tag: text, children, comments, CDATA. */
  #content(element: XmlElement, qualified: string, scope: Scope, depth: number): void {
    const { text } = this;
    let at = this.#at;
    let start = at;
    for (;;) {
      let code = text.charCodeAt(at);
      // Plain characters: anything allowed in XML but <, &, ], tab and line ends.
      while (code >= 0x20 ? code !== 0x3c && code !== 0x26 && code !== 0x5d && code < 0xfffe : code === 0x09) code = text.charCodeAt(++at);
      if (code === 0x0a) {
        at += 1;
        this.#line += 1;
        continue;
      }
      if (code === 0x5d) {
        if (text.charCodeAt(at + 1) === 0x5d && text.charCodeAt(at + 2) === 0x3e) giveUp();
        at += 1;
        continue;
      }
      if (code !== 0x3c && code !== 0x26 && code !== 0x0d) giveUp(); // a character XML does not allow, or the end of the text
      // Text before a child is the element's own text; after its first child it is not kept.
      if (element.children.length === 0 && at > start) element.text += text.slice(start, at);
      this.#at = at;
      if (code === 0x26) {
        const character = this.#reference();
        if (element.children.length === 0) element.text += character;
      } else if (code === 0x0d) {
        // Line ends read as one line feed.
        if (element.children.length === 0) element.text += '\n';
        this.#at += text.charCodeAt(at + 1) === 0x0a ? 2 : 1;
        this.#line += 1;
      } else {
        const next = text.charCodeAt(at + 1);
        if (next === 0x2f) {
          this.#at += 2;
          if (this.#name() !== qualified) giveUp();
          this.#whitespace();
          if (this.#code() !== 0x3e) giveUp();
          this.#at += 1;
          return;
        }
        if (next === 0x21) {
          if (text.startsWith('<!--', at)) this.#comment();
          else if (text.startsWith('<![CDATA[', at)) element.text += this.#cdata();
          else giveUp();
        } else if (next === 0x3f) {
          giveUp();
        } else {
          element.children.push(this.#element(scope, depth + 1));
        }
      }
      at = start = this.#at;
    }
  }

  #comment(): void {
    const end = this.text.indexOf('--', this.#at + 4);
    if (end < 0 || this.text.charCodeAt(end + 2) !== 0x3e) giveUp();
    this.#skipCharacters(this.#at + 4, end);
    this.#at = end + 3;
  }

  #cdata(): string {
    const start = this.#at + 9;
    const end = this.text.indexOf(']]>', start);
    if (end < 0) giveUp();
    this.#skipCharacters(start, end);
    this.#at = end + 3;
    const content = this.text.slice(start, end);
    return content.includes('\r') ? content.replace(/\r\n?/g, '\n') : content;
  }

  /** Counts the lines of a stretch the reader skips, and gives up at a character XML does not allow. */
  #skipCharacters(from: number, to: number): void {
    const { text } = this;
    for (let index = from; index < to; index += 1) {
      const code = text.charCodeAt(index);
      if (code === 0x0a) this.#line += 1;
      else if (code === 0x0d) {
        if (text.charCodeAt(index + 1) !== 0x0a) this.#line += 1;
      } else if (!isCharacter(code)) giveUp();
    }
  }
}

/** Characters XML allows, as UTF-16 code units (surrogate pairs pass: the text was decoded from valid UTF-8). */
function isCharacter(code: number): boolean {
  return code >= 0x20 ? code !== 0xfffe && code !== 0xffff : code === 0x09 || code === 0x0a || code === 0x0d;
}

function localOf(qualified: string): string {
  const colon = qualified.indexOf(':');
  return colon < 0 ? qualified : qualified.slice(colon + 1);
}

function namespaceOf(qualified: string, scope: Scope): string {
  const colon = qualified.indexOf(':');
  const uri = scope.get(colon < 0 ? '' : qualified.slice(0, colon));
  return uri ?? giveUp();
}

/** The attributes by local name, as the gate keeps them; a prefix must be bound, and a local name used once. */
function attributesOf(attributes: readonly [string, string][], scope: Scope): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of attributes) {
    const colon = name.indexOf(':');
    if (colon >= 0 && !scope.has(name.slice(0, colon))) giveUp();
    const local = colon < 0 ? name : name.slice(colon + 1);
    if (Object.hasOwn(result, local)) giveUp();
    result[local] = value;
  }
  return result;
}
