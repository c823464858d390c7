import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import libxml from 'libxmljs2';

import { CATALOGUE_NAMESPACE } from './catalogue-namespace.ts';
import type { SchemaError } from './schema-validator.ts';

export { CATALOGUE_NAMESPACE } from './catalogue-namespace.ts';
export type { SchemaError } from './schema-validator.ts';

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
  /** Per root name, the schema of a batch of such documents (made when first needed). */
  private readonly batchSchemas = new Map<string, libxml.Document>();

  private constructor(private readonly folder: string) {}

  static load(folder: string): SchemaRegistry {
    const registry = new SchemaRegistry(folder);
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.xsd')).sort()) {
      const rootName = file.slice(0, -'.xsd'.length);
      if (rootName === 'Types') continue;
      const path = resolve(join(folder, file));
      const schema = libxml.parseXml(readFileSync(path, 'utf8'), { baseUrl: path, nonet: true });
      registry.schemas.set(rootName, schema);
    }
    return registry;
  }

  /** The libxml2 release libxmljs2 was built with. */
  get libxml2(): string {
    return libxml.libxml_version;
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
    return reported(document.validationErrors);
  }

  /**
   * Validates several documents of one root (each already through the XML gate) and
   * gives each its errors, in order. libxml2 compiles the schema on every validation,
   * which costs several times the validation of a small document; so documents of up to
   * BATCH_DOCUMENT_CHARS are first validated together, as the children of one batch
   * element whose schema includes the type's own. A valid batch means every document in
   * it is valid (each child is checked against the same global element declaration its
   * document's root is). Only when the batch is not valid is each of its documents
   * validated alone, which gives each its own errors with its own line numbers.
   * Throws like `validate` for a document libxml2 cannot parse.
   */
  validateMany(texts: readonly string[], rootName: string): SchemaError[][] {
    const verdicts: (SchemaError[] | undefined)[] = texts.map(() => undefined);
    let batch: number[] = [];
    let batchChars = 0;
    const flush = () => {
      if (batch.length > 1 && this.validBatch(batch.map((index) => texts[index] as string), rootName)) {
        for (const index of batch) verdicts[index] = [];
      }
      batch = [];
      batchChars = 0;
    };
    texts.forEach((text, index) => {
      if (text.length > BATCH_DOCUMENT_CHARS) return;
      if (batchChars + text.length > BATCH_CHARS) flush();
      batch.push(index);
      batchChars += text.length;
    });
    flush();
    return texts.map((text, index) => verdicts[index] ?? this.validate(text, rootName));
  }

  /** True when the documents, as children of one batch element, are valid; false on any error. */
  private validBatch(texts: readonly string[], rootName: string): boolean {
    // A prefixed wrapper declares no default namespace, so no unqualified element of a
    // document is put in the catalogue's namespace by it.
    const body = texts.map((text) => text.replace(XML_DECLARATION, '')).join('\n');
    const combined = `<b:${BATCH_ELEMENT} xmlns:b="${CATALOGUE_NAMESPACE}">\n${body}\n</b:${BATCH_ELEMENT}>`;
    try {
      const document = libxml.parseXml(combined, { nonet: true, noent: false, dtdload: false, dtdvalid: false, huge: false });
      return document.validate(this.batchSchemaOf(rootName));
    } catch {
      return false;
    }
  }

  private batchSchemaOf(rootName: string): libxml.Document {
    let schema = this.batchSchemas.get(rootName);
    if (!schema) {
      if (!this.schemas.has(rootName)) throw new Error(`no schema for ${rootName}`);
      const xsd = `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns="${CATALOGUE_NAMESPACE}" targetNamespace="${CATALOGUE_NAMESPACE}" elementFormDefault="qualified">
  <xs:include schemaLocation="${rootName}.xsd"/>
  <xs:element name="${BATCH_ELEMENT}">
    <xs:complexType><xs:sequence><xs:element ref="${rootName}" maxOccurs="unbounded"/></xs:sequence></xs:complexType>
  </xs:element>
</xs:schema>`;
      // The base URL puts the generated schema beside the type's, so the include finds it.
      schema = libxml.parseXml(xsd, { baseUrl: resolve(join(this.folder, `${BATCH_ELEMENT}.xsd`)), nonet: true });
      this.batchSchemas.set(rootName, schema);
    }
    return schema;
  }
}

/** The element a batch of documents is validated inside (validateMany); no document type has this name. */
const BATCH_ELEMENT = 'GatewayValidationBatch';
/** Documents longer than this are validated alone. */
const BATCH_DOCUMENT_CHARS = 64 * 1024;
/** At most this much text is validated in one batch. */
const BATCH_CHARS = 1024 * 1024;
const XML_DECLARATION = /^\uFEFF?<\?xml[^>]*\?>/;

/**
 * Schema errors reported to the sender at most: a broken generator repeats one mistake
 * thousands of times, and a response listing them all helps nobody (a flood of 200,000
 * attributes once gave 200,001 errors, every one put into the response).
 */
export const MAX_REPORTED_SCHEMA_ERRORS = 100;

/** The first MAX_REPORTED_SCHEMA_ERRORS errors, and one line saying how many more there are. */
function reported(errors: readonly libxml.ValidationError[]): SchemaError[] {
  const shown = errors.slice(0, MAX_REPORTED_SCHEMA_ERRORS).map(toSchemaError);
  const more = errors.length - shown.length;
  if (more > 0) shown.push({ text: `${more} more schema errors are not listed; correct the ones above and send the document again.` });
  return shown;
}

function toSchemaError(error: libxml.ValidationError): SchemaError {
  const message = error.message.trim();
  const element = /Element '(?:\{[^}]*\})?([^']+)'/.exec(message)?.[1];
  const text = message.replace(/\{urn:se:depot-gateway:v1\}/g, '');
  const line = typeof error.line === 'number' && error.line > 0 ? error.line : undefined;
  return { text, ...(line ? { line } : {}), ...(element ? { element } : {}) };
}
