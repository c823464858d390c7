/**
 * The bare reference pipeline (bench/bare-pipeline.ts) as the benchmark uses it: started
 * as a child process through tsx, waited for, stopped; and its stored documents counted
 * the way messageCounts counts the gateway's. Kept apart from the pipeline itself so
 * that the benchmark loads neither libxml2 nor BullMQ to start it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { REDIS_URL, withClient } from './support.ts';

export interface BarePipelineOptions {
  readonly databaseUrl: string;
  /** Its own BullMQ prefix; deleteQueueKeys(prefix) removes its keys afterwards. */
  readonly queuePrefix: string;
  readonly inbox: string;
  readonly outbox: string;
  readonly redisUrl?: string;
  /** Jobs at once; 16, the gateway's applyConcurrency. */
  readonly concurrency?: number;
  readonly timeoutMs?: number;
}

/** The started pipeline: the fields of the gateway's process handle a scenario samples, reports and stops. */
export interface BarePipelineProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly pids: readonly number[];
  output(): string;
  /** SIGTERM, SIGKILL after 30 s; gives the exit code (0 when it closed cleanly) or the signal. */
  stop(): Promise<number | string>;
}

/** Starts `node --import tsx bench/bare-pipeline.ts` and resolves once it prints `ready`. */
export async function startBarePipeline(options: BarePipelineOptions): Promise<BarePipelineProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'bench', 'bare-pipeline.ts')], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl ?? REDIS_URL,
      QUEUE_PREFIX: options.queuePrefix,
      INBOX: options.inbox,
      OUTBOX: options.outbox,
      CONCURRENCY: String(options.concurrency ?? 16),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const ready = new Promise<void>((resolve, reject) => {
    const keep = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.length > 200_000) output = output.slice(-100_000);
      if (/^ready$/m.test(output)) resolve();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    void exited.then((code) => reject(new Error(`the bare pipeline exited (${code}) before it was ready:\n${output}`)));
  });
  const bare: BarePipelineProcess = {
    child,
    pid: child.pid ?? -1,
    pids: child.pid === undefined ? [] : [child.pid],
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode ?? child.signalCode ?? 'unknown';
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  const timeoutMs = options.timeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the bare pipeline was not ready after ${timeoutMs} ms:\n${output}`)), timeoutMs);
  });
  try {
    await Promise.race([ready, late]);
  } catch (error) {
    await bare.stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return bare;
}

/**
 * messageCounts (end-to-end.bench.ts) for the bare pipeline: it stores a row only for a
 * document the schema accepted and answers each of those Accepted, so its rows of a
 * scenario are its applied/accepted messages, given under the gateway's key so that the
 * benchmark's check of applied against sent reads both alike.
 */
export async function bareMessageCounts(databaseUrl: string, prefix: string): Promise<Record<string, number>> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM bare_messages WHERE file_name LIKE $1', [`${prefix}-%`]);
    return { 'applied/accepted': Number(rows[0]!.n) };
  });
}
