import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { GatewayError } from '../core/gateway-error.ts';
import type { ReportRecord } from './custodian-reporting/report-splitter.ts';
import type { BatchVerdict, DocumentVerdict, PreambleText, ReturnedMemory, SchemaValidator } from './schema-validator.ts';
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
 *
 * The memory limit: libxml2's WebAssembly memory grows with the largest document it
 * has held and never shrinks (200,000 attributes or a million elements take it up by
 * 40–60 MB, a full-size valid document by about 95 MB), so one hostile document would
 * keep the process that much larger for good. The thread reports the memory's size
 * with every answer; when a request leaves it more than `memoryGrowthMb` above the
 * size the thread started with, that request keeps its verdict, the thread is ended
 * (giving its memory back) and another is started in its place, as over budget.
 * Requests waiting meanwhile — a report's next record batches among them — go to the
 * new thread, none lost.
 */
let shared: { readonly folder: string; readonly options: ValidationThreadOptions; readonly validator: Promise<SchemaValidator> } | undefined;

/**
 * Time one validation request may take on the thread (default): over ten times the
 * 0.7 s the largest document the gate lets through (16 MiB, 87,000 items) takes.
 */
export const VALIDATION_BUDGET_MS = 10_000;

/**
 * How far one validation may grow the thread's WebAssembly memory before the thread is
 * replaced (default, as `limits.validationMemoryGrowthMb`): well above what documents
 * of everyday size leave behind (a few MB), so only a document near the size limit or
 * built to be expensive costs a new thread (about half a second to start).
 */
export const VALIDATION_MEMORY_GROWTH_MB = 64;

export interface ValidationThreadOptions {
  /** How long one request may run before its thread is ended and replaced (default VALIDATION_BUDGET_MS). */
  readonly budgetMs?: number;
  /** How far above its start a request may leave the thread's WebAssembly memory before the thread is replaced (default VALIDATION_MEMORY_GROWTH_MB). */
  readonly memoryGrowthMb?: number;
}

/** The process's schema validator for the schemas in `folder`; every gateway of the process asks for the same options. */
export function processSchemaValidator(folder: string, options: ValidationThreadOptions = {}): Promise<SchemaValidator> {
  if (shared && shared.folder !== folder) throw new Error(`schemas are validated from ${shared.folder} in this process, not ${folder}`);
  const limits = { budgetMs: options.budgetMs ?? VALIDATION_BUDGET_MS, memoryGrowthMb: options.memoryGrowthMb ?? VALIDATION_MEMORY_GROWTH_MB };
  if (shared && (shared.options.budgetMs !== limits.budgetMs || shared.options.memoryGrowthMb !== limits.memoryGrowthMb)) {
    throw new Error(`the validation thread of this process runs with ${JSON.stringify(shared.options)}, not ${JSON.stringify(limits)}`);
  }
  shared ??= { folder, options: limits, validator: startValidationThread(folder, limits) };
  return shared.validator;
}

/** A validation thread of its own (the process's one is processSchemaValidator): tests, and limits other than the default. */
export async function startValidationThread(folder: string, options: ValidationThreadOptions = {}): Promise<SchemaValidator> {
  const { worker, startup } = await spawn(folder);
  const limits = { budgetMs: options.budgetMs ?? VALIDATION_BUDGET_MS, memoryGrowthBytes: (options.memoryGrowthMb ?? VALIDATION_MEMORY_GROWTH_MB) * 1024 * 1024 };
  if (startup.ready) return new ValidationThread(folder, limits, worker, startup);
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
  /** Undefined while a thread ended (over budget, or for its memory) is being replaced. */
  #worker: Worker | undefined;
  /** The WebAssembly memory the thread started with; undefined where the thread cannot tell. */
  #memoryAtStart: number | undefined;
  /** The WebAssembly memory as the thread's last answer left it. */
  #memoryNow: number | undefined;
  readonly #queue: Job[] = [];
  #running: { readonly id: number; readonly job: Job; readonly timer: NodeJS.Timeout } | undefined;
  #next = 1;
  #broken: Error | undefined;
  readonly #brokenListeners: ((error: Error) => void)[] = [];
  readonly #memoryListeners: ((returned: ReturnedMemory) => void)[] = [];
  readonly budgetMs: number;
  readonly memoryGrowthBytes: number;

  constructor(
    private readonly folder: string,
    limits: { readonly budgetMs: number; readonly memoryGrowthBytes: number },
    worker: Worker,
    startup: Extract<ValidationStartup, { ready: true }>,
  ) {
    this.libxml2 = startup.libxml2;
    this.binding = startup.binding;
    this.budgetMs = limits.budgetMs;
    this.memoryGrowthBytes = limits.memoryGrowthBytes;
    this.#attach(worker, startup);
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

  onMemoryReturned(listener: (returned: ReturnedMemory) => void): void {
    this.#memoryListeners.push(listener);
  }

  get libxml2MemoryBytes(): number | undefined {
    return this.#memoryNow;
  }

  /** Shared by the process: nothing to close. */
  async close(): Promise<void> {}

  #attach(worker: Worker, startup: Extract<ValidationStartup, { ready: true }>): void {
    this.#worker = worker;
    this.#memoryAtStart = startup.memoryBytes;
    this.#memoryNow = startup.memoryBytes;
    worker.on('message', (reply: ValidationReply) => {
      const running = this.#running;
      if (!running || reply.id !== running.id) return;
      clearTimeout(running.timer);
      this.#running = undefined;
      this.#memoryNow = reply.memoryBytes;
      if ('error' in reply) running.job.reject(new Error(reply.error));
      else running.job.resolve(reply.result);
      const atStart = this.#memoryAtStart;
      if (atStart !== undefined && reply.memoryBytes !== undefined && reply.memoryBytes - atStart > this.memoryGrowthBytes) {
        const returned = { atStartBytes: atStart, grownToBytes: reply.memoryBytes, limitBytes: this.memoryGrowthBytes };
        this.#replace();
        for (const listener of this.#memoryListeners) listener(returned);
      } else {
        this.#pump();
      }
    });
    // A thread this side ended (over budget, for its memory) is no longer this.#worker: its exit is expected.
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
    this.#replace();
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
  }

  /**
   * Ends the thread (libxml2's work and memory with it) and starts another; what is
   * queued meanwhile waits, and goes to the new thread once it has loaded the schemas.
   */
  #replace(): void {
    const worker = this.#worker!;
    this.#worker = undefined;
    this.#memoryAtStart = undefined;
    this.#memoryNow = undefined;
    void worker.terminate();
    spawn(this.folder).then(
      ({ worker: replacement, startup }) => {
        if (startup.ready) this.#attach(replacement, startup);
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
