import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { GatewayError } from '../core/gateway-error.ts';
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
 * (it does not keep the process alive when idle). Where the thread cannot be started
 * at all, validation runs inline, on the caller's thread, instead (without a budget).
 *
 * The time budget: libxml2 cannot be interrupted, but its thread can be ended. A
 * request that runs longer than `budgetMs` ends the thread and another is started in
 * its place. A document found over budget alone is answered `overBudgetMs` (rejected
 * with SCHEMA_VALIDATION_TIMEOUT, never retried: it would take as long again); when
 * the request held several documents, each is validated again alone under its own
 * budget, so only the slow one is refused. A report's record batch over budget fails
 * with that code. Requests waiting behind it go to the new thread.
 */
let shared: { readonly folder: string; readonly validator: Promise<SchemaValidator> } | undefined;

/**
 * Time one validation request may take on the thread (default): over ten times the
 * 0.7 s the largest document the gate lets through (16 MiB, 87,000 items) takes.
 */
export const VALIDATION_BUDGET_MS = 10_000;

export interface ValidationThreadOptions {
  /** How long one request may run before its thread is ended and replaced (default VALIDATION_BUDGET_MS). */
  readonly budgetMs?: number;
}

/** The process's schema validator for the schemas in `folder`. */
export function processSchemaValidator(folder: string): Promise<SchemaValidator> {
  if (shared && shared.folder !== folder) throw new Error(`schemas are validated from ${shared.folder} in this process, not ${folder}`);
  shared ??= { folder, validator: startValidationThread(folder) };
  return shared.validator;
}

/** A validation thread of its own (the process's one is processSchemaValidator): tests, and budgets other than the default. */
export async function startValidationThread(folder: string, options: ValidationThreadOptions = {}): Promise<SchemaValidator> {
  const { worker, startup } = await spawn(folder);
  if (startup.ready) return new ValidationThread(folder, options.budgetMs ?? VALIDATION_BUDGET_MS, worker, startup);
  const [{ SchemaRegistry }, { InlineSchemaValidator }] = await Promise.all([import('./schema-registry.ts'), import('./inline-schema-validator.ts')]);
  return new InlineSchemaValidator(SchemaRegistry.load(folder));
}

async function spawn(folder: string): Promise<{ worker: Worker; startup: ValidationStartup }> {
  const worker = import.meta.url.endsWith('.ts')
    ? // Run from the sources, the thread registers tsx itself (a --import of the process does not reach it).
      new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./validation-worker.ts', import.meta.url).href)}); })`,
        { eval: true, workerData: { folder } },
      )
    : new Worker(new URL('./validation-worker.js', import.meta.url), { workerData: { folder }, resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 } });
  // A thread that cannot load the schemas may report it twice (its answer, then an error event).
  const startupError = (error: Error) => void error;
  worker.on('error', startupError);
  const startup = await (once(worker, 'message') as Promise<[ValidationStartup]>).then(
    ([answer]) => answer,
    (error: unknown) => ({ ready: false, error: String(error) }) as const,
  );
  if (startup.ready) worker.off('error', startupError);
  else await worker.terminate();
  return { worker, startup };
}

type Request = DistributiveOmit<ValidationRequest, 'id'>;
interface Job {
  readonly request: Request;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

class ValidationThread implements SchemaValidator {
  readonly where = 'thread';
  readonly libxml2: string;
  readonly binding: string;
  /** Undefined while a thread ended over budget is being replaced. */
  #worker: Worker | undefined;
  readonly #queue: Job[] = [];
  #running: { readonly id: number; readonly job: Job; readonly timer: NodeJS.Timeout } | undefined;
  #next = 1;
  #broken: Error | undefined;
  readonly #brokenListeners: ((error: Error) => void)[] = [];

  constructor(private readonly folder: string, private readonly budgetMs: number, worker: Worker, startup: Extract<ValidationStartup, { ready: true }>) {
    this.libxml2 = startup.libxml2;
    this.binding = startup.binding;
    this.#attach(worker);
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

  #attach(worker: Worker): void {
    this.#worker = worker;
    worker.on('message', (reply: ValidationReply) => {
      const running = this.#running;
      if (!running || reply.id !== running.id) return;
      clearTimeout(running.timer);
      this.#running = undefined;
      if ('error' in reply) running.job.reject(new Error(reply.error));
      else running.job.resolve(reply.result);
      this.#pump();
    });
    // A thread this side ended (over budget) is no longer this.#worker: its exit is expected.
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#fail(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the validation thread stopped (exit code ${code})`)));
    // After the listeners: adding a 'message' listener refs the thread's port again.
    worker.unref();
    this.#pump();
  }

  #ask(request: Request): Promise<unknown> {
    if (this.#broken) return Promise.reject(this.#broken);
    return new Promise((resolve, reject) => {
      this.#queue.push({ request, resolve, reject });
      this.#pump();
    });
  }

  /** Sends the next request when the thread is free; keeps the thread alive only while it has work. */
  #pump(): void {
    const worker = this.#worker;
    if (!worker || this.#running || this.#broken) return;
    const job = this.#queue.shift();
    if (!job) {
      worker.unref();
      return;
    }
    worker.ref();
    const id = this.#next++;
    this.#running = { id, job, timer: setTimeout(() => this.#overBudget(), this.budgetMs) };
    worker.postMessage({ ...job.request, id });
  }

  #overBudget(): void {
    const { job } = this.#running!;
    this.#running = undefined;
    const worker = this.#worker!;
    this.#worker = undefined;
    void worker.terminate();
    const { request } = job;
    if (request.kind === 'records') {
      job.reject(new GatewayError('SCHEMA_VALIDATION_TIMEOUT', `A batch of ${request.records.length} records of a ${request.typeName} report took longer than ${this.budgetMs} ms.`));
    } else if (request.texts.length === 1) {
      job.resolve([{ overBudgetMs: this.budgetMs } satisfies DocumentVerdict]);
    } else {
      // Each document again alone, first in line, so only the slow one is refused.
      const alone = request.texts.map((text) => {
        let resolve!: (result: unknown) => void;
        let reject!: (error: Error) => void;
        const verdict = new Promise<unknown>((ok, fail) => ((resolve = ok), (reject = fail)));
        return { verdict, job: { request: { kind: 'documents', texts: [text], rootName: request.rootName }, resolve, reject } satisfies Job };
      });
      this.#queue.unshift(...alone.map(({ job: single }) => single));
      Promise.all(alone.map(({ verdict }) => verdict)).then((verdicts) => job.resolve((verdicts as DocumentVerdict[][]).flat()), job.reject);
    }
    spawn(this.folder).then(
      ({ worker: replacement, startup }) => {
        if (startup.ready) this.#attach(replacement);
        else this.#fail(new Error(`the validation thread could not be started again: ${startup.error}`));
      },
      (error: unknown) => this.#fail(error as Error),
    );
  }

  #fail(error: Error): void {
    if (!this.#broken) for (const listener of this.#brokenListeners) listener(error);
    this.#broken = error;
    if (this.#running) clearTimeout(this.#running.timer);
    const waiting = [...(this.#running ? [this.#running.job] : []), ...this.#queue.splice(0)];
    this.#running = undefined;
    for (const job of waiting) job.reject(error);
    this.#worker?.unref();
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
