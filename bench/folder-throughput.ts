/**
 * `npm run bench -- folder-throughput`: end-to-end throughput and latency of the folder channel.
 *
 * Starts a real gateway (`depot-gateway start`, a child process) on a fresh PostgreSQL
 * database, the shared Redis under a unique queue prefix and a temporary data folder;
 * drops ~2 KB SalaryAdjustment documents into an employer's inbox and times each until
 * its response file appears in the outbox.
 *
 * BENCH_WORKERS=N (N ≥ 1) runs the gateway with its roles apart on this host instead: one
 * `api` process, one `watch` and N `worker` processes, on the same configuration, database,
 * queue prefix and data folder. The report then gives each process's CPU a document and
 * peak memory by role, so that what a host carries of each role can be read off. Unset or
 * 0: one `start` (BENCH_GATEWAY_SPLIT=1, the older switch, is BENCH_WORKERS=1). PostgreSQL's
 * max_connections must cover (N + 2) × 21 connections (operations.md, *Sizing*).
 *
 *   A "sustained":  BENCH_RATE documents/s (default 1000) for BENCH_SECONDS (10)
 *   B "throughput": BENCH_BURST documents (20000) as fast as the client can drop them
 *   B again on the bare reference pipeline (bench/bare-pipeline.ts), after the gateway
 *   stopped: ours as a multiple of it is issue 33's measure (target ≥ 1.5 ×);
 *   BENCH_REFERENCE=0 leaves it out
 *
 * Other settings: BENCH_WARMUP (documents before A, not reported; default 500, 0 = none),
 * BENCH_TIMEOUT_SECONDS (120: how long A and the warm-up wait for responses after their last drop),
 * BENCH_BURST_TIMEOUT_SECONDS (the same for B; default max(120, BENCH_BURST / 50), so B
 * gives up only below 50 documents/s), BENCH_ITEMS (items per document, 7 ≈ 2 KB),
 * BENCH_AGREEMENTS (200), BENCH_DROP_BATCH (documents written between event-loop
 * turns in B and the warm-up, 50), BENCH_STABLE_MS / BENCH_POLL_INTERVAL_MS (the
 * gateway's folders.stableMs / pollIntervalMs, 50 / 20),
 * BENCH_VALIDATE_CONCURRENCY / BENCH_APPLY_CONCURRENCY / BENCH_DELIVER_CONCURRENCY
 * (gateway worker settings; gateway defaults when unset), TEST_DATABASE_ADMIN_URL (the PostgreSQL
 * server's admin URL, as for the tests), REDIS_URL.
 *
 * Prints a report and writes it as JSON to bench/results/latest.json. Benchmarks print
 * figures; they are not tests: a missed target is reported, not failed. Wrong results
 * (a response not Accepted, a count mismatch, missing responses) fail with exit code 1.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { stageBreakdown } from './breakdown.ts';
import { CpuSampler, msPerDocument } from './cpu-sampler.ts';
import { cleanUpMarker, fileSystemNote, markCleanUp, slowDropNote } from './file-system-note.ts';
import { figures, messageCounts, runScenario, sampleResponses, type DropPattern, type Folders } from './end-to-end.bench.ts';
import { calibrate, formatReport, machine, NOTES, type BenchReport, type ScenarioProcess, type ScenarioReport } from './report.ts';
import { bareMessageCounts, startBarePipeline, type BarePipelineProcess } from './bare-pipeline.process.ts';
import {
  checkpoint, createDatabase, deleteQueueKeys, envNumber, freePort, mb, REDIS_URL, RssSampler, runMigrate, startGateway, withClient, writeConfig,
  type BenchDatabase, type GatewayProcess,
} from './support.ts';
import { benchAgreements, buildDocuments, EMPLOYER, seedAgreements, type BenchDocument } from './workload.ts';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'results');

const settings = {
  rate: envNumber('BENCH_RATE', 1000),
  seconds: envNumber('BENCH_SECONDS', 10),
  burst: Math.round(envNumber('BENCH_BURST', 20_000)),
  warmup: process.env.BENCH_WARMUP === '0' ? 0 : Math.round(envNumber('BENCH_WARMUP', 500)),
  timeoutSeconds: envNumber('BENCH_TIMEOUT_SECONDS', 120),
  burstTimeoutSeconds: envNumber('BENCH_BURST_TIMEOUT_SECONDS', Math.max(120, Math.ceil(envNumber('BENCH_BURST', 20_000) / 50))),
  itemsPerDocument: Math.round(envNumber('BENCH_ITEMS', 7)),
  agreements: Math.round(envNumber('BENCH_AGREEMENTS', 200)),
  dropBatch: Math.round(envNumber('BENCH_DROP_BATCH', 50)),
  stableMs: Math.round(envNumber('BENCH_STABLE_MS', 50)),
  pollIntervalMs: Math.round(envNumber('BENCH_POLL_INTERVAL_MS', 20)),
  workerProcesses: workerProcesses(),
  /** BENCH_REFERENCE=0 leaves out the bare reference pipeline's run of B. */
  reference: process.env.BENCH_REFERENCE !== '0',
};

/** BENCH_WORKERS: how many `worker` processes beside `api` and `watch`; 0 runs one `start`. */
function workerProcesses(): number {
  const raw = process.env.BENCH_WORKERS;
  if (raw === undefined || raw === '') return process.env.BENCH_GATEWAY_SPLIT === '1' ? 1 : 0;
  if (!/^\d+$/.test(raw)) throw new Error(`BENCH_WORKERS must be a whole number (0: one start process), not ${JSON.stringify(raw)}`);
  return Number(raw);
}

function workerOverrides(): Record<string, number> {
  const overrides: Record<string, number> = {};
  for (const [variable, key] of [
    ['BENCH_VALIDATE_CONCURRENCY', 'validateConcurrency'],
    ['BENCH_APPLY_CONCURRENCY', 'applyConcurrency'],
    ['BENCH_DELIVER_CONCURRENCY', 'deliverConcurrency'],
  ] as const) {
    if (process.env[variable]) overrides[key] = Math.round(envNumber(variable, 1));
  }
  return overrides;
}

interface Resources {
  temp?: string;
  database?: BenchDatabase;
  queuePrefix?: string;
  gateway?: GatewayProcess;
  bare?: BarePipelineProcess;
  bareQueuePrefix?: string;
}

const resources: Resources = {};
const failures: string[] = [];
const log = (text: string) => process.stdout.write(`[bench] ${text}\n`);

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const calibration = calibrate();
  log(`calibration: ${calibration} ms for a fixed piece of work (compare runs only at similar figures)`);
  const fileSystem = fileSystemNote(tmpdir(), cleanUpMarker(RESULTS));
  if (fileSystem) log(`NOTE: ${fileSystem}`);
  const temp = (resources.temp = await mkdtemp(join(tmpdir(), 'dg-bench-')));
  const dataDir = join(temp, 'data');
  const database = (resources.database = await createDatabase());
  const queuePrefix = (resources.queuePrefix = `dgbench${randomBytes(4).toString('hex')}`);
  const port = await freePort();
  const workers = workerOverrides();
  const config = {
    demo: true,
    port,
    host: '127.0.0.1',
    databaseUrl: database.url,
    redisUrl: REDIS_URL,
    queuePrefix,
    dataDir,
    logLevel: 'warn',
    folders: { stableMs: settings.stableMs, pollIntervalMs: settings.pollIntervalMs },
    ...(Object.keys(workers).length ? { workers } : {}),
    counterparties: [
      { id: 'bench-employer', name: 'Bench Employer AB', organisationNumber: EMPLOYER, role: 'employer', messageTypes: ['plan-administration'] },
    ],
  };
  const configFile = await writeConfig(temp, config);
  log(`database ${database.name}, queue prefix ${queuePrefix}, data ${dataDir}`);

  log('migrating and seeding the demo ledger (depot-gateway migrate)');
  runMigrate(configFile);
  const agreements = benchAgreements(settings.agreements);
  await withClient(database.url, (client) => seedAgreements(client, agreements));
  log(`seeded ${agreements.length} agreements with ${agreements.length * agreements[0]!.persons.length} insured employees`);

  const now = new Date();
  const sustainedCount = Math.round(settings.rate * settings.seconds);
  const build = (prefix: string, count: number, serialOffset: number) =>
    buildDocuments({ prefix, count, serialOffset, agreements, itemsPerDocument: settings.itemsPerDocument, now });
  const warmupDocs = build('w', settings.warmup, 0);
  const sustainedDocs = build('a', sustainedCount, settings.warmup);
  const burstDocs = build('b', settings.burst, settings.warmup + sustainedCount);
  const referenceWarmupDocs = settings.reference ? build('rw', settings.warmup, settings.warmup + sustainedCount + settings.burst) : [];
  const referenceDocs = settings.reference ? build('r', settings.burst, 2 * settings.warmup + sustainedCount + settings.burst) : [];
  const all = [...warmupDocs, ...sustainedDocs, ...burstDocs];
  const averageBytes = Math.round(all.reduce((sum, d) => sum + d.bytes.byteLength, 0) / Math.max(all.length, 1));
  log(`generated ${all.length} documents in memory, ${averageBytes} bytes on average`);

  const layout = settings.workerProcesses > 0
    ? `roles apart: api, watch and ${settings.workerProcesses} × worker (depot-gateway api, watch, worker)`
    : 'every role in one process (depot-gateway start)';
  log(`starting the gateway: ${layout}`);
  // Several processes starting at once on a shared machine take longer than one.
  const gateway = (resources.gateway = await startGateway(configFile, port, settings.workerProcesses > 0 ? 180_000 : 60_000, settings.workerProcesses));
  log(`gateway processes: ${gateway.processes.map((each) => `${each.role} (pid ${each.pid})`).join(', ')}`);
  const rss = gateway.processes.map((each) => new RssSampler(each.pid, 250));
  const cpu = new CpuSampler(() => gateway.pids, 250);
  const folder = join(dataDir, 'counterparties', 'bench-employer');
  const folders: Folders = { inbox: join(folder, 'inbox'), outbox: join(folder, 'outbox') };
  const timeoutMs = settings.timeoutSeconds * 1000;

  if (warmupDocs.length) {
    log(`warm-up: ${warmupDocs.length} documents (not reported)`);
    const warm = await runScenario(folders, warmupDocs, { kind: 'burst', batch: settings.dropBatch }, timeoutMs);
    if (!warm.complete) failures.push(`warm-up: ${warmupDocs.length - figures(warm).responses} responses missing after ${settings.timeoutSeconds} s`);
  }

  const scenarios: ScenarioReport[] = [];
  const scenario = async (name: string, prefix: string, description: string, documents: BenchDocument[], pattern: DropPattern, waitSeconds: number) => {
    log(`scenario ${name}: ${description}`);
    if (!(await checkpoint(database.url))) log('no CHECKPOINT before the scenario (not a superuser): figures may vary more');
    for (const sampler of rss) sampler.resetPeak();
    cpu.begin();
    const run = await runScenario(folders, documents, pattern, waitSeconds * 1000);
    const cpuFigures = cpu.end();
    const peaks = rss.map((sampler) => sampler.peak());
    const peakSampledRssMb = mb(peaks.reduce((sum, peak) => sum + peak, 0));
    const result = figures(run);
    const gatewayProcesses: ScenarioProcess[] = gateway.processes.map((each, index) => {
      const cpuSeconds = cpuFigures?.gatewayProcesses.find((sampled) => sampled.pid === each.pid)?.cpuSeconds;
      return {
        role: each.role,
        pid: each.pid,
        cpuMsPerDocument: cpuSeconds === undefined ? undefined : msPerDocument(cpuSeconds, result.sent),
        peakSampledRssMb: mb(peaks[index]!),
      };
    });
    const sample = await sampleResponses(folders.outbox, run, 50);
    const messages = await messageCounts(database.url, prefix);
    const applied = (messages['applied/accepted'] ?? 0) + (messages['applied/partially_accepted'] ?? 0);
    const stages = await stageBreakdown(database.url, prefix, run).catch((error: unknown) => {
      log(`stage breakdown unavailable: ${(error as Error).message}`);
      return undefined;
    });
    if (!result.complete) failures.push(`${name}: ${result.sent - result.responses} of ${result.sent} responses missing ${waitSeconds} s after the last drop`);
    if (sample.sampled === 0 || sample.accepted !== sample.sampled) {
      failures.push(`${name}: ${sample.sampled - sample.accepted} of ${sample.sampled} sampled responses not Accepted\n${sample.problems.join('\n')}`);
    }
    if (applied !== result.sent) failures.push(`${name}: PostgreSQL has ${applied} applied messages, ${result.sent} were sent (${JSON.stringify(messages)})`);
    const offeredPerSecond = pattern.kind === 'sustained' ? pattern.rate : ('as fast as possible' as const);
    scenarios.push({ name, description, offeredPerSecond, figures: result, sample, messages, applied, peakSampledRssMb, gatewayProcesses, stages, cpu: cpuFigures });
    log(`scenario ${name}: ${result.responses}/${result.sent} responses, ${result.documentsPerSecond} documents/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms`);
  };

  /**
   * B again, on the bare reference pipeline (bench/bare-pipeline.ts: the same folder
   * drop, libxml2, BullMQ, one PostgreSQL insert and a response file a document, none of
   * the gateway's guarantees), started after the gateway stopped, with its own warm-up.
   */
  const referenceScenario = async () => {
    const bareFolder = join(temp, 'bare');
    const bareFolders: Folders = { inbox: join(bareFolder, 'inbox'), outbox: join(bareFolder, 'outbox') };
    await mkdir(bareFolders.inbox, { recursive: true });
    await mkdir(bareFolders.outbox, { recursive: true });
    const bareQueuePrefix = (resources.bareQueuePrefix = `${queuePrefix}bare`);
    log('starting the bare reference pipeline (bench/bare-pipeline.ts)');
    const bare = (resources.bare = await startBarePipeline({ databaseUrl: database.url, queuePrefix: bareQueuePrefix, inbox: bareFolders.inbox, outbox: bareFolders.outbox }));
    const bareRss = new RssSampler(bare.pid, 250);
    const bareCpu = new CpuSampler(() => bare.pids, 250);
    if (referenceWarmupDocs.length) await runScenario(bareFolders, referenceWarmupDocs, { kind: 'burst', batch: settings.dropBatch }, timeoutMs);
    const name = 'B (bare reference)';
    log(`scenario ${name}: the same burst on the bare reference pipeline`);
    if (!(await checkpoint(database.url))) log('no CHECKPOINT before the scenario (not a superuser): figures may vary more');
    bareRss.resetPeak();
    bareCpu.begin();
    const run = await runScenario(bareFolders, referenceDocs, { kind: 'burst', batch: settings.dropBatch }, settings.burstTimeoutSeconds * 1000);
    const cpuFigures = bareCpu.end();
    const peak = bareRss.peak();
    bareCpu.stop();
    bareRss.finish();
    const result = figures(run);
    const sample = await sampleResponses(bareFolders.outbox, run, 50);
    const messages = await bareMessageCounts(database.url, 'r');
    const applied = messages['applied/accepted'] ?? 0;
    if (!result.complete) failures.push(`${name}: ${result.sent - result.responses} of ${result.sent} responses missing`);
    if (applied !== result.sent) failures.push(`${name}: PostgreSQL has ${applied} stored documents, ${result.sent} were sent`);
    const cpuSeconds = cpuFigures?.gatewayProcesses.find((sampled) => sampled.pid === bare.pid)?.cpuSeconds;
    scenarios.push({
      name, description: 'the same burst through the bare reference pipeline', offeredPerSecond: 'as fast as possible', figures: result, sample, messages, applied,
      peakSampledRssMb: mb(peak), gatewayProcesses: [{ role: 'bare pipeline', pid: bare.pid, cpuMsPerDocument: cpuSeconds === undefined ? undefined : msPerDocument(cpuSeconds, result.sent), peakSampledRssMb: mb(peak) }],
      stages: undefined, cpu: cpuFigures,
    });
    log(`scenario ${name}: ${result.responses}/${result.sent} responses, ${result.documentsPerSecond} documents/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms`);
    const exit = await bare.stop();
    resources.bare = undefined;
    if (exit !== 0) failures.push(`the bare pipeline exited with ${exit} on SIGTERM:\n${bare.output().slice(-4000)}`);
  };

  await scenario('A', 'a', `sustained: ${settings.rate} documents/s offered for ${settings.seconds} s, in bursts every 10 ms`, sustainedDocs, {
    kind: 'sustained', rate: settings.rate,
  }, settings.timeoutSeconds);
  await scenario('B', 'b', `throughput: ${settings.burst} documents dropped as fast as the client can (synchronous writes, ${settings.dropBatch} per event-loop turn)`, burstDocs, {
    kind: 'burst', batch: settings.dropBatch,
  }, settings.burstTimeoutSeconds);

  const memory = rss.map((sampler) => sampler.finish());
  cpu.stop();
  const exit = await gateway.stop();
  resources.gateway = undefined;
  if (exit !== 0) failures.push(`the gateway exited with ${exit} on SIGTERM:\n${gateway.output().slice(-4000)}`);

  if (settings.reference) await referenceScenario();

  const rolesApart = settings.workerProcesses > 0
    ? 'With the roles apart a worker reads each document\'s bytes back from PostgreSQL, which one `start` spares itself by handing them from its watcher to its validation within the process (src/pipeline/hand-off.ts): the gateway\'s CPU a document here is not quite one `start`\'s. The api process takes no part in the folder channel; its figures are what it costs idle.'
    : undefined;
  const slowDrops = slowDropNote(tmpdir(), scenarios.map((s) => ({ name: s.name, dropCostUs: s.figures.dropCostUs })));
  if (slowDrops) log(`NOTE: ${slowDrops}`);
  const [a, b, reference] = scenarios;
  const targets: BenchReport['targets'] = {};
  if (b) {
    targets['throughput (scenario B)'] = { target: '≥ 2000 documents/s', measured: `${b.figures.documentsPerSecond} documents/s`, met: b.figures.documentsPerSecond >= 2000 };
  }
  if (b && reference) {
    const ratio = b.figures.documentsPerSecond / reference.figures.documentsPerSecond;
    targets['throughput against the bare reference pipeline (B)'] = {
      target: '≥ 1.5 ×', measured: `${ratio.toFixed(2)} × (${b.figures.documentsPerSecond} against ${reference.figures.documentsPerSecond} documents/s)`, met: ratio >= 1.5,
    };
  }
  if (a) {
    const at = a.offeredPerSecond === 1000 ? '' : ` (offered ${String(a.offeredPerSecond)}/s; the target is defined at 1000/s)`;
    targets['p99 latency at 1000 documents/s (scenario A)'] = {
      target: '< 500 ms', measured: `${a.figures.latencyMs.p99} ms${at}`, met: a.offeredPerSecond === 1000 && a.figures.latencyMs.p99 < 500,
    };
  }
  const report: BenchReport = {
    startedAt,
    ok: failures.length === 0,
    failures,
    machine: machine(calibration),
    settings: {
      ...settings,
      averageDocumentBytes: averageBytes,
      documentType: `SalaryAdjustment, ${settings.itemsPerDocument} items`,
      gatewayFolders: config.folders,
      gatewayWorkers: Object.keys(workers).length ? workers : 'gateway defaults',
      gatewayProcesses: layout,
      database: 'PostgreSQL (fresh database)',
      redis: REDIS_URL,
    },
    notes: [...NOTES, ...[rolesApart, fileSystem, slowDrops].filter((note): note is string => note !== undefined)],
    scenarios,
    gatewayProcesses: gateway.processes.map((each, index) => ({
      role: each.role,
      pid: each.pid,
      peakRssMb: mb(memory[index]!.vmHwm),
      sampledPeakRssMb: mb(memory[index]!.sampledPeakRss),
      rssAtEndMb: mb(memory[index]!.lastRss),
    })),
    targets,
  };
  process.stdout.write(formatReport(report));
  await mkdir(RESULTS, { recursive: true });
  await writeFile(join(RESULTS, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  log(`report written to ${join(RESULTS, 'latest.json')}`);
}

async function cleanUp(): Promise<void> {
  const step = async (what: string, work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (error) {
      log(`clean-up: ${what} failed: ${(error as Error).message}`);
      failures.push(`clean-up: ${what} failed`);
    }
  };
  const { gateway, bare, database, queuePrefix, bareQueuePrefix, temp } = resources;
  if (gateway) await step('stopping the gateway', () => gateway.stop());
  if (bare) await step('stopping the bare reference pipeline', () => bare.stop());
  if (database) await step(`dropping database ${database.name}`, () => database.drop());
  if (queuePrefix) await step(`deleting Redis keys ${queuePrefix}:*`, () => deleteQueueKeys(queuePrefix));
  if (bareQueuePrefix) await step(`deleting Redis keys ${bareQueuePrefix}:*`, () => deleteQueueKeys(bareQueuePrefix));
  if (temp) {
    await step(`removing ${temp}`, () => rm(temp, { recursive: true, force: true }));
    await mkdir(RESULTS, { recursive: true }).catch(() => undefined);
    markCleanUp(cleanUpMarker(RESULTS), tmpdir());
  }
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    log(`${signal}: cleaning up`);
    void cleanUp().finally(() => process.exit(130));
  });
}

try {
  await main();
} catch (error) {
  failures.push(`benchmark failed: ${(error as Error).stack ?? String(error)}`);
  const output = resources.gateway?.output();
  if (output) failures.push(`gateway output (last 4000 characters):\n${output.slice(-4000)}`);
}
if (!interrupted) {
  await cleanUp();
  if (failures.length) {
    process.stderr.write(`\n[bench] FAILED:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
    process.exit(1);
  }
  log('clean-up done');
}
