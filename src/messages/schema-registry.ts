import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import libxml from 'libxmljs2';

/** The target namespace of the whole document catalogue, version 1. */
export const CATALOGUE_NAMESPACE = 'urn:se:depot-gateway:v1';

export interface SchemaError {
  readonly line?: number;
  readonly element?: string;
  readonly text: string;
}

/**
 * Every XSD in schemas/, compiled once, found by the document's root element. Schemas
 * are named after their root element (ChangeFee.xsd declares <ChangeFee>); Types.xsd
 * holds the shared types and is only ever included.
 *
 * Validation parses with libxml2's safe settings: no DTD loading, no entity
 * substitution, no network, no "huge" documents. The XML gate has already refused
 * DTDs and entities before this runs; these settings are the second wall.
 */
export class SchemaRegistry {
  private readonly schemas = new Map<string, libxml.Document>();

  static load(folder: string): SchemaRegistry {
    const registry = new SchemaRegistry();
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.xsd')).sort()) {
      const rootName = file.slice(0, -'.xsd'.length);
      if (rootName === 'Types') continue;
      const path = resolve(join(folder, file));
      const schema = libxml.parseXml(readFileSync(path, 'utf8'), { baseUrl: path, nonet: true });
      registry.schemas.set(rootName, schema);
    }
    return registry;
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
   * about twice as fast on the indented record batches of a large report.
   */
  validate(text: string, rootName: string, options: { noblanks?: boolean } = {}): SchemaError[] {
    const schema = this.schemas.get(rootName);
    if (!schema) throw new Error(`no schema for ${rootName}`);
    const document = libxml.parseXml(text, { nonet: true, noent: false, dtdload: false, dtdvalid: false, huge: false, noblanks: options.noblanks ?? false });
    if (document.validate(schema)) return [];
    return document.validationErrors.map(toSchemaError);
  }
}

function toSchemaError(error: libxml.ValidationError): SchemaError {
  const message = error.message.trim();
  const element = /Element '(?:\{[^}]*\})?([^']+)'/.exec(message)?.[1];
  const text = message.replace(/\{urn:se:depot-gateway:v1\}/g, '');
  const line = typeof error.line === 'number' && error.line > 0 ? error.line : undefined;
  return { text, ...(line ? { line } : {}), ...(element ? { element } : {}) };
}
