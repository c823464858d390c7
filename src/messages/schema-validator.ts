import type { BatchVerdict, PreambleText } from './custodian-reporting/report-batch.validator.ts';
import type { ReportRecord } from './custodian-reporting/report-splitter.ts';

/**
 * The port the pipeline validates XML against the catalogue's schemas through. Two
 * adapters: InlineSchemaValidator runs libxml2 on the caller's thread;
 * ValidationThread (validation-thread.ts) runs it on a thread of its own, so the
 * gateway's thread goes on reading files and driving PostgreSQL meanwhile — for a
 * large report, validation is the largest part of the work.
 */
export interface SchemaError {
  readonly line?: number;
  readonly element?: string;
  readonly text: string;
}

/** A document's schema errors ([] when it is valid), or why libxml2 could not read it at all. */
export type DocumentVerdict = { readonly errors: readonly SchemaError[] } | { readonly unreadable: string };

export interface SchemaValidator {
  /** Each document (already through the XML gate) against its root's schema, in order. */
  validateDocuments(texts: readonly string[], rootName: string): Promise<DocumentVerdict[]>;
  /** A batch of a streamed report's records, with the report's preamble (report-batch.validator.ts). */
  validate(typeName: string, preamble: PreambleText, records: readonly ReportRecord[], recordName: string): Promise<BatchVerdict>;
  /** Where validation runs, for the log. */
  readonly where: 'thread' | 'inline';
  /**
   * Calls `listener` if validation stops working for good (the validation thread
   * died: libxml2 cannot be loaded again in this process, so only a restart helps).
   */
  onBroken(listener: (error: Error) => void): void;
  close(): Promise<void>;
}
