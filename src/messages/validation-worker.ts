import { parentPort, workerData } from 'node:worker_threads';
import type { PreambleText } from './schema-validator.ts';
import type { ReportRecord } from './custodian-reporting/report-splitter.ts';
import { loadWatchingLibxml2Memory } from './libxml2-memory.ts';

/**
 * The validation thread's own code (see validation-thread.ts): loads the schemas into
 * its own libxml2 (a WebAssembly instance of this thread) and answers one request at
 * a time, in the order they come. The gateway's thread sends the next request only
 * when this one is answered, so it always knows which request is running and how long
 * it has run: past the time budget it ends this thread and starts another. Every
 * answer carries the size of libxml2's WebAssembly memory as the request left it (one
 * property read), so the gateway's thread can replace a thread whose memory a document
 * grew, to give it back.
 */
export type ValidationRequest =
  | { readonly id: number; readonly kind: 'documents'; readonly texts: readonly string[]; readonly rootName: string }
  | { readonly id: number; readonly kind: 'records'; readonly typeName: string; readonly preamble: PreambleText; readonly records: readonly ReportRecord[]; readonly recordName: string };

/** `memoryBytes`: libxml2's WebAssembly memory after the request; absent where it cannot be read. */
export type ValidationReply =
  | { readonly id: number; readonly result: unknown; readonly memoryBytes?: number }
  | { readonly id: number; readonly error: string; readonly memoryBytes?: number };

export type ValidationStartup =
  | { readonly ready: true; readonly libxml2: string; readonly binding: string; readonly memoryBytes?: number }
  | { readonly ready: false; readonly error: string };

const port = parentPort;
if (!port) throw new Error('validation-worker.ts runs as a worker thread only');

try {
  const { loaded: [{ SchemaRegistry }, { InlineSchemaValidator }], memoryBytes } = await loadWatchingLibxml2Memory(
    () => Promise.all([import('./schema-registry.ts'), import('./inline-schema-validator.ts')]),
  );
  const validator = new InlineSchemaValidator(SchemaRegistry.load((workerData as { folder: string }).folder));
  const withMemory = <T extends object>(reply: T) => {
    const bytes = memoryBytes();
    return bytes === undefined ? reply : { ...reply, memoryBytes: bytes };
  };
  port.on('message', (request: ValidationRequest) => {
    const work = request.kind === 'records'
      ? validator.validate(request.typeName, request.preamble, request.records, request.recordName)
      : validator.validateDocuments(request.texts, request.rootName);
    void work.then(
      (result) => port.postMessage(withMemory({ id: request.id, result }) satisfies ValidationReply),
      (error: unknown) => port.postMessage(withMemory({ id: request.id, error: (error as Error).message ?? String(error) }) satisfies ValidationReply),
    );
  });
  port.postMessage(withMemory({ ready: true, libxml2: validator.libxml2, binding: validator.binding }) satisfies ValidationStartup);
} catch (error) {
  port.postMessage({ ready: false, error: (error as Error).message ?? String(error) } satisfies ValidationStartup);
}
