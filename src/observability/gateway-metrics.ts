import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The gateway's metrics for the insurer's Prometheus, served as text at GET /metrics
 * (src/http/staff/metrics.routes.ts). One instance per process, made by the composition root
 * and passed to where things happen: intake counts what it receives, the apply and
 * validate stages what they finish, the stage workers time their jobs and count the
 * dead, the watchers count failed connections, the deadline check the missed reports.
 * Those counters are this process's own since it started. Queue depths and dead
 * messages are read from Redis and PostgreSQL when scraped, so they are the same in
 * every process: the whole gateway's.
 *
 * Label values stay few, whatever arrives: a document type is one of the catalogue's
 * (anything else is `unknown`), a counterparty one of the configured ids.
 */
export type FinishedStatus = 'applied' | 'rejected' | 'duplicate';
export type ConnectionChannel = 'sftp' | 'imap' | 'smtp';

/** Where the scrape-time gauges read their values. */
export interface MetricSources {
  /** Jobs per state and stage queue (BullMQ); absent in a process without queues. */
  readonly queueDepths?: () => Promise<Record<string, Record<string, number>>>;
  /** Dead messages in the message store, per stage they died in. */
  readonly deadMessages: () => Promise<ReadonlyMap<string, number>>;
}

export interface MetricsOptions {
  /** The catalogue's document type names. */
  readonly documentTypes: readonly string[];
  /** The configured counterparty ids. */
  readonly counterparties: readonly string[];
  readonly sources: MetricSources;
  /** Also the process's own figures (CPU, memory, event loop, garbage collection); default true. */
  readonly processMetrics?: boolean;
}

/** A document as the metrics label it: type (when known) and sender. */
export interface CountedDocument {
  readonly type: string | null | undefined;
  readonly counterpartyId: string | undefined;
}

const PREFIX = 'depot_gateway_';
/** Stage jobs take from a few milliseconds (a small batch) to minutes (a large custodian report). */
const STAGE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #types: ReadonlySet<string>;
  readonly #counterparties: ReadonlySet<string>;
  readonly #received: Counter<'type' | 'counterparty' | 'channel'>;
  readonly #finished: Counter<'type' | 'counterparty' | 'status'>;
  readonly #dead: Counter<'stage'>;
  readonly #stageSeconds: Histogram<'stage'>;
  readonly #connectionFailures: Counter<'channel'>;
  readonly #deadlineMisses: Counter<'schedule'>;

  constructor(options: MetricsOptions) {
    this.#types = new Set(options.documentTypes);
    this.#counterparties = new Set(options.counterparties);
    const registers = [this.registry];
    this.#received = new Counter({
      name: `${PREFIX}documents_received_total`, help: 'Documents recorded by intake, by type (as its root element names it), counterparty and channel.',
      labelNames: ['type', 'counterparty', 'channel'], registers,
    });
    this.#finished = new Counter({
      name: `${PREFIX}documents_finished_total`, help: 'Documents given their final status: applied, rejected or duplicate.',
      labelNames: ['type', 'counterparty', 'status'], registers,
    });
    this.#dead = new Counter({
      name: `${PREFIX}messages_dead_total`, help: 'Messages marked dead after the last attempt of a stage.', labelNames: ['stage'], registers,
    });
    this.#stageSeconds = new Histogram({
      name: `${PREFIX}stage_job_duration_seconds`, help: 'Time a stage job took (validation jobs include the apply and delivery of their batch).',
      labelNames: ['stage'], buckets: STAGE_BUCKETS, registers,
    });
    this.#connectionFailures = new Counter({
      name: `${PREFIX}connection_failures_total`, help: 'Failed connections to counterparties\' SFTP servers, the mailbox (IMAP) and the mail relay (SMTP).',
      labelNames: ['channel'], registers,
    });
    this.#deadlineMisses = new Counter({
      name: `${PREFIX}report_deadline_misses_total`, help: 'Custodian reports the deadline check found missing (daily reports, yearly CostAndCharges).',
      labelNames: ['schedule'], registers,
    });
    this.#gauges(options.sources);
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  documentReceived(document: CountedDocument & { readonly channel: string }): void {
    this.#received.inc({ type: this.#type(document.type), counterparty: this.#counterparty(document.counterpartyId), channel: document.channel });
  }

  documentsFinished(documents: readonly (CountedDocument & { readonly status: FinishedStatus })[]): void {
    for (const document of documents) {
      this.#finished.inc({ type: this.#type(document.type), counterparty: this.#counterparty(document.counterpartyId), status: document.status });
    }
  }

  messageDead(stage: string): void {
    this.#dead.inc({ stage });
  }

  stageJobTook(stage: string, seconds: number): void {
    this.#stageSeconds.observe({ stage }, seconds);
  }

  connectionFailed(channel: ConnectionChannel): void {
    this.#connectionFailures.inc({ channel });
  }

  reportDeadlinesMissed(schedule: 'daily' | 'annual', count: number): void {
    if (count > 0) this.#deadlineMisses.inc({ schedule }, count);
  }

  /** The Prometheus text exposition of every metric, gauges read now. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  #gauges(sources: MetricSources): void {
    const { queueDepths } = sources;
    if (queueDepths) {
      new Gauge({
        name: `${PREFIX}queue_jobs`, help: 'Jobs in each stage queue by state (read from Redis when scraped).', labelNames: ['queue', 'state'], registers: [this.registry],
        async collect() {
          this.reset();
          for (const [queue, states] of Object.entries(await queueDepths())) {
            for (const [state, count] of Object.entries(states)) this.set({ queue, state }, count);
          }
        },
      });
    }
    new Gauge({
      name: `${PREFIX}dead_messages`, help: 'Messages dead in the message store, by the stage they died in (read from PostgreSQL when scraped).',
      labelNames: ['stage'], registers: [this.registry],
      async collect() {
        this.reset();
        for (const [stage, count] of await sources.deadMessages()) this.set({ stage }, count);
      },
    });
  }

  #type(type: string | null | undefined): string {
    return type && this.#types.has(type) ? type : 'unknown';
  }

  #counterparty(id: string | undefined): string {
    return id && this.#counterparties.has(id) ? id : 'unknown';
  }
}
