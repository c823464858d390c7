import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { ParseOption, XmlBufferInputProvider, XmlDocument, XmlLibError, XsdValidator, xmlRegisterInputProvider, type ErrorDetail } from 'libxml2-wasm';

import type { SchemaError } from './schema-validator.ts';

export { CATALOGUE_NAMESPACE } from './catalogue-namespace.ts';
export type { SchemaError } from './schema-validator.ts';

/**
 * Every XSD in schemas/, compiled once, found by the document's root element. Schemas
 * are named after their root element (ChangeFee.xsd declares <ChangeFee>); Types.xsd
 * holds the shared types and is only ever included.
 *
 * libxml2 runs as WebAssembly (libxml2-wasm): a current libxml2, no native addon, one
 * instance per thread. Its objects live in the WebAssembly memory, not in V8's heap, so
 * every parsed document is disposed as soon as its verdict is taken, on every path.
 *
 * Validation parses with libxml2's safe settings: no network, no DTD loading, no
 * external entities (XML_PARSE_NO_XXE), no entity substitution, no "huge" documents.
 * The XML gate has already refused DTDs and entities before this runs; these settings
 * are the second wall. libxml2 reads no file of its own: the schemas are handed to it
 * from memory, and only they (see schemaFiles).
 */
export class SchemaRegistry {
  private readonly schemas = new Map<string, { readonly document: XmlDocument; readonly validator: XsdValidator }>();

  private constructor() {}

  static load(folder: string): SchemaRegistry {
    const registry = new SchemaRegistry();
    const files = readdirSync(folder).filter((name) => name.endsWith('.xsd')).sort();
    for (const file of files) schemaFiles.addBuffer(resolve(join(folder, file)), readFileSync(join(folder, file)));
    try {
      for (const file of files) {
        const rootName = file.slice(0, -'.xsd'.length);
        if (rootName === 'Types') continue;
        const path = resolve(join(folder, file));
        // The path as the document's URL: the schema's includes are found beside it.
        const document = XmlDocument.fromBuffer(readFileSync(path), { url: path, option: SCHEMA_OPTIONS });
        try {
          registry.schemas.set(rootName, { document, validator: XsdValidator.fromDoc(document) });
        } catch (error) {
          document.dispose();
          throw new Error(`${file} does not compile: ${messageOf(error)}`);
        }
      }
    } catch (error) {
      registry.dispose();
      throw error;
    }
    return registry;
  }

  /** The libxml2 release that validates, and the libxml2-wasm build it comes in. */
  get libxml2(): string {
    return LIBXML2.release;
  }

  get binding(): string {
    return `libxml2-wasm ${LIBXML2.binding}`;
  }

  /** Root element names that have a schema. */
  get documentTypes(): string[] {
    return [...this.schemas.keys()];
  }

  has(rootName: string): boolean {
    return this.schemas.has(rootName);
  }

  /**
   * Validates a document (already through the XML gate) against its root's schema; [] when valid.
   * `noblanks` leaves whitespace between elements out of the tree: the same verdict, and
   * faster on the indented record batches of a large report.
   * Throws for a document libxml2 cannot parse (its message says where).
   */
  validate(text: string, rootName: string, options: { noblanks?: boolean } = {}): SchemaError[] {
    const schema = this.schemas.get(rootName);
    if (!schema) throw new Error(`no schema for ${rootName}`);
    const document = parse(text, options.noblanks ? DOCUMENT_OPTIONS | ParseOption.XML_PARSE_NOBLANKS : DOCUMENT_OPTIONS);
    try {
      schema.validator.validate(document);
      return [];
    } catch (error) {
      if (error instanceof XmlLibError && error.details.length > 0) return reported(error.details);
      throw error;
    } finally {
      document.dispose();
    }
  }

  /**
   * Validates several documents of one root (each already through the XML gate) and
   * gives each its errors, in order. The schema is compiled once, at load, so each
   * document is simply validated alone (libxmljs2 compiled it on every call, which
   * made batching documents together worth its complexity; at about 50 µs a small
   * document it no longer is). Throws like `validate` for a document libxml2 cannot parse.
   */
  validateMany(texts: readonly string[], rootName: string): SchemaError[][] {
    return texts.map((text) => this.validate(text, rootName));
  }

  /** Frees the compiled schemas (WebAssembly memory). The registry is unusable afterwards. */
  dispose(): void {
    for (const { validator, document } of this.schemas.values()) {
      validator.dispose();
      document.dispose();
    }
    this.schemas.clear();
  }
}

/** No network, no DTD, no external entities, no entity substitution; line numbers past 65,535 kept. */
const DOCUMENT_OPTIONS = ParseOption.XML_PARSE_NONET | ParseOption.XML_PARSE_NO_XXE | ParseOption.XML_PARSE_BIG_LINES;
const SCHEMA_OPTIONS = ParseOption.XML_PARSE_NONET | ParseOption.XML_PARSE_NO_XXE;

/**
 * The schema files libxml2 may read (an include of one schema names another): every
 * XSD of the folders loaded, from memory. One per thread, as libxml2's list of input
 * providers is (registered once, with the first registry).
 */
const schemaFiles = new XmlBufferInputProvider({});
xmlRegisterInputProvider(schemaFiles);

/**
 * The libxml2 release each libxml2-wasm build bundles, from the package's own record
 * (0.7.x: libxml2 2.15, its option documentation that of 2.15.0; the patch release is
 * not published with the package, so it is not claimed here).
 */
const LIBXML2_OF_BUILD: Readonly<Record<string, string>> = { '0.7.2': '2.15' };

/**
 * Which libxml2 runs. libxml2-wasm does not expose libxml2's own version, so the
 * release is taken from the table of builds below, keyed by the installed package's
 * version; a build not in the table is logged as unknown, with its package version,
 * until it is added here.
 */
const LIBXML2 = (() => {
  const binding = (createRequire(import.meta.url)('libxml2-wasm/package.json') as { version: string }).version;
  return { binding, release: LIBXML2_OF_BUILD[binding] ?? `unknown (libxml2-wasm ${binding})` };
})();

function parse(text: string, option: ParseOption): XmlDocument {
  try {
    return XmlDocument.fromString(text, { option });
  } catch (error) {
    throw new Error(messageOf(error));
  }
}

function messageOf(error: unknown): string {
  return ((error as Error).message ?? String(error)).trim();
}

/**
 * Schema errors reported to the sender at most: a broken generator repeats one mistake
 * thousands of times, and a response listing them all helps nobody (a flood of 200,000
 * attributes once gave 200,001 errors, every one put into the response).
 */
export const MAX_REPORTED_SCHEMA_ERRORS = 100;

/** The first MAX_REPORTED_SCHEMA_ERRORS errors, and one line saying how many more there are. */
function reported(errors: readonly ErrorDetail[]): SchemaError[] {
  const shown = errors.slice(0, MAX_REPORTED_SCHEMA_ERRORS).map(toSchemaError);
  const more = errors.length - shown.length;
  if (more > 0) shown.push({ text: `${more} more schema errors are not listed; correct the ones above and send the document again.` });
  return shown;
}

function toSchemaError(error: ErrorDetail): SchemaError {
  const message = error.message.trim();
  const element = /Element '(?:\{[^}]*\})?([^']+)'/.exec(message)?.[1];
  const text = message.replace(/\{urn:se:depot-gateway:v1\}/g, '');
  const line = error.line > 0 ? error.line : undefined;
  return { text, ...(line ? { line } : {}), ...(element ? { element } : {}) };
}
