import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ParseOption, XmlDocument, XmlLibError, XsdValidator } from 'libxml2-wasm';
import type { SchemaError } from './schema-validator.ts';

/**
 * The schema of the insurer's payment orders, ISO 20022 pain.001.001.03
 * (schemas/iso20022/pain.001.001.03.xsd), compiled on its own. The catalogue's
 * SchemaRegistry finds a schema by the root element of a document someone sends us, in
 * our namespace; a payment order is one we write (its root is ISO's `Document`) and
 * nobody sends, so it stays out of the registry, the validation thread and the message
 * reference, and is validated here, on the caller's thread, before it is stored
 * (a few milliseconds for a file of a few payments, made once a month).
 *
 * Same libxml2 and safe settings as the registry: no network, no external entities,
 * no entity substitution; the schema has no includes, so libxml2 reads no file.
 * Dispose it when done: it lives in WebAssembly memory.
 */
export class PaymentOrderSchema {
  private constructor(private readonly document: XmlDocument, private readonly validator: XsdValidator) {}

  /** The schema file, under the folder holding the catalogue's schemas (schemas/). */
  static fileIn(schemasFolder: string): string {
    return resolve(join(schemasFolder, 'iso20022', 'pain.001.001.03.xsd'));
  }

  static load(file: string): PaymentOrderSchema {
    const document = XmlDocument.fromBuffer(readFileSync(file), { url: file, option: SAFE });
    try {
      return new PaymentOrderSchema(document, XsdValidator.fromDoc(document));
    } catch (error) {
      document.dispose();
      throw new Error(`${file} does not compile: ${(error as Error).message}`);
    }
  }

  /** The document's schema errors, [] when it is valid; throws for text libxml2 cannot parse. */
  validate(text: string): SchemaError[] {
    const document = XmlDocument.fromString(text, { option: SAFE });
    try {
      this.validator.validate(document);
      return [];
    } catch (error) {
      if (error instanceof XmlLibError && error.details.length > 0) {
        return error.details.map((detail) => ({ text: detail.message.trim(), ...(detail.line > 0 ? { line: detail.line } : {}) }));
      }
      throw error;
    } finally {
      document.dispose();
    }
  }

  dispose(): void {
    this.validator.dispose();
    this.document.dispose();
  }
}

const SAFE = ParseOption.XML_PARSE_NONET | ParseOption.XML_PARSE_NO_XXE;
