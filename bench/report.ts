/** The benchmark's report: printed for people, and the same figures as JSON. */
import { createHash } from 'node:crypto';
import { cpus, totalmem, type as osType, release } from 'node:os';
import type { StageBreakdown } from './breakdown.ts';
import { perDocument, type CpuFigures } from './cpu-sampler.ts';
import type { Distribution, ScenarioFigures } from './end-to-end.bench.ts';
import { mb, round } from './support.ts';

export interface ScenarioReport {
  readonly name: string;
  readonly description: string;
  readonly offeredPerSecond: number | 'as fast as possible';
  readonly figures: ScenarioFigures;
  readonly sample: { sampled: number; accepted: number };
  readonly messages: Record<string, number>;
  readonly applied: number;
  /** The gateway's processes together: the sum of each one's largest sampled RSS (one process: its own). */
  readonly peakSampledRssMb: number;
  /** Each process of the gateway over the scenario, the `start` or `api` one first. */
  readonly gatewayProcesses: readonly ScenarioProcess[];
  readonly stages: StageBreakdown | undefined;
  /** CPU each party used while the scenario ran (Linux /proc); undefined elsewhere. */
  readonly cpu?: CpuFigures | undefined;
}

/** What one gateway process (by its role: `start`, `api`, `watch`, `worker 1` …) cost over a scenario. */
export interface ScenarioProcess {
  readonly role: string;
  readonly pid: number;
  /**
   * Its CPU over the scenario divided by the documents sent; undefined without /proc. The
   * kernel counts CPU in ticks of 10 ms, so over a short scenario a process that does little
   * (the api process here) reads as a few ticks.
   */
  readonly cpuMsPerDocument: number | undefined;
  readonly peakSampledRssMb: number;
}

/** One gateway process's memory over the whole run. */
export interface ProcessMemory {
  readonly role: string;
  readonly pid: number;
  /** The kernel's high-water mark (VmHWM). */
  readonly peakRssMb: number;
  readonly sampledPeakRssMb: number;
  readonly rssAtEndMb: number;
}

export interface BenchReport {
  readonly startedAt: string;
  readonly ok: boolean;
  readonly failures: string[];
  readonly machine: { cpu: string; cores: number; totalMemoryMb: number; os: string; node: string; calibrationMs?: number };
  readonly settings: Record<string, unknown>;
  readonly notes: string[];
  readonly scenarios: ScenarioReport[];
  /** Each process of the gateway, the `start` or `api` one first. */
  readonly gatewayProcesses: readonly ProcessMemory[];
  readonly targets: Record<string, { target: string; measured: string; met: boolean }>;
}

export function machine(calibrationMs?: number): BenchReport['machine'] {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    totalMemoryMb: mb(totalmem()),
    os: `${osType()} ${release()}`,
    node: process.version,
    ...(calibrationMs === undefined ? {} : { calibrationMs }),
  };
}

/**
 * How fast this machine is right now: milliseconds for a fixed piece of work (hashing
 * and JSON, on one core), the best of three. A shared virtual machine runs faster and
 * slower by a third from one hour to the next; runs whose calibration differs are not
 * comparable figure for figure.
 */
export function calibrate(): number {
  const data = Buffer.alloc(16 * 1024 * 1024, 7);
  const json = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ id: `m${i}`, status: 'applied', n: i })));
  let best = Infinity;
  for (let round = 0; round < 3; round += 1) {
    const started = performance.now();
    createHash('sha256').update(data).digest('hex');
    for (let i = 0; i < 10; i += 1) JSON.stringify(JSON.parse(json));
    best = Math.min(best, performance.now() - started);
  }
  return Math.round(best);
}

export const NOTES = [
  'The bench client writes each document atomically (temporary name `.<name>.part`, then rename), so the gateway folder watcher never sees a partial file; a short stability window (folders.stableMs, 50 ms by default here) is therefore honest for this client. Real SFTP uploads may need a longer one.',
  'Documents are spread round-robin over the benchmark agreements: the gateway applies documents of one agreement in arrival order, so a single agreement would serialise everything.',
  'Latency is measured from just after the rename into inbox/ to the moment fs.watch reports the response file in outbox/ (a final readdir sweep catches missed events).',
  'The bench client (file writes, fs.watch) runs on the same machine as the gateway and shares its cores; PostgreSQL and Redis too.',
  'Peak memory is each gateway process\'s own (VmHWM from /proc/<pid>/status; VmRSS also sampled every 250 ms), not PostgreSQL\'s, Redis\'s or the bench client\'s.',
];

const ms = (d: Distribution) => `p50 ${d.p50} ms, p90 ${d.p90} ms, p99 ${d.p99} ms, max ${d.max} ms`;

export function formatReport(report: BenchReport): string {
  const lines: string[] = [];
  const m = report.machine;
  lines.push('', '=== depot-gateway end-to-end benchmark ===', `started ${report.startedAt}`);
  lines.push(`machine: ${m.cpu}, ${m.cores} cores, ${m.totalMemoryMb} MB RAM, ${m.os}, node ${m.node}${m.calibrationMs === undefined ? '' : `; calibration ${m.calibrationMs} ms (a fixed piece of work; lower is faster)`}`);
  lines.push('settings:');
  for (const [key, value] of Object.entries(report.settings)) lines.push(`  ${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
  lines.push('notes:');
  for (const note of report.notes) lines.push(`  - ${note}`);
  for (const s of report.scenarios) {
    const f = s.figures;
    lines.push('', `--- scenario ${s.name}: ${s.description} ---`);
    lines.push(`  offered:           ${typeof s.offeredPerSecond === 'number' ? `${s.offeredPerSecond} documents/s` : s.offeredPerSecond}`);
    lines.push(`  dropped:           ${f.sent} documents at ${f.droppedPerSecond} documents/s (first to last drop)`);
    if (f.dropLagMs) lines.push(`  drop lag vs plan:  ${ms(f.dropLagMs)}`);
    lines.push(`  drop cost:         p50 ${f.dropCostUs.p50} µs, p99 ${f.dropCostUs.p99} µs a file (the client's write and rename)`);
    lines.push(`  responses:         ${f.responses} of ${f.sent}${f.complete ? '' : '  (INCOMPLETE: timed out)'}${f.foundBySweep ? `, ${f.foundBySweep} found only by the final sweep` : ''}`);
    lines.push(`  throughput:        ${f.documentsPerSecond} documents/s end to end (${f.responses} in ${f.wallSeconds} s, first drop to last response)`);
    lines.push(`  latency:           ${ms(f.latencyMs)}`);
    if (f.p99BySecondMs) lines.push(`  p99 by second:     ${f.p99BySecondMs.join(', ')} ms`);
    if (s.stages) {
      lines.push('  where the time went (gateway timestamps):');
      lines.push(`    pickup (drop → watcher took it):     ${ms(s.stages.pickup)}`);
      lines.push(`    intake + validate:                   ${ms(s.stages.intakeAndValidate)}`);
      lines.push(`    apply (incl. queue and key order):   ${ms(s.stages.apply)}`);
      lines.push(`    deliver (until delivery recorded):   ${ms(s.stages.deliver)}`);
      lines.push(`    delivery recorded → client saw file: ${ms(s.stages.notice)}  (negative: the file was seen before the row was written)`);
    }
    if (s.cpu) {
      const perDoc = perDocument(s.cpu, f.sent);
      const parts = Object.entries(perDoc).filter(([party]) => party !== 'total').map(([party, value]) => `${party} ${value}`).join(', ');
      lines.push(`  CPU a document:    ${perDoc.total} ms in all (${parts}); machine ${s.cpu.machineBusyPercent} % busy over ${round(s.cpu.seconds)} s`);
      if (s.gatewayProcesses.length > 1) {
        const byRole = s.gatewayProcesses.map((each) => `${each.role} ${each.cpuMsPerDocument}`).join(', ');
        lines.push(`  gateway by process: ${byRole} ms a document (together ${perDoc.gateway} ms)`);
      }
    }
    lines.push(`  sampled responses: ${s.sample.accepted} of ${s.sample.sampled} Accepted`);
    lines.push(`  PostgreSQL:        ${s.applied} messages applied of ${f.sent} sent ${s.applied === f.sent ? '(match)' : '(MISMATCH)'}; by status ${JSON.stringify(s.messages)}`);
    if (s.gatewayProcesses.length > 1) {
      const byRole = s.gatewayProcesses.map((each) => `${each.role} ${each.peakSampledRssMb}`).join(', ');
      lines.push(`  gateway peak RSS during scenario (sampled): ${byRole} MB; ${s.peakSampledRssMb} MB together at most (the sum of the peaks)`);
    } else {
      lines.push(`  gateway peak RSS during scenario (sampled): ${s.peakSampledRssMb} MB`);
    }
  }
  if (report.gatewayProcesses.length) lines.push('');
  for (const g of report.gatewayProcesses) {
    lines.push(`gateway ${g.role} (pid ${g.pid}) peak RSS (VmHWM): ${g.peakRssMb} MB; largest sampled VmRSS ${g.sampledPeakRssMb} MB; RSS at end ${g.rssAtEndMb} MB`);
  }
  if (Object.keys(report.targets).length) {
    lines.push('', 'targets:');
    for (const [name, t] of Object.entries(report.targets)) lines.push(`  ${t.met ? 'met    ' : 'NOT MET'}  ${name}: target ${t.target}, measured ${t.measured}`);
  }
  lines.push('', report.ok ? 'result: OK (all checks passed)' : `result: FAILED\n${report.failures.map((f) => `  - ${f}`).join('\n')}`, '');
  return lines.join('\n');
}
