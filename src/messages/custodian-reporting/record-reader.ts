import { SaxesParser } from 'saxes';
import type { XmlElement } from '../xml-element.ts';

/**
 * Reads the records of a streamed report (each an `<Account>` as the sender wrote it)
 * with their namespaces: an element is the report's when its prefix — whatever the
 * sender chose, or none — is bound to the report's namespace, on the record itself or
 * on the root's start tag, which every record inherits. Elements of another namespace,
 * and all they contain, are never taken for ours by their local name.
 *
 * `tree` reads a record with saxes into the element tree the XML gate builds: any
 * record, whatever markup it holds. It costs about 5 s of a core for a million
 * positions (132 MB), more than the Holdings target leaves, so a kind may read a *plain*
 * record — one that declares no namespace of its own and holds nothing but elements,
 * attributes and text without references — with patterns instead: in such a record
 * every prefix means what the root's start tag binds it to, so a pattern that accepts
 * exactly the prefixes bound to our namespace (`tagPattern`) reads namespaces as saxes
 * does. Records are read after libxml2 has validated them (report-batch.validator.ts),
 * so their structure is known.
 */
export interface RecordScope {
  /** Namespace declarations of the root's start tag, prefix ('' for the default) → URI. */
  readonly namespaces: Readonly<Record<string, string>>;
  /** The namespace of the report's elements (the root's). */
  readonly namespace: string;
}

export interface ReadRecordOptions {
  /**
   * Read what can be read of a record that is not well-formed (one already rejected,
   * to name its account) instead of throwing. Default false.
   */
  readonly lenient?: boolean;
}

export class RecordReader {
  readonly scope: RecordScope;
  /** Pattern source of the prefixes bound to our namespace at the root, e.g. `(?:h:)?`. */
  readonly #prefixes: string;
  readonly #patterns = new Map<string, RegExp>();

  constructor(scope: RecordScope) {
    this.scope = scope;
    const ours = Object.entries(scope.namespaces).filter(([, uri]) => uri === scope.namespace).map(([prefix]) => prefix);
    const alternatives = ours.map((prefix) => (prefix === '' ? '' : `${prefix.replace(/[.-]/g, '\\$&')}:`));
    // No prefix bound to ours: a pattern that never matches, so plain records fall to saxes.
    this.#prefixes = alternatives.length === 0 ? '(?!)' : `(?:${alternatives.join('|')})`;
  }

  /** The namespaces a report's records inherit, from the root's start tag as sent. */
  static forRoot(rootStartTag: string, rootQName: string): RecordReader {
    const parser = new SaxesParser({ xmlns: true });
    let scope: RecordScope | undefined;
    parser.on('opentag', (tag) => {
      scope ??= { namespaces: { ...tag.ns }, namespace: tag.uri };
    });
    parser.write(`${rootStartTag}</${rootQName}>`).close();
    if (!scope) throw new Error(`No root element in ${rootStartTag}`);
    return new RecordReader(scope);
  }

  /** Whether patterns may read the record: no declarations, comments, CDATA, PIs or references. */
  plain(text: string): boolean {
    return !text.includes('xmlns') && !text.includes('<!') && !text.includes('<?') && !text.includes('&');
  }

  /** Pattern source for the start of one of our elements' tags: `<` and its name with any of our prefixes. */
  tagPattern(localName: string): string {
    return `<${this.#prefixes}${localName}`;
  }

  /** A pattern built once per reader (so per report) under `key`; its lastIndex is reset. */
  pattern(key: string, build: () => RegExp): RegExp {
    let found = this.#patterns.get(key);
    if (!found) this.#patterns.set(key, (found = build()));
    found.lastIndex = 0;
    return found;
  }

  /** Trimmed text of a plain record's first element of ours with this local name. */
  plainValue(text: string, localName: string): string | undefined {
    const match = this.pattern(`v:${localName}`, () => new RegExp(`${this.tagPattern(localName)}(?:\\s[^>]*)?>([^<]*)<`)).exec(text);
    return match?.[1]?.trim();
  }

  /**
   * The record's element tree, with the lines of the sender's file (`line` is where the
   * record begins). Throws on text that is not well-formed unless `lenient`; gives
   * undefined when the record's own element is not of our namespace.
   */
  tree(text: string, line: number, options: ReadRecordOptions = {}): XmlElement | undefined {
    const namespace = this.scope.namespace;
    const parser = new SaxesParser({ xmlns: true, fragment: true, additionalNamespaces: this.scope.namespaces });
    const stack: XmlElement[] = [];
    let root: XmlElement | undefined;
    // Depth inside an element of another namespace: nothing in there is read.
    let foreign = 0;
    parser.on('opentag', (tag) => {
      if (foreign > 0 || tag.uri !== namespace) {
        if (!tag.isSelfClosing) foreign += 1;
        return;
      }
      const attrs: Record<string, string> = {};
      for (const attribute of Object.values(tag.attributes)) {
        if (attribute.prefix === '' && attribute.name !== 'xmlns') attrs[attribute.local] = attribute.value;
      }
      const element: XmlElement = { name: tag.local, ns: tag.uri, attrs, children: [], text: '', line: line + parser.line - 1 };
      const parent = stack.at(-1);
      if (parent) parent.children.push(element);
      else root ??= element;
      if (!tag.isSelfClosing) stack.push(element);
    });
    parser.on('closetag', (tag) => {
      if (tag.isSelfClosing) return;
      if (foreign > 0) foreign -= 1;
      else stack.pop();
    });
    parser.on('text', (chunk) => {
      const current = stack.at(-1);
      if (foreign === 0 && current && current.children.length === 0) current.text += chunk;
    });
    parser.on('cdata', (chunk) => {
      const current = stack.at(-1);
      if (foreign === 0 && current) current.text += chunk;
    });
    parser.on('error', (error) => {
      if (!options.lenient) throw error;
    });
    parser.write(text).close();
    return root;
  }
}
