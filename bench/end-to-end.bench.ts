/**
 * One end-to-end scenario: documents dropped into the counterparty's inbox (atomic
 * temp name then rename), their responses noticed in the outbox with fs.watch (plus
 * readdir sweeps), latency = response seen − drop. The caller decides the drop pattern:
 * a precise schedule (sustained) or as fast as the client can (burst).
 */
import { renameSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToEvents, setTimeout as sleep } from 'node:timers/promises';
import type { BenchDocument } from './workload.ts';
import { percentile, round, withClient } from './support.ts';

const now = () => performance.now();
/** performance.now() on this process's clock → epoch milliseconds (to compare with the gateway's timestamps). */
export const toEpochMs = (perfMs: number) => performance.timeOrigin + perfMs;

export interface Folders {
  readonly inbox: string;
  readonly outbox: string;
}

/** Times (performance.now()) at which each document's response appeared; NaN until it does. */
class OutboxWatcher {
  readonly seen: Float64Array;
  readonly fileNames: (string | undefined)[];
  count = 0;
  /** Responses the fs.watch events missed and only a readdir sweep found (their time is the sweep's). */
  foundBySweep = 0;
  readonly #index: Map<string, number>;
  readonly #outbox: string;
  readonly #watcher: FSWatcher;

  constructor(outbox: string, documents: readonly BenchDocument[]) {
    this.#outbox = outbox;
    this.#index = new Map(documents.map((d, i) => [d.stem, i]));
    this.seen = new Float64Array(documents.length).fill(NaN);
    this.fileNames = new Array<string | undefined>(documents.length);
    this.#watcher = watch(outbox, (_event, filename) => {
      if (filename) this.#note(filename.toString(), now(), false);
    });
  }

  #note(name: string, at: number, bySweep: boolean): void {
    if (name.startsWith('.') || !name.endsWith('.xml')) return;
    const index = this.#index.get(name.slice(0, name.indexOf('.')));
    if (index === undefined || !Number.isNaN(this.seen[index]!)) return;
    this.seen[index] = at;
    this.fileNames[index] = name;
    this.count++;
    if (bySweep) this.foundBySweep++;
  }

  async sweep(): Promise<void> {
    const at = now();
    for (const name of await readdir(this.#outbox)) this.#note(name, at, true);
  }

  /** Waits until every response is seen, sweeping when events stop coming; false on timeout. */
  async waitForAll(timeoutMs: number): Promise<boolean> {
    const deadline = now() + timeoutMs;
    let lastCount = -1;
    let lastProgress = now();
    while (this.count < this.seen.length) {
      if (this.count !== lastCount) {
        lastCount = this.count;
        lastProgress = now();
      } else if (now() - lastProgress > 2000) {
        await this.sweep();
        lastProgress = now();
      }
      if (now() > deadline) break;
      await sleep(20);
    }
    await this.sweep();
    return this.count === this.seen.length;
  }

  close(): void {
    this.#watcher.close();
  }
}

/**
 * Writes one document the way a careful SFTP client does (temporary dot-name, then
 * rename) and returns the time just after the rename. Synchronous on purpose: the
 * drop time is then exact and the client's own libuv thread pool (4 threads) cannot
 * queue drops behind each other; callers drop in small batches and yield in between
 * so fs.watch events are still handled within a few milliseconds.
 */
function drop(inbox: string, document: BenchDocument, costs: Float64Array, index: number): number {
  const start = now();
  const temporary = join(inbox, `.${document.name}.part`);
  writeFileSync(temporary, document.bytes);
  renameSync(temporary, join(inbox, document.name));
  const end = now();
  costs[index] = end - start;
  return end;
}

export type DropPattern = { kind: 'sustained'; rate: number } | { kind: 'burst'; batch: number };

export interface ScenarioRun {
  readonly documents: readonly BenchDocument[];
  readonly dropped: Float64Array;
  readonly scheduled: Float64Array | undefined;
  readonly seen: Float64Array;
  /** How long each drop (write and rename) took the client, ms: the file system's speed during the scenario. */
  readonly dropCosts: Float64Array;
  readonly fileNames: readonly (string | undefined)[];
  readonly complete: boolean;
  readonly foundBySweep: number;
}

export async function runScenario(folders: Folders, documents: readonly BenchDocument[], pattern: DropPattern, timeoutMs: number): Promise<ScenarioRun> {
  const watcher = new OutboxWatcher(folders.outbox, documents);
  const dropped = new Float64Array(documents.length).fill(NaN);
  const dropCosts = new Float64Array(documents.length).fill(NaN);
  let scheduled: Float64Array | undefined;
  try {
    if (pattern.kind === 'sustained') {
      scheduled = new Float64Array(documents.length);
      await dropOnSchedule(folders.inbox, documents, pattern.rate, dropped, dropCosts, scheduled);
    } else {
      await dropAsFastAsPossible(folders.inbox, documents, pattern.batch, dropped, dropCosts);
    }
    const complete = await watcher.waitForAll(timeoutMs);
    return { documents, dropped, scheduled, seen: watcher.seen, dropCosts, fileNames: watcher.fileNames, complete, foundBySweep: watcher.foundBySweep };
  } finally {
    watcher.close();
  }
}

/**
 * Document j is due at start + j / rate. Every 10 ms (on an absolute schedule, so
 * timer drift does not accumulate) the documents that are due are dropped together.
 */
async function dropOnSchedule(
  inbox: string, documents: readonly BenchDocument[], rate: number, dropped: Float64Array, costs: Float64Array, scheduled: Float64Array,
): Promise<void> {
  const tickMs = 10;
  const start = now() + 20;
  for (let j = 0; j < documents.length; j++) scheduled[j] = start + (j * 1000) / rate;
  let next = 0;
  for (let tick = 0; next < documents.length; tick++) {
    const wait = start + tick * tickMs - now();
    if (wait > 0) await sleep(wait);
    const at = now();
    while (next < documents.length && scheduled[next]! <= at) {
      dropped[next] = drop(inbox, documents[next]!, costs, next);
      next++;
    }
  }
}

/** Drops `batch` documents, lets pending events run, and again, until all are dropped. */
async function dropAsFastAsPossible(inbox: string, documents: readonly BenchDocument[], batch: number, dropped: Float64Array, costs: Float64Array): Promise<void> {
  for (let j = 0; j < documents.length; j++) {
    dropped[j] = drop(inbox, documents[j]!, costs, j);
    if ((j + 1) % batch === 0) await yieldToEvents();
  }
}

export interface Distribution {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

export function distribution(values: number[]): Distribution {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  return {
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? NaN),
  };
}

export interface ScenarioFigures {
  readonly sent: number;
  readonly responses: number;
  readonly complete: boolean;
  /** Documents dropped per second, first drop to last drop. */
  readonly droppedPerSecond: number;
  /** Responses per second, first drop to last response. */
  readonly documentsPerSecond: number;
  readonly wallSeconds: number;
  readonly latencyMs: Distribution;
  /** Sustained only: how late drops were against their schedule. */
  readonly dropLagMs: Distribution | undefined;
  /** What a drop (write and rename) cost the client, µs: ten times the usual 30–60 when the file system is slow. */
  readonly dropCostUs: Distribution;
  /** Sustained only: the p99 latency of the documents dropped in each second, in order (where a tail comes from). */
  readonly p99BySecondMs: number[] | undefined;
  readonly foundBySweep: number;
}

export function figures(run: ScenarioRun): ScenarioFigures {
  const latencies: number[] = [];
  let firstDrop = Infinity;
  let lastDrop = -Infinity;
  let lastSeen = -Infinity;
  for (let i = 0; i < run.documents.length; i++) {
    firstDrop = Math.min(firstDrop, run.dropped[i]!);
    lastDrop = Math.max(lastDrop, run.dropped[i]!);
    if (Number.isNaN(run.seen[i]!)) continue;
    lastSeen = Math.max(lastSeen, run.seen[i]!);
    latencies.push(run.seen[i]! - run.dropped[i]!);
  }
  const wallSeconds = (lastSeen - firstDrop) / 1000;
  const scheduled = run.scheduled;
  return {
    sent: run.documents.length,
    responses: latencies.length,
    complete: run.complete,
    droppedPerSecond: round(run.documents.length / Math.max((lastDrop - firstDrop) / 1000, 1e-3)),
    documentsPerSecond: round(latencies.length / wallSeconds),
    wallSeconds: round(wallSeconds, 2),
    latencyMs: distribution(latencies),
    dropLagMs: scheduled ? distribution(Array.from(run.dropped, (t, i) => t - scheduled[i]!)) : undefined,
    dropCostUs: distribution(Array.from(run.dropCosts, (cost) => cost * 1000)),
    p99BySecondMs: scheduled ? p99BySecond(run, firstDrop) : undefined,
    foundBySweep: run.foundBySweep,
  };
}

function p99BySecond(run: ScenarioRun, firstDrop: number): number[] {
  const seconds: number[][] = [];
  for (let i = 0; i < run.documents.length; i++) {
    const second = Math.floor((run.dropped[i]! - firstDrop) / 1000);
    (seconds[second] ??= []).push(run.seen[i]! - run.dropped[i]!);
  }
  return Array.from(seconds, (latencies) => distribution(latencies ?? []).p99);
}

/** Reads up to `size` response files spread over the run; counts those whose header status is Accepted. */
export async function sampleResponses(outbox: string, run: ScenarioRun, size: number): Promise<{ sampled: number; accepted: number; problems: string[] }> {
  const names = run.fileNames.filter((n): n is string => n !== undefined);
  const step = Math.max(1, Math.floor(names.length / size));
  const problems: string[] = [];
  let sampled = 0;
  let accepted = 0;
  for (let i = 0; i < names.length && sampled < size; i += step) {
    const name = names[i]!;
    const body = await readFile(join(outbox, name), 'utf8');
    sampled++;
    const header = /<Header>([\s\S]*?)<\/Header>/.exec(body)?.[1] ?? '';
    if (name.endsWith('.SalaryAdjustmentResponse.xml') && header.includes('<Status>Accepted</Status>')) accepted++;
    else if (problems.length < 3) problems.push(`${name}: ${body.slice(0, 600)}`);
  }
  return { sampled, accepted, problems };
}

/** Messages of this scenario (external id = file name with the scenario prefix) by status and outcome. */
export async function messageCounts(databaseUrl: string, prefix: string): Promise<Record<string, number>> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ status: string; outcome: string | null; n: string }>(
      `SELECT status, outcome, count(*) AS n FROM messages
        WHERE counterparty_id = 'bench-employer' AND external_id LIKE $1 GROUP BY status, outcome ORDER BY status, outcome`,
      [`${prefix}-%`],
    );
    return Object.fromEntries(rows.map((r) => [r.outcome ? `${r.status}/${r.outcome}` : r.status, Number(r.n)]));
  });
}
