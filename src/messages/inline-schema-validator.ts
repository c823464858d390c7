import { validateReportBatch } from './custodian-reporting/report-batch.validator.ts';
import type { ReportRecord } from './custodian-reporting/report-splitter.ts';
import type { SchemaRegistry } from './schema-registry.ts';
import type { BatchVerdict, DocumentVerdict, PreambleText, SchemaValidator } from './schema-validator.ts';

/** Validates on the caller's thread: in the validation thread, and wherever that thread cannot run. */
export class InlineSchemaValidator implements SchemaValidator {
  readonly where = 'inline';
  readonly libxml2: string;
  readonly binding: string;
  /** Its memory is its caller's, not told apart. */
  readonly libxml2MemoryBytes = undefined;

  constructor(private readonly schemas: SchemaRegistry) {
    this.libxml2 = schemas.libxml2;
    this.binding = schemas.binding;
  }

  async validateDocuments(texts: readonly string[], rootName: string): Promise<DocumentVerdict[]> {
    return documentVerdicts(this.schemas, texts, rootName);
  }

  async validate(typeName: string, preamble: PreambleText, records: readonly ReportRecord[], recordName: string): Promise<BatchVerdict> {
    return validateReportBatch(this.schemas, typeName, preamble, records, recordName);
  }

  /** Validation on the caller's thread cannot break apart from its caller. */
  onBroken(): void {}

  /** Its memory is its caller's: never replaced. */
  onMemoryReturned(): void {}

  async close(): Promise<void> {
    this.schemas.dispose();
  }
}

/** Each document's verdict (SchemaRegistry.validateMany); one that libxml2 cannot read is named as such. */
export function documentVerdicts(schemas: SchemaRegistry, texts: readonly string[], rootName: string): DocumentVerdict[] {
  try {
    return schemas.validateMany(texts, rootName).map((errors) => ({ errors }));
  } catch {
    return texts.map((text) => {
      try {
        return { errors: schemas.validate(text, rootName) };
      } catch (error) {
        return { unreadable: ((error as Error).message ?? String(error)).trim() };
      }
    });
  }
}
