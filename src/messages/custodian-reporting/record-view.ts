/**
 * Reads the fields of one schema-valid record straight from its text: a million
 * positions cannot afford a tree of objects each. It runs only after libxml2 has
 * validated the record, so the structure is known; it looks for elements by local
 * name (any namespace prefix), decodes character references, and first removes the
 * comments, processing instructions and CDATA markup a sender may have put inside.
 */
const patterns = new Map<string, RegExp>();

function pattern(key: string, build: () => RegExp): RegExp {
  let found = patterns.get(key);
  if (!found) patterns.set(key, (found = build()));
  found.lastIndex = 0;
  return found;
}

const NAME_PREFIX = '(?:[A-Za-z_][\\w.-]*:)?';

export class RecordView {
  readonly text: string;
  readonly #line: number | (() => number);

  /** @param line the record's first line, or (for a view inside a record) how to work it out when asked. */
  constructor(text: string, line: number | (() => number)) {
    this.text = text.includes('<!') || text.includes('<?') ? plain(text) : text;
    this.#line = line;
  }

  /** Line of the sender's file where this record or element begins. */
  get line(): number {
    return typeof this.#line === 'number' ? this.#line : this.#line();
  }

  /** Trimmed text of the first element with this local name, or undefined. */
  value(name: string): string | undefined {
    const match = pattern(`v:${name}`, () => new RegExp(`<${NAME_PREFIX}${name}(?:\\s[^>]*)?>([^<]*)<`)).exec(this.text);
    return match?.[1] === undefined ? undefined : decodeReferences(match[1].trim());
  }

  /** An attribute (unqualified) of the first element with this local name. */
  attribute(name: string, attribute: string): string | undefined {
    const tag = pattern(`t:${name}`, () => new RegExp(`<${NAME_PREFIX}${name}(\\s[^>]*)?>`)).exec(this.text)?.[1];
    if (!tag) return undefined;
    const value = new RegExp(`(?:^|\\s)${attribute}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(tag);
    return value ? decodeReferences(value[1] ?? value[2] ?? '') : undefined;
  }

  /** Every element with this local name, in order, as views of their content. */
  all(name: string): RecordView[] {
    const found: RecordView[] = [];
    const regex = pattern(`a:${name}`, () => new RegExp(`<${NAME_PREFIX}${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${NAME_PREFIX}${name}\\s*>`, 'g'));
    for (let match = regex.exec(this.text); match; match = regex.exec(this.text)) {
      const offset = match.index;
      found.push(new RecordView(match[1] ?? '', () => this.line + (this.text.slice(0, offset).match(/\n/g)?.length ?? 0)));
    }
    return found;
  }
}

function plain(text: string): string {
  return text
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<\?[\s\S]*?\?>/g, '')
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_all, inner: string) => inner.replace(/&/g, '&amp;').replace(/</g, '&lt;'));
}

/** Decodes the predefined entities and character references of XML text. */
export function decodeReferences(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (_all, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[entity] ?? '';
  });
}
