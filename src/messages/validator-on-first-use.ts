import type { ReportRecord } from './custodian-reporting/report-splitter.ts';
import type { BatchVerdict, DocumentVerdict, PreambleText, ReturnedMemory, SchemaValidator } from './schema-validator.ts';

/**
 * A schema validator started when the first document is validated, not before: for the
 * commands that open the ledger in-process (`applications list`, `messages show` …),
 * which mostly validate nothing, so that they do not wait for the validation thread to
 * load libxml2 and compile every schema (about half a second) only to close it again.
 * `submit` starts it with its document. What it reports of itself (where, libxml2,
 * binding) is the started validator's, or `not started`.
 */
export class ValidatorOnFirstUse implements SchemaValidator {
  #started: Promise<SchemaValidator> | undefined;
  #ready: SchemaValidator | undefined;
  readonly #brokenListeners: ((error: Error) => void)[] = [];
  readonly #memoryListeners: ((returned: ReturnedMemory) => void)[] = [];

  constructor(private readonly start: () => Promise<SchemaValidator>) {}

  get where(): 'thread' | 'inline' {
    return this.#ready?.where ?? 'thread';
  }
  get libxml2(): string {
    return this.#ready?.libxml2 ?? 'not started';
  }
  get binding(): string {
    return this.#ready?.binding ?? 'not started';
  }
  get libxml2MemoryBytes(): number | undefined {
    return this.#ready?.libxml2MemoryBytes;
  }

  async validateDocuments(texts: readonly string[], rootName: string): Promise<DocumentVerdict[]> {
    return (await this.#validator()).validateDocuments(texts, rootName);
  }

  async validate(typeName: string, preamble: PreambleText, records: readonly ReportRecord[], recordName: string): Promise<BatchVerdict> {
    return (await this.#validator()).validate(typeName, preamble, records, recordName);
  }

  onBroken(listener: (error: Error) => void): void {
    this.#brokenListeners.push(listener);
    this.#ready?.onBroken(listener);
  }

  onMemoryReturned(listener: (returned: ReturnedMemory) => void): void {
    this.#memoryListeners.push(listener);
    this.#ready?.onMemoryReturned(listener);
  }

  async close(): Promise<void> {
    if (this.#started) await (await this.#started).close();
  }

  #validator(): Promise<SchemaValidator> {
    this.#started ??= this.start().then((validator) => {
      this.#ready = validator;
      for (const listener of this.#brokenListeners) validator.onBroken(listener);
      for (const listener of this.#memoryListeners) validator.onMemoryReturned(listener);
      return validator;
    });
    return this.#started;
  }
}
