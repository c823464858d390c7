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
 *   the run log, never from Redis, so losing Redis loses no run;
 * - the schedulers themselves live in Redis, so a Redis that comes back empty has none:
 *   they are checked when the connection is ready again after a loss and every
 *   `checkEveryMs`, and when one is missing all are put back and every job catches up
 *   (the fires missed meanwhile run then).
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
  /**
   * Registers work for after the transaction has committed (handing a recorded document
   * to the deliver stage): never run when the transaction rolls back, and a failure of
   * it is logged, not the run's — the work must be something a later sweep also does.
   */
  afterCommit(work: () => Promise<void>): void;
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
  /** How often the schedulers are looked for in Redis (put back, with a catch-up, when missing). Default 60 000 ms. */
  readonly checkEveryMs?: number;
}

/** Default of `checkEveryMs`: a lost schedule is back within a minute, long before the next fire of any job. */
export const DEFAULT_SCHEDULE_CHECK_MS = 60_000;
/** The options of every job a scheduler or a catch-up adds. */
const FIRE_OPTIONS = { attempts: 3, backoff: { type: 'exponential', delay: 30_000 }, removeOnComplete: true, removeOnFail: { age: 7 * 24 * 3600 } } as const;
const CATCH_UP_OPTIONS = { ...FIRE_OPTIONS, backoff: { type: 'exponential', delay: 5_000 } } as const;

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
    const committed: (() => Promise<void>)[] = [];
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [CALENDAR_LOCK, job.name]);
      const again = await tx.query('SELECT 1 FROM calendar_runs WHERE job = $1 AND period = $2', [job.name, period]);
      if (again.rows.length > 0) return false;
      await job.run({ sql: tx, period, firedAt: now, log, afterCommit: (work) => committed.push(work) });
      await tx.query('INSERT INTO calendar_runs (job, period, completed_at) VALUES ($1, $2, $3)', [job.name, period, now]);
      return true;
    });
    for (const work of committed) {
      await work().catch((error: unknown) => log.warn({ job: job.name, period, err: (error as Error).message }, 'calendar job: work after commit failed; a later sweep does it'));
    }
    if (done) {
      ran.push(period);
      log.debug({ job: job.name, period }, 'calendar job ran');
    }
  }
  // One line a run, however many periods a catch-up after downtime made up (each is at debug level).
  if (ran.length === 1) log.info({ job: job.name, period: ran[0] }, 'calendar job ran');
  else if (ran.length > 1) log.info({ job: job.name, periods: ran.length, first: ran[0], last: ran.at(-1) }, `calendar job caught up on ${ran.length} periods`);
  return ran;
}

/** The `calendar` queue, its job schedulers and its worker. */
export class CalendarScheduler {
  private readonly queue: Queue;
  private worker: Worker | undefined;
  private readonly jobs: ReadonlyMap<string, CalendarJob>;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;
  #closed = false;

  constructor(private readonly options: CalendarSchedulerOptions) {
    this.jobs = new Map(options.jobs.map((job) => [job.name, job]));
    this.queue = new Queue(CALENDAR_QUEUE, { connection: options.connection, prefix: options.prefix });
    // Connection errors are reported by the shared connection's listener; ioredis reconnects.
    this.queue.on('error', () => undefined);
  }

  /** Puts the schedulers in place (removing those of jobs no longer registered), starts the worker, queues a catch-up of every job and starts watching for lost schedulers. */
  async start(): Promise<void> {
    await this.#putSchedulers();
    const wanted = new Set(this.#schedulerIds());
    for (const scheduler of await this.queue.getJobSchedulers(0, -1)) {
      if (!wanted.has(scheduler.key)) await this.queue.removeJobScheduler(scheduler.key);
    }
    this.worker = new Worker(CALENDAR_QUEUE, (job: Job) => this.process(job), {
      connection: this.options.connection, prefix: this.options.prefix, concurrency: 1, autorun: true,
    });
    this.worker.on('error', (error) => this.options.log.warn({ err: error.message }, 'calendar worker problem'));
    this.worker.on('failed', (job, error) => this.options.log.error({ job: job?.name, attempt: job?.attemptsMade, err: error.message }, 'calendar job failed'));
    await this.#queueCatchUp();
    this.options.connection.on('ready', this.#onReady);
    this.#timer = setInterval(() => void this.#check('periodic check'), this.options.checkEveryMs ?? DEFAULT_SCHEDULE_CHECK_MS);
    this.#timer.unref();
  }

  /**
   * Puts every scheduler back, with a catch-up, when one of them is not in Redis.
   * One check at a time: while Redis is away a check waits in the connection's queue
   * and runs on reconnecting, so the checks due meanwhile are not piled up behind it.
   */
  #check(reason: string): Promise<void> {
    if (this.#checking) return this.#checking;
    this.#checking = (async () => {
      try {
        const present = new Set((await this.queue.getJobSchedulers(0, -1)).map((scheduler) => scheduler.key));
        const missing = this.#schedulerIds().filter((id) => !present.has(id));
        if (missing.length === 0) return;
        await this.#putSchedulers();
        await this.#queueCatchUp();
        this.options.log.warn({ reason, missing: missing.length }, 'calendar schedulers were missing from Redis; put back, and every job catches up');
      } catch (error) {
        if (!this.#closed) this.options.log.warn({ reason, err: (error as Error).message }, 'calendar schedulers could not be checked; the next check tries again');
      } finally {
        this.#checking = undefined;
      }
    })();
    return this.#checking;
  }

  /** ioredis says ready on every (re)connection; one after a loss may face an empty Redis. */
  readonly #onReady = (): void => void this.#check('Redis reconnected');

  #schedulerIds(): string[] {
    return [...this.jobs.values()].flatMap((job) => job.patterns.map((_, index) => `${job.name}#${index}`));
  }

  async #putSchedulers(): Promise<void> {
    for (const job of this.jobs.values()) {
      for (const [index, pattern] of job.patterns.entries()) {
        await this.queue.upsertJobScheduler(`${job.name}#${index}`, { pattern, tz: CALENDAR_TIME_ZONE }, { name: job.name, data: {}, opts: FIRE_OPTIONS });
      }
    }
  }

  async #queueCatchUp(): Promise<void> {
    await this.queue.addBulk([...this.jobs.keys()].map((name) => ({ name, data: { catchUp: true }, opts: CATCH_UP_OPTIONS })));
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
    this.#closed = true;
    clearInterval(this.#timer);
    this.options.connection.off('ready', this.#onReady);
    // A check under way is not waited for: with Redis away it would wait for Redis; closing the queue ends it.
    await this.worker?.close();
    await this.queue.close();
  }
}
