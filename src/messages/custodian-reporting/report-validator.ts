import type { SchemaRegistry } from '../schema-registry.ts';
import { validateReportBatch, type BatchVerdict } from './report-batch.validator.ts';
import type { ReportPreamble, ReportRecord } from './report-splitter.ts';

/**
 * Validates record batches of streamed reports. The port is asynchronous so that
 * validation, the largest part of a report's cost, can move off the gateway's thread.
 * `InlineBatchValidator` runs libxml2 in the caller's thread. (A separate validation
 * process was measured and was slower: handing 135 MB of batches over IPC cost more
 * than it saved. libxmljs2 cannot be loaded into a worker thread of a process that
 * already uses it. docs/performance.md has the figures.)
 */
export interface BatchValidator {
  validate(typeName: string, preamble: ReportPreamble, records: readonly ReportRecord[], recordName: string): Promise<BatchVerdict>;
  close(): Promise<void>;
}

export class InlineBatchValidator implements BatchValidator {
  readonly #schemas: SchemaRegistry;

  constructor(schemas: SchemaRegistry) {
    this.#schemas = schemas;
  }

  async validate(typeName: string, preamble: ReportPreamble, records: readonly ReportRecord[], recordName: string): Promise<BatchVerdict> {
    return validateReportBatch(this.#schemas, typeName, preamble, records, recordName);
  }

  async close(): Promise<void> {}
}
