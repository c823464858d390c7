import type { BatchVerdict, PreambleText } from './report-batch.validator.ts';
import type { ReportRecord } from './report-splitter.ts';

/**
 * Validates record batches of streamed reports (report-batch.validator.ts). The port is
 * asynchronous so that validation, the largest part of a report's cost, runs off the
 * gateway's thread: the gateway's SchemaValidator (schema-validator.ts) implements it,
 * on a thread of its own where it can.
 */
export interface BatchValidator {
  validate(typeName: string, preamble: PreambleText, records: readonly ReportRecord[], recordName: string): Promise<BatchVerdict>;
}
