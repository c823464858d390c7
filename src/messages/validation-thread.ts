import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { BatchVerdict, PreambleText } from './custodian-reporting/report-batch.validator.ts';
import type { ReportRecord } from './custodian-reporting/report-splitter.ts';
import type { DocumentVerdict, SchemaValidator } from './schema-validator.ts';
import type { ValidationReply, ValidationRequest, ValidationStartup } from './validation-worker.ts';

/**
 * Schema validation on a thread of its own (validation-worker.ts), so that libxml2's
 * work — most of the cost of a large custodian report — runs on the second core while
 * the gateway's thread reads the file and feeds PostgreSQL.
 *
 * One thread per process, shared by every gateway opened in it and never stopped
 * (it does not keep the process alive when idle): libxml2's Node addon can be loaded
 * by one thread only in a process's lifetime. Where that thread cannot load it —
 * because the process's main thread already has (a test using SchemaRegistry
 * directly) — validation runs inline, on the caller's thread, instead.
 */
let shared: { readonly folder: string; readonly validator: Promise<SchemaValidator> } | undefined;

/** The process's schema validator for the schemas in `folder`. */
export function processSchemaValidator(folder: string): Promise<SchemaValidator> {
  if (shared && shared.folder !== folder) throw new Error(`schemas are validated from ${shared.folder} in this process, not ${folder}`);
  shared ??= { folder, validator: startThread(folder) };
  return shared.validator;
}

async function startThread(folder: string): Promise<SchemaValidator> {
  const worker = import.meta.url.endsWith('.ts')
    ? // Run from the sources, the thread registers tsx itself (a --import of the process does not reach it).
      new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./validation-worker.ts', import.meta.url).href)}); })`,
        { eval: true, workerData: { folder } },
      )
    : new Worker(new URL('./validation-worker.js', import.meta.url), { workerData: { folder }, resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 } });
  // A thread that cannot load libxml2 may report it twice (its answer, then an error event).
  const startupError = (error: Error) => void error;
  worker.on('error', startupError);
  const startup = await (once(worker, 'message') as Promise<[ValidationStartup]>).then(
    ([answer]) => answer,
    (error: unknown) => ({ ready: false, error: String(error) }) as const,
  );
  if (startup.ready) {
    worker.off('error', startupError);
    return new ValidationThread(worker, startup.libxml2);
  }
  await worker.terminate();
  const [{ SchemaRegistry }, { InlineSchemaValidator }] = await Promise.all([import('./schema-registry.ts'), import('./inline-schema-validator.ts')]);
  return new InlineSchemaValidator(SchemaRegistry.load(folder));
}

class ValidationThread implements SchemaValidator {
  readonly where = 'thread';
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();
  #next = 1;
  #broken: Error | undefined;
  readonly #brokenListeners: ((error: Error) => void)[] = [];

  constructor(worker: Worker, readonly libxml2: string) {
    this.#worker = worker;
    worker.on('message', (reply: ValidationReply) => {
      const waiter = this.#pending.get(reply.id);
      if (!waiter) return;
      this.#settled(reply.id);
      if ('error' in reply) waiter.reject(new Error(reply.error));
      else waiter.resolve(reply.result);
    });
    const fail = (error: Error) => {
      if (!this.#broken) for (const listener of this.#brokenListeners) listener(error);
      this.#broken = error;
      for (const [id, waiter] of this.#pending) {
        this.#settled(id);
        waiter.reject(error);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the validation thread stopped (exit code ${code})`)));
    // After the listeners: adding a 'message' listener refs the thread's port again.
    worker.unref();
  }

  validateDocuments(texts: readonly string[], rootName: string): Promise<DocumentVerdict[]> {
    return this.#ask({ kind: 'documents', texts, rootName }) as Promise<DocumentVerdict[]>;
  }

  validate(typeName: string, preamble: PreambleText, records: readonly ReportRecord[], recordName: string): Promise<BatchVerdict> {
    // Only what validation needs crosses to the thread: the preamble's text, not its parsed tree.
    const { rootStartTag, rootQName, text, line } = preamble;
    return this.#ask({ kind: 'records', typeName, preamble: { rootStartTag, rootQName, text, line }, records, recordName }) as Promise<BatchVerdict>;
  }

  onBroken(listener: (error: Error) => void): void {
    this.#brokenListeners.push(listener);
  }

  /** Shared by the process: nothing to close. */
  async close(): Promise<void> {}

  #ask(request: DistributiveOmit<ValidationRequest, 'id'>): Promise<unknown> {
    if (this.#broken) return Promise.reject(this.#broken);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      // Kept alive while it has work, so a caller waiting on it is never left behind.
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...request, id });
    });
  }

  #settled(id: number): void {
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker.unref();
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
