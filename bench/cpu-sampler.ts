/**
 * CPU spent by each party of a benchmark run, read from /proc (Linux): the gateway
 * (all threads of each of its processes, and each process on its own, so that a
 * gateway run with its roles apart says what each role costs), PostgreSQL's processes,
 * redis-server, this benchmark client, kernel threads, and everything else on the
 * machine. On a machine whose cores the parties share, throughput is the cores divided
 * by the CPU one document costs in all of them together; these figures say where that
 * cost lies, and they hold still where the wall-clock figures move with whatever else
 * the machine is doing.
 *
 * Processes that start or end during a window (PostgreSQL backends, a forked helper)
 * are caught by a sample every `everyMs`: a process's share is its last sample minus
 * its first (zero for one first seen during the window).
 */
import { readdirSync, readFileSync } from 'node:fs';

export type CpuParty = 'gateway' | 'postgres' | 'redis' | 'bench client' | 'kernel threads' | 'other';

export interface CpuFigures {
  readonly seconds: number;
  /** Share of the machine's cores busy in the window (all processes, from /proc/stat). */
  readonly machineBusyPercent: number;
  /** CPU seconds each party used in the window. */
  readonly cpuSeconds: Record<CpuParty, number>;
  /** The gateway's CPU seconds by process, in the order the sampler was given them; they add up to `cpuSeconds.gateway`. */
  readonly gatewayProcesses: readonly { readonly pid: number; readonly cpuSeconds: number }[];
}

const TICKS_PER_SECOND = 100;

interface ProcessSample {
  readonly party: CpuParty;
  readonly first: number;
  last: number;
}

export class CpuSampler {
  readonly #gatewayPids: () => readonly number[];
  readonly #timer: NodeJS.Timeout;
  #window: { startedAt: number; machine: readonly number[]; processes: Map<number, ProcessSample> } | undefined;

  /** `gatewayPids` is asked at every sample: the gateway may run as several processes. */
  constructor(gatewayPids: () => readonly number[], everyMs = 250) {
    this.#gatewayPids = gatewayPids;
    this.#timer = setInterval(() => this.#sample(false), everyMs);
    this.#timer.unref();
  }

  /** Starts a window: what is measured from now on. */
  begin(): void {
    this.#window = { startedAt: Date.now(), machine: machineTicks(), processes: new Map() };
    this.#sample(true);
  }

  /** Ends the window and gives what each party used in it; undefined without /proc. */
  end(): CpuFigures | undefined {
    const window = this.#window;
    if (!window) return undefined;
    this.#sample(false);
    this.#window = undefined;
    const machine = machineTicks();
    if (machine.length === 0) return undefined;
    const total = sum(machine) - sum(window.machine);
    const idle = (machine[3]! + machine[4]!) - (window.machine[3]! + window.machine[4]!);
    const cpuSeconds: Record<CpuParty, number> = { gateway: 0, postgres: 0, redis: 0, 'bench client': 0, 'kernel threads': 0, other: 0 };
    for (const sample of window.processes.values()) cpuSeconds[sample.party] += (sample.last - sample.first) / TICKS_PER_SECOND;
    const gatewayProcesses = this.#gatewayPids().map((pid) => {
      const sample = window.processes.get(pid);
      return { pid, cpuSeconds: sample?.party === 'gateway' ? (sample.last - sample.first) / TICKS_PER_SECOND : 0 };
    });
    return {
      seconds: (Date.now() - window.startedAt) / 1000,
      machineBusyPercent: total > 0 ? Math.round((100 * (total - idle)) / total) : NaN,
      cpuSeconds,
      gatewayProcesses,
    };
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #sample(initial: boolean): void {
    const window = this.#window;
    if (!window) return;
    const gateway = new Set(this.#gatewayPids());
    let entries: string[];
    try {
      entries = readdirSync('/proc');
    } catch {
      return;
    }
    for (const entry of entries) {
      const pid = Number(entry);
      if (!Number.isInteger(pid)) continue;
      const ticks = processTicks(pid);
      if (ticks === undefined) continue;
      const known = window.processes.get(pid);
      if (known) known.last = ticks.cpu;
      else window.processes.set(pid, { party: partyOf(pid, ticks.name, gateway), first: initial ? ticks.cpu : 0, last: ticks.cpu });
    }
  }
}

/** CPU per document of each party, in milliseconds, for a report line. */
export function perDocument(figures: CpuFigures, documents: number): Record<CpuParty | 'total', number> {
  const result = {} as Record<CpuParty | 'total', number>;
  let total = 0;
  for (const [party, seconds] of Object.entries(figures.cpuSeconds) as [CpuParty, number][]) {
    result[party] = msPerDocument(seconds, documents);
    total += seconds;
  }
  result.total = msPerDocument(total, documents);
  return result;
}

/** CPU seconds spread over documents: milliseconds a document, to the microsecond. */
export function msPerDocument(cpuSeconds: number, documents: number): number {
  return Math.round((1_000_000 * cpuSeconds) / Math.max(documents, 1)) / 1000;
}

function partyOf(pid: number, name: string, gateway: ReadonlySet<number>): CpuParty {
  if (gateway.has(pid)) return 'gateway';
  if (pid === process.pid) return 'bench client';
  if (name.startsWith('postgres')) return 'postgres';
  if (name.startsWith('redis-server')) return 'redis';
  // Kernel threads have no command line.
  try {
    if (readFileSync(`/proc/${pid}/cmdline`).byteLength === 0) return 'kernel threads';
  } catch {
    return 'other';
  }
  return 'other';
}

function processTicks(pid: number): { name: string; cpu: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = stat.lastIndexOf(')');
  const name = stat.slice(stat.indexOf('(') + 1, close);
  // After the name: state is field 3; utime and stime are fields 14 and 15 (all threads of the process).
  const fields = stat.slice(close + 2).split(' ');
  return { name, cpu: Number(fields[11]) + Number(fields[12]) };
}

function machineTicks(): number[] {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    return line.split(/\s+/).slice(1, 9).map(Number);
  } catch {
    return [];
  }
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
