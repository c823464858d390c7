import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import type { PreambleText } from './custodian-reporting/report-batch.validator.ts';
import type { ReportRecord } from './custodian-reporting/report-splitter.ts';

/**
 * The validation thread's own code (see validation-thread.ts): loads the schemas with
 * libxml2 and answers requests in the order they come. libxml2 is loaded here only, never
 * on the gateway's thread: its Node addon can be loaded once per process.
 *
 * Requests for documents of one type that are waiting together (several validation jobs
 * at once) are validated in one call: libxml2 compiles the schema on every call, which
 * costs more than validating a few small documents.
 */
export type ValidationRequest =
  | { readonly id: number; readonly kind: 'documents'; readonly texts: readonly string[]; readonly rootName: string }
  | { readonly id: number; readonly kind: 'records'; readonly typeName: string; readonly preamble: PreambleText; readonly records: readonly ReportRecord[]; readonly recordName: string };

export type ValidationReply = { readonly id: number; readonly result: unknown } | { readonly id: number; readonly error: string };

export type ValidationStartup = { readonly ready: true; readonly libxml2: string } | { readonly ready: false; readonly error: string };

const port = parentPort;
if (!port) throw new Error('validation-worker.ts runs as a worker thread only');

try {
  const [{ SchemaRegistry }, { InlineSchemaValidator }] = await Promise.all([import('./schema-registry.ts'), import('./inline-schema-validator.ts')]);
  const validator = new InlineSchemaValidator(SchemaRegistry.load((workerData as { folder: string }).folder));
  const answer = (id: number, work: Promise<unknown>) =>
    work.then(
      (result) => port.postMessage({ id, result } satisfies ValidationReply),
      (error: unknown) => port.postMessage({ id, error: (error as Error).message ?? String(error) } satisfies ValidationReply),
    );
  port.on('message', (first: ValidationRequest) => {
    for (const group of groupedByType([first, ...waitingRequests(port)])) {
      const [request] = group;
      if (request?.kind === 'records') {
        void answer(request.id, validator.validate(request.typeName, request.preamble, request.records, request.recordName));
        continue;
      }
      const documents = group as Extract<ValidationRequest, { kind: 'documents' }>[];
      const verdicts = validator.validateDocuments(documents.flatMap((d) => d.texts), documents[0]!.rootName);
      let offset = 0;
      for (const { id, texts } of documents) {
        const from = offset;
        offset += texts.length;
        void answer(id, verdicts.then((all) => all.slice(from, from + texts.length)));
      }
    }
  });
  port.postMessage({ ready: true, libxml2: validator.libxml2 } satisfies ValidationStartup);
} catch (error) {
  port.postMessage({ ready: false, error: (error as Error).message ?? String(error) } satisfies ValidationStartup);
}

/** The requests already waiting on the port, taken without waiting for more. */
function waitingRequests(port: MessagePort): ValidationRequest[] {
  const requests: ValidationRequest[] = [];
  for (let received = receiveMessageOnPort(port); received; received = receiveMessageOnPort(port)) requests.push(received.message as ValidationRequest);
  return requests;
}

/** Document requests of one root together (in order), each record batch of a report alone. */
function groupedByType(requests: readonly ValidationRequest[]): ValidationRequest[][] {
  const groups: ValidationRequest[][] = [];
  const byRoot = new Map<string, ValidationRequest[]>();
  for (const request of requests) {
    if (request.kind === 'records') {
      groups.push([request]);
      continue;
    }
    const group = byRoot.get(request.rootName);
    if (group) group.push(request);
    else {
      const created = [request];
      byRoot.set(request.rootName, created);
      groups.push(created);
    }
  }
  return groups;
}
