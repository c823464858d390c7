import { parentPort, workerData } from 'node:worker_threads';
import type { PreambleText } from './custodian-reporting/report-batch.validator.ts';
import type { ReportRecord } from './custodian-reporting/report-splitter.ts';

/**
 * The validation thread's own code (see validation-thread.ts): loads the schemas with
 * libxml2 and answers requests one at a time, in the order they come. libxml2 is loaded
 * here only, never on the gateway's thread: its Node addon can be loaded once per process.
 */
export type ValidationRequest =
  | { readonly id: number; readonly kind: 'documents'; readonly texts: readonly string[]; readonly rootName: string }
  | { readonly id: number; readonly kind: 'records'; readonly typeName: string; readonly preamble: PreambleText; readonly records: readonly ReportRecord[]; readonly recordName: string };

export type ValidationReply = { readonly id: number; readonly result: unknown } | { readonly id: number; readonly error: string };

export type ValidationStartup = { readonly ready: true } | { readonly ready: false; readonly error: string };

const port = parentPort;
if (!port) throw new Error('validation-worker.ts runs as a worker thread only');

try {
  const [{ SchemaRegistry }, { InlineSchemaValidator }] = await Promise.all([import('./schema-registry.ts'), import('./inline-schema-validator.ts')]);
  const validator = new InlineSchemaValidator(SchemaRegistry.load((workerData as { folder: string }).folder));
  port.on('message', (request: ValidationRequest) => {
    const work =
      request.kind === 'documents'
        ? validator.validateDocuments(request.texts, request.rootName)
        : validator.validate(request.typeName, request.preamble, request.records, request.recordName);
    work.then(
      (result) => port.postMessage({ id: request.id, result } satisfies ValidationReply),
      (error: unknown) => port.postMessage({ id: request.id, error: (error as Error).message ?? String(error) } satisfies ValidationReply),
    );
  });
  port.postMessage({ ready: true } satisfies ValidationStartup);
} catch (error) {
  port.postMessage({ ready: false, error: (error as Error).message ?? String(error) } satisfies ValidationStartup);
}
