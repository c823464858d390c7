import type { SchemaRegistry } from '../schema-registry.ts';
import type { BatchVerdict, PreambleText, SchemaError } from '../schema-validator.ts';
import type { ReportRecord } from './report-splitter.ts';

/** The schema's complaint that a report has no records: expected when the preamble is checked alone. */
function missingRecords(text: string, recordName: string): boolean {
  return new RegExp(`Missing child element\\(s\\)\\. Expected is \\( (\\{[^}]*\\})?${recordName} \\)`).test(text);
}

/**
 * Validates records of a streamed report in batches against the report's own schema:
 * the preamble and a batch of records, as the sender wrote them, make a small
 * document of the same type, which libxml2 parses and validates in one call (one call
 * per record would cost about five times as much). Each error is given back to the
 * record it concerns, with the line of the sender's file, so a bad record rejects its
 * account and nothing else. A record that is not even well-formed is found by
 * validating the batch's records one by one.
 */
export function validateReportBatch(schemas: SchemaRegistry, typeName: string, preamble: PreambleText, records: readonly ReportRecord[], recordName = 'Account'): BatchVerdict {
  try {
    return validateTogether(schemas, typeName, preamble, records, recordName);
  } catch (error) {
    if (records.length === 0) return { preambleErrors: [{ text: `Not well-formed: ${messageOf(error)}` }], recordErrors: new Map() };
    // Some record is not well-formed XML: find which, one by one.
    const recordErrors = new Map<number, SchemaError[]>();
    let preambleErrors: readonly SchemaError[] = [];
    records.forEach((record, index) => {
      try {
        const verdict = validateTogether(schemas, typeName, preamble, [record], recordName);
        preambleErrors = verdict.preambleErrors;
        const errors = verdict.recordErrors.get(0);
        if (errors) recordErrors.set(index, [...errors]);
      } catch (recordError) {
        recordErrors.set(index, [{ line: record.line, text: `Not well-formed XML: ${messageOf(recordError)}` }]);
      }
    });
    return { preambleErrors, recordErrors };
  }
}

function validateTogether(schemas: SchemaRegistry, typeName: string, preamble: PreambleText, records: readonly ReportRecord[], recordName: string): BatchVerdict {
  const parts = [preamble.rootStartTag, preamble.text];
  for (const record of records) parts.push('\n', record.text);
  parts.push('\n', `</${preamble.rootQName}>`);
  const errors = schemas.validate(parts.join(''), typeName, { noblanks: true });
  if (errors.length === 0) return { preambleErrors: [], recordErrors: new Map() };

  const { origin, owner } = lineMap(preamble, records);
  const preambleErrors: SchemaError[] = [];
  const recordErrors = new Map<number, SchemaError[]>();
  for (const error of errors) {
    const at = error.line ?? 0;
    const index = owner[at] ?? -1;
    const original = origin[at];
    const located: SchemaError = { ...error, ...(original ? { line: original } : {}) };
    if (index >= 0) {
      const list = recordErrors.get(index) ?? [];
      list.push(located);
      recordErrors.set(index, list);
    } else if (!(records.length === 0 && missingRecords(error.text, recordName))) {
      preambleErrors.push(located);
    }
  }
  return { preambleErrors, recordErrors };
}

/**
 * Per line of the batch document (1-based): the line of the sender's file it came
 * from, and the record it belongs to (-1: the root or the preamble). Only made when
 * the batch has errors to place.
 */
function lineMap(preamble: PreambleText, records: readonly ReportRecord[]): { origin: number[]; owner: number[] } {
  const origin: number[] = [0];
  const owner: number[] = [-1];
  const headLines = lineCount(preamble.rootStartTag + preamble.text);
  for (let line = 0; line < headLines; line++) {
    origin.push(preamble.line + line);
    owner.push(-1);
  }
  records.forEach((record, index) => {
    const lines = lineCount(record.text);
    for (let line = 0; line < lines; line++) {
      origin.push(record.line + line);
      owner.push(index);
    }
  });
  origin.push(preamble.line);
  owner.push(-1);
  return { origin, owner };
}

function lineCount(text: string): number {
  let count = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count += 1;
  return count;
}

function messageOf(error: unknown): string {
  return ((error as Error).message ?? String(error)).trim();
}
