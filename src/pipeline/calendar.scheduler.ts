import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Database, Sql } from '../ledger/database.ts';

/**
 * Calendar work — the custodian report deadline check now, debit runs and payouts
 * later — on one BullMQ queue `calendar` with a job scheduler per cron pattern
 * (Europe/Stockholm) and one worker.
 *
 * Invariants:
 * - a job's work is cut into periods (a check slot, a debit run, a payout month); a
 *   period runs at most once: it runs inside one PostgreSQL transaction that also
 *   records it in `calendar_runs`, under a per-job advisory lock, so concurrent
 *   workers and repeated cron fires do nothing twice;
 * - a period missed while the gateway was down is caught up: at start, and on every
 *   fire, each job is asked which periods are due by now and the unrecorded ones run,
 *   oldest first;
 * - the cron fire is only a wake-up call: what runs is decided from the clock and
 *   the run log, never from Redis, so losing Redis loses no run.
 */

/** What a calendar job's run is given. */
export interface CalendarRun {
  /** The open transaction the period is recorded in: write through it. */
  readonly sql: Sql;
  /** The period being run, as `duePeriods` named it. */
  readonly period: string;
  /** The time of the run (the gateway's clock). */
  readonly firedAt: Date;
  readonly log: Logger;
}

/** One kind of calendar work. */
export interface CalendarJob {
  /** Unique; the BullMQ job name and the `calendar_runs.job` key. */
  readonly name: string;
  /** Cron patterns (minute hour day month weekday) in Europe/Stockholm that wake the job. */
  readonly patterns: readonly string[];
  /** The periods due by `now` that should have run, oldest first, within the job's catch-up horizon. */
  duePeriods(now: Date): readonly string[];
  /** Does one period's work. Must tolerate a repeat after a crash before commit. */
  run(run: CalendarRun): Promise<void>;
}

/** The time zone every calendar pattern is read in. */
export const CALENDAR_TIME_ZONE = 'Europe/Stockholm';
export const CALENDAR_QUEUE = 'calendar';
/** Any fixed number: the first key of the per-job advisory lock. */
const CALENDAR_LOCK = 4_711_008;

export interface CalendarSchedulerOptions {
  readonly connection: Redis;
  /** BullMQ key prefix (`queuePrefix`). */
  readonly prefix: string;
  readonly db: Database;
  readonly jobs: readonly CalendarJob[];
  readonly clock: () => Date;
  readonly log: Logger;
}

/**
 * Runs the periods of `job` due by `now` that `calendar_runs` does not hold yet.
 * Returns the periods it ran. Usable without Redis (tests, a CLI).
 */
export async function runDuePeriods(db: Database, job: CalendarJob, now: Date, log: Logger): Promise<string[]> {
  const due = job.duePeriods(now);
  if (due.length === 0) return [];
  const { rows } = await db.query<{ period: string }>('SELECT period FROM calendar_runs WHERE job = $1 AND period = ANY($2::text[])', [job.name, due]);
  const recorded = new Set(rows.map((row) => row.period));
  const ran: string[] = [];
  for (const period of due.filter((p) => !recorded.has(p))) {
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [CALENDAR_LOCK, job.name]);
      const again = await tx.query('SELECT 1 FROM calendar_runs WHERE job = $1 AND period = $2', [job.name, period]);
      if (again.rows.length > 0) return false;
      await job.run({ sql: tx, period, firedAt: now, log });
      await tx.query('INSERT INTO calendar_runs (job, period, completed_at) VALUES ($1, $2, $3)', [job.name, period, now]);
      return true;
    });
    if (done) {
      ran.push(period);
      log.info({ job: job.name, period }, 'calendar job ran');
    }
  }
  return ran;
}

/** The `calendar` queue, its job schedulers and its worker. */
export class CalendarScheduler {
  private readonly queue: Queue;
  private worker: Worker | undefined;
  private readonly jobs: ReadonlyMap<string, CalendarJob>;

  constructor(private readonly options: CalendarSchedulerOptions) {
    this.jobs = new Map(options.jobs.map((job) => [job.name, job]));
    this.queue = new Queue(CALENDAR_QUEUE, { connection: options.connection, prefix: options.prefix });
    // Connection errors are reported by the shared connection's listener; ioredis reconnects.
    this.queue.on('error', () => undefined);
  }

  /** Puts the schedulers in place (removing those of jobs no longer registered), starts the worker and queues a catch-up of every job. */
  async start(): Promise<void> {
    const wanted = new Set<string>();
    for (const job of this.jobs.values()) {
      for (const [index, pattern] of job.patterns.entries()) {
        const id = `${job.name}#${index}`;
        wanted.add(id);
        await this.queue.upsertJobScheduler(id, { pattern, tz: CALENDAR_TIME_ZONE }, {
          name: job.name,
          data: {},
          opts: { attempts: 3, backoff: { type: 'exponential', delay: 30_000 }, removeOnComplete: true, removeOnFail: { age: 7 * 24 * 3600 } },
        });
      }
    }
    for (const scheduler of await this.queue.getJobSchedulers(0, -1)) {
      if (!wanted.has(scheduler.key)) await this.queue.removeJobScheduler(scheduler.key);
    }
    this.worker = new Worker(CALENDAR_QUEUE, (job: Job) => this.process(job), {
      connection: this.options.connection, prefix: this.options.prefix, concurrency: 1, autorun: true,
    });
    this.worker.on('error', (error) => this.options.log.warn({ err: error.message }, 'calendar worker problem'));
    this.worker.on('failed', (job, error) => this.options.log.error({ job: job?.name, attempt: job?.attemptsMade, err: error.message }, 'calendar job failed'));
    await this.queue.addBulk([...this.jobs.keys()].map((name) => ({
      name, data: { catchUp: true }, opts: { attempts: 3, backoff: { type: 'exponential', delay: 5_000 }, removeOnComplete: true, removeOnFail: { age: 7 * 24 * 3600 } },
    })));
  }

  private async process(bullJob: Job): Promise<string[]> {
    const job = this.jobs.get(bullJob.name);
    if (!job) {
      this.options.log.warn({ job: bullJob.name }, 'no calendar job of that name; ignored');
      return [];
    }
    return runDuePeriods(this.options.db, job, this.options.clock(), this.options.log);
  }

  /** Lets an active run finish, then closes the worker and the queue; the schedulers stay in Redis. */
  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
  }
}
