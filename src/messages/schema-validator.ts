import type { ReportPreamble, ReportRecord } from './custodian-reporting/report-splitter.ts';

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

/**
 * A document's schema errors ([] when it is valid), why libxml2 could not read it at
 * all, or that its validation ran past the time budget (in ms) and was stopped.
 */
export type DocumentVerdict = { readonly errors: readonly SchemaError[] } | { readonly unreadable: string } | { readonly overBudgetMs: number };

/** What validation needs of a streamed report's preamble: its text, not the parsed tree. */
export type PreambleText = Omit<ReportPreamble, 'root'>;

/** A record batch's schema errors (custodian-reporting/report-batch.validator.ts). */
export interface BatchVerdict {
  /** Errors of the preamble (header, as-of date): they reject the whole report. */
  readonly preambleErrors: readonly SchemaError[];
  /** Errors per record, by index in the batch; records without errors are absent. */
  readonly recordErrors: ReadonlyMap<number, readonly SchemaError[]>;
}

/**
 * Validates record batches of streamed reports. Asynchronous so that validation, the
 * largest part of a report's cost, runs off the gateway's thread where it can.
 */
export interface BatchValidator {
  validate(typeName: string, preamble: PreambleText, records: readonly ReportRecord[], recordName: string): Promise<BatchVerdict>;
}

/** Also validates a streamed report's record batches (BatchValidator.validate, report-batch.validator.ts). */
export interface SchemaValidator extends BatchValidator {
  /** Each document (already through the XML gate) against its root's schema, in order. */
  validateDocuments(texts: readonly string[], rootName: string): Promise<DocumentVerdict[]>;
  /** Where validation runs, for the log. */
  readonly where: 'thread' | 'inline';
  /** The libxml2 release that validates, logged at start. */
  readonly libxml2: string;
  /** The build of libxml2 that runs (libxml2-wasm and its version), logged at start. */
  readonly binding: string;
  /**
   * The size of the validation thread's libxml2 WebAssembly memory as its last request
   * (or its start) left it; undefined inline, while a thread is being replaced, or
   * where it cannot be read.
   */
  readonly libxml2MemoryBytes: number | undefined;
  /**
   * Calls `listener` if validation stops working for good (the validation thread
   * died, or one started in its place could not load the schemas).
   */
  onBroken(listener: (error: Error) => void): void;
  /**
   * Calls `listener` each time the validation thread is replaced to give back the
   * WebAssembly memory a validation grew past the limit (validation-thread.ts).
   */
  onMemoryReturned(listener: (returned: ReturnedMemory) => void): void;
  close(): Promise<void>;
}

/** A validation thread's libxml2 memory, in bytes, when it was replaced to give it back. */
export interface ReturnedMemory {
  /** When the thread had loaded the schemas. */
  readonly atStartBytes: number;
  /** As the validation that grew it left it. */
  readonly grownToBytes: number;
  /** The growth allowed (limits.validationMemoryGrowthMb). */
  readonly limitBytes: number;
}
