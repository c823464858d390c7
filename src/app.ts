import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { GatewayConfig } from './config/config.schema.ts';
import { PROJECT_ROOT } from './config/load-config.ts';
import { refuseDemoSecrets } from './config/exposed-credentials.ts';
import { GatewayError } from './core/gateway-error.ts';
import type { IntakePort } from './channels/envelope.ts';
import { DeliveryRouter } from './channels/delivery-router.ts';
import { observingSendFailures, type MailSender } from './channels/mail/mail-sender.ts';
import { MailOutbox } from './channels/mail/mail.outbox.ts';
import { buildSenderDirectory } from './channels/mail/mail-attachments.ts';
import { recordSetAsideMail } from './ledger/messages/mail-set-aside.repository.ts';
import { FolderInboxWatcher, FolderOutbox, ensureCounterpartyFolders, startOutboxSweeper, type FolderCounterparty } from './channels/folder.channel.ts';
import { remoteFilesOf } from './ledger/messages/remote-files.repository.ts';
import { folderLease, mailboxLease, remoteSftpLease, soleProcessLeases, type ChannelLeases } from './channels/channel-leases.ts';
import { PostgresLeases } from './ledger/postgres-leases.ts';
import type { Database } from './ledger/database.ts';
import { migrate } from './ledger/migrate.ts';
import { DocumentStore } from './ledger/messages/document-store.ts';
import { openPostgresDatabase } from './ledger/postgres.database.ts';
import { DEMO_PEOPLE, seedDemoData } from './demo/demo-data.ts';
import { startBankIdTestServer, type BankIdTestServer } from './bankid/bankid-test-server.ts';
import { Catalogue } from './messages/catalogue.ts';
import { processSchemaValidator } from './messages/validation-thread.ts';
import { ValidatorOnFirstUse } from './messages/validator-on-first-use.ts';
import { createIntake } from './pipeline/intake.ts';
import { startEmbeddedRedis, type EmbeddedRedis } from './pipeline/embedded-redis.ts';
import { ApplyLoop } from './pipeline/apply-loop.ts';
import { CarryOnScheduler } from './pipeline/carry-on.scheduler.ts';
import { HandOff } from './pipeline/hand-off.ts';
import { InlineScheduler } from './pipeline/inline-scheduler.ts';
import { PipelineQueues, connectRedis } from './pipeline/queues.ts';
import { startReconciler } from './pipeline/reconciler.ts';
import { closeWithin } from './pipeline/bounded-close.ts';
import { startStageWorker } from './pipeline/stage.worker.ts';
import type { PipelineStage } from './ledger/messages/messages.repository.ts';
import { validateMessages } from './pipeline/validate.stage.ts';
import { applyMessages } from './pipeline/apply.stage.ts';
import { deliverResponses } from './pipeline/deliver.stage.ts';
import type { Counterparty, PipelineDeps } from './pipeline/pipeline-deps.ts';
import { buildHttpServer } from './http/server.ts';
import { gatewayLoggerOptions } from './observability/gateway-logger.ts';
import { SsekDirectory } from './channels/ssek/ssek-parties.ts';
import { createSsekPushChannel } from './channels/ssek/ssek-push.channel.ts';
import { CalendarScheduler } from './calendar/calendar.scheduler.ts';
import { calendarJobs } from './calendar/calendar-jobs.ts';
import { expectedCustodians } from './calendar/report-deadlines.job.ts';
import { recordCustodiansFirstSeen } from './ledger/custody/custodians-first-seen.repository.ts';
import { runDepsFrom } from './calendar/debit-run.ts';
import { invoiceSpecificationDepsFrom } from './calendar/invoice-specification.job.ts';
import { accountOwnershipFrom } from './calendar/account-ownership.ts';
import { RecordedChannelHealth, observingFailures } from './channels/channel-health.ts';
import { recordChannelHealth } from './ledger/messages/channel-health.repository.ts';
import { GatewayMetrics } from './observability/gateway-metrics.ts';
import { countDeadMessages } from './ledger/messages/dead-messages.repository.ts';
import { buildMetricsServer } from './http/staff/metrics-server.ts';

/**
 * The composition root: the one place that builds adapters and wires them together.
 * A role decides what runs — `api` (HTTP), `worker` (queue consumers and the
 * reconciler), `watch` (counterparty folders) — and `start` is all three in one
 * process. `inline` runs the pipeline without queues, in the caller's process
 * (`submit` when no gateway is running).
 */
export type Role = 'api' | 'worker' | 'watch';

/**
 * Bounds on closing (src/pipeline/bounded-close.ts), inside the 9 s a stop is given
 * (src/cli/stop-on-signal.ts): active jobs and a calendar run get 5 s to finish (the
 * apply loop stops after its current batch), anything else waiting on Redis 1 s.
 */
const WORKERS_FINISH_MS = 5_000;
const REDIS_CLOSE_MS = 1_000;

export interface GatewayOptions {
  readonly roles: readonly Role[];
  /** Run stages in-process instead of through BullMQ (no Redis needed). */
  readonly inline?: boolean;
  readonly log?: Logger;
  readonly clock?: () => Date;
  /** A database opened by the caller (tests); otherwise one is opened from the config. */
  readonly db?: Database;
}

export interface Gateway {
  readonly config: Readonly<GatewayConfig>;
  readonly deps: PipelineDeps;
  readonly intake: IntakePort;
  readonly queues: PipelineQueues | undefined;
  readonly http: FastifyInstance | undefined;
  /** The metrics listener of a process without the api role, when `metricsPort` is set. */
  readonly metricsHttp?: FastifyInstance;
  readonly folders: ReadonlyMap<string, string>;
  readonly log: Logger;
  /** The local BankID test server this process started beside its api role (`bankidTestServer`). */
  readonly bankIdTestServer?: BankIdTestServer;
  close(): Promise<void>;
}

export async function openGateway(configured: Readonly<GatewayConfig>, options: GatewayOptions): Promise<Gateway> {
  // First, whatever the roles: a refused configuration has opened no database, run no
  // migration, scheduled no calendar job and made no folder by the time it is refused.
  await refuseDemoSecrets(configured);
  const log = options.log ?? pino(gatewayLoggerOptions(configured.logLevel));
  const dataDir = resolve(configured.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const closers: (() => Promise<unknown>)[] = [];
  const stopping = new AbortController();
  const close = async () => {
    stopping.abort();
    for (const closer of closers.reverse()) await closer().catch((error: unknown) => log.warn({ err: error }, 'error while closing'));
  };
  try {
    // The demo's BankID, beside the api role that calls it; the rest of the gateway sees an ordinary `bankid` setting.
    const bankIdTestServer = configured.bankidTestServer && options.roles.includes('api')
      ? await startBankIdTestServer({ certificateDir: join(dataDir, 'bankid-test'), people: DEMO_PEOPLE })
      : undefined;
    if (bankIdTestServer) closers.push(() => bankIdTestServer.close());
    const config: Readonly<GatewayConfig> = bankIdTestServer ? Object.freeze({ ...configured, bankid: bankIdTestServer.settings }) : configured;
    const db = options.db ?? (await openDatabase(config, dataDir));
    if (!options.db) closers.push(() => db.close());
    await migrate(db);
    if (config.demo) await seedDemoData(db);

    const catalogue = new Catalogue();
    const counterparties = buildCounterparties(config, catalogue);
    const folders = new Map(config.counterparties.map((c) => [c.id, resolve(c.folder ?? join(dataDir, 'counterparties', c.id))]));
    const folderList: FolderCounterparty[] = [...folders].map(([id, folder]) => ({ id, folder }));
    await Promise.all(folderList.map((c) => ensureCounterpartyFolders(c.folder)));
    // Answers are written here first and renamed into the outboxes: outside what a counterparty's SFTP server shows.
    const outboxWork = join(dataDir, 'outbox-work');
    const router = new DeliveryRouter(new FolderOutbox(folderList, { workRoot: outboxWork, log }), new Map(config.counterparties.map((c) => [c.id, c.replyBy])));
    // Closed after the workers and watchers (closers run in reverse): its pollers first, then its connections.
    // Channels nobody is configured for are not even loaded (their libraries cost memory).
    const remoteSftp = config.counterparties.some((c) => c.sftp)
      ? new (await import('./channels/remote-sftp/remote-sftp.channel.ts')).RemoteSftpChannel({ counterparties: config.counterparties, log })
      : undefined;
    if (remoteSftp) {
      closers.push(() => remoteSftp.close());
      router.register(remoteSftp.outbox);
    }
    const ssekDirectory = new SsekDirectory(config);
    router.register(createSsekPushChannel({ db, directory: ssekDirectory, timeoutMs: config.ssek.pushTimeoutMs }));

    let queues: PipelineQueues | undefined;
    let redis: Redis | undefined;
    const inline = new InlineScheduler();
    if (!options.inline) {
      // A Sentinel set (`redis`), a URL, or with neither a private redis-server (start only).
      const redisTarget = config.redis ?? config.redisUrl ?? (await embeddedRedis(dataDir, closers));
      redis = connectRedis(redisTarget, throttled((error) => log.warn({ err: error.message }, 'Redis connection problem; reconnecting')), stopping.signal);
      const connection = redis;
      // A connection that has ended already (Redis gone while stopping) cannot quit: it is dropped.
      const quit = () => connection.quit().catch(() => connection.disconnect());
      closers.push(() => closeWithin('redis connection', quit, REDIS_CLOSE_MS, log).then((closed) => closed || connection.disconnect()));
      queues = new PipelineQueues(redis, {
        ...(typeof redisTarget === 'string' ? { redisUrl: redisTarget } : {}), prefix: config.queuePrefix, attempts: config.workers.attempts, backoffMs: config.workers.backoffMs,
      });
      const opened = queues;
      closers.push(() => closeWithin('queues', () => opened.close(), REDIS_CLOSE_MS, log));
    }

    // A command (no role) starts validation with the first document it validates, if any.
    const startValidation = () => processSchemaValidator(join(PROJECT_ROOT, 'schemas'), { memoryGrowthMb: config.limits.validationMemoryGrowthMb });
    const schemas = options.roles.length === 0 ? new ValidatorOnFirstUse(startValidation) : await startValidation();
    if (options.roles.length > 0) log.info({ validation: schemas.where, libxml2: schemas.libxml2, binding: schemas.binding }, 'schema validation ready');
    schemas.onBroken((error) =>
      log.fatal({ err: error }, 'the validation thread stopped: documents cannot be validated until the gateway is restarted (their jobs retry, then go dead for replay)'));
    schemas.onMemoryReturned(({ atStartBytes, grownToBytes, limitBytes }) => {
      const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));
      log.info(
        { startedWithMb: mb(atStartBytes), grownToMb: mb(grownToBytes), allowedGrowthMb: mb(limitBytes) },
        'a validation grew libxml2\'s memory past limits.validationMemoryGrowthMb: the validation thread was replaced to give it back',
      );
    });
    // The SDK is loaded only for a gateway whose archive is in an object store.
    const s3Archive = config.retention.archive.s3;
    const archiveBucket = s3Archive ? new (await import('./ledger/messages/s3-archive-bucket.ts')).S3ArchiveBucket(s3Archive) : undefined;
    if (archiveBucket) closers.push(() => archiveBucket.close());
    const deps: PipelineDeps = {
      db,
      catalogue,
      schemas,
      counterparties,
      limits: config.limits,
      documents: new DocumentStore(join(dataDir, 'documents'), { archiveBucket }),
      reportValidator: schemas,
      rules: config.rules,
      insurerOrganisationNumber: config.ssek.organisationNumber,
      clock: options.clock ?? (() => new Date()),
      outboundFor: (counterpartyId, requestChannel) => router.channelFor(counterpartyId, requestChannel),
      scheduler: queues ?? inline,
      log,
      stopping: stopping.signal,
      // Stages running in this process hand their results on directly (the store stays the truth).
      ...(options.inline || options.roles.includes('worker') ? { handOff: new HandOff() } : {}),
      ...(options.inline ? {} : { metrics: processMetrics(config, catalogue, db, queues) }),
    };
    inline.bind(deps);
    const smtpSender: MailSender | undefined = config.mail.smtp
      ? (await import('./channels/mail/smtp.sender.ts')).createSmtpSender(config.mail.smtp)
      : undefined;
    const { metrics } = deps;
    const mailSender = smtpSender && metrics ? observingSendFailures(smtpSender, () => metrics.connectionFailed('smtp')) : smtpSender;
    if (mailSender) closers.push(() => mailSender.close());
    if (mailSender) {
      router.register(new MailOutbox(mailSender, new Map(config.counterparties.flatMap((c) => (c.mail ? [[c.id, c.mail.addresses] as const] : [])))));
    }
    const intake = createIntake(deps);

    if (queues && redis && options.roles.includes('worker')) startWorkers(config, deps, redis, closers);
    if (options.roles.includes('worker')) {
      // Temporary files of deliveries a kill cut short: removed at start and every few minutes.
      const stopSweeper = startOutboxSweeper({ counterparties: folderList, workRoot: outboxWork, log });
      closers.push(() => stopSweeper());
    }
    if (redis && options.roles.includes('worker')) {
      // Reports are expected of a custodian from when a worker first ran with it configured.
      await recordCustodiansFirstSeen(db, config.counterparties.filter((c) => c.role === 'custodian').map((c) => c.id), deps.clock());
      const calendar = new CalendarScheduler({
        connection: redis, prefix: config.queuePrefix, db, clock: deps.clock, log,
        jobs: calendarJobs({
          custodians: expectedCustodians(config.counterparties), mailSender, operationsAddress: config.notifications.operationsAddress, customerServiceAddress: config.notifications.customerServiceAddress, log,
          metrics,
          runs: runDepsFrom(config, deps.scheduler, log),
          invoiceSpecifications: invoiceSpecificationDepsFrom(config, deps.scheduler, log),
          custodianSwitchStallBankingDays: config.custodianSwitches.stallBankingDays,
          retention: {
            store: deps.documents, keepBytesDays: config.retention.keepBytesDays, maskAfterDays: config.retention.maskAfterDays, maxPerRun: config.retention.maxPerRun,
            counterpartyFolders: folderList.map((folder) => folder.folder), log,
          },
          ...(config.accountOwnership ? { accountOwnership: accountOwnershipFrom(config.accountOwnership) } : {}),
        }),
      });
      closers.push(() => closeWithin('calendar, its active run finishing', () => calendar.close(), WORKERS_FINISH_MS, log));
      await calendar.start();
    }

    // What the watch role finds of the counterparties' servers and the mailbox, for staff (GET /api/channels).
    const recordedHealth = new RecordedChannelHealth(
      (report, at) => recordChannelHealth(db, report, at),
      (error) => log.warn({ err: error }, 'the state of a channel could not be recorded'),
    );
    const channelHealth = metrics
      ? observingFailures(recordedHealth, (report) => metrics.connectionFailed(report.channel === 'mail' ? 'imap' : 'sftp'))
      : recordedHealth;
    // Which inboxes, remote folders and mailbox this process reads (one process at a time each).
    const leases = options.roles.includes('watch') ? await channelLeases(config, folderList, closers, log) : soleProcessLeases;
    if (options.roles.includes('watch')) {
      const watcher = new FolderInboxWatcher({
        counterparties: folderList, intake, maxDocumentBytes: config.limits.maxDocumentBytes,
        stableMs: config.folders.stableMs, pollIntervalMs: config.folders.pollIntervalMs, incompleteGraceMs: config.folders.incompleteGraceMs, log, leases,
      });
      await watcher.start();
      closers.push(() => watcher.stop());
      if (remoteSftp) {
        await remoteSftp.startPolling({
          intake, ledger: remoteFilesOf(db), workDir: join(dataDir, 'sftp-work'), maxDocumentBytes: config.limits.maxDocumentBytes,
          maxReportBytes: config.limits.maxReportBytes, clock: deps.clock, health: channelHealth, leases,
        });
        closers.push(() => remoteSftp.stopPolling());
      }
    }

    if (options.roles.includes('watch') && config.mail.imap) {
      if (!config.mail.smtp) {
        log.warn('mail.imap is set but mail.smtp is not: documents read from the mailbox are applied, but their answers go back by mail and fail with DELIVERY_FAILED (dead after the retries: replay them once mail.smtp is set)');
      }
      const { MailboxWatcher } = await import('./channels/mail/mailbox.watcher.ts');
      const mailbox = new MailboxWatcher({
        imap: config.mail.imap, intake, senders: senderDirectory(config), clock: deps.clock, log, health: channelHealth, leases,
        trust: {
          authservId: config.mail.imap.authservId,
          trustedRelay: new Set(config.counterparties.filter((counterparty) => counterparty.mail?.trustedRelay).map((counterparty) => counterparty.id)),
        },
        setAside: { record: (mail) => recordSetAsideMail(db, { ...mail, sender: mail.from }) },
      });
      mailbox.start();
      closers.push(() => mailbox.stop());
    }

    let http: FastifyInstance | undefined;
    if (options.roles.includes('api')) {
      http = await buildHttpServer({ config, deps, intake, queues, log, ssekDirectory });
      const server = http;
      closers.push(() => server.close());
      await http.listen({ port: config.port, host: config.host });
    }
    let metricsHttp: FastifyInstance | undefined;
    if (!options.roles.includes('api') && config.metricsPort !== undefined && deps.metrics) {
      metricsHttp = await buildMetricsServer(config, deps.metrics, log);
      const server = metricsHttp;
      closers.push(() => server.close());
      await metricsHttp.listen({ port: config.metricsPort, host: config.host });
    }
    return { config, deps, intake, queues, http, metricsHttp, folders, log, close, ...(bankIdTestServer ? { bankIdTestServer } : {}) };
  } catch (error) {
    await close();
    throw error;
  }
}

function startWorkers(config: Readonly<GatewayConfig>, deps: PipelineDeps, redis: Redis, closers: (() => Promise<unknown>)[]) {
  const common = {
    connection: redis, prefix: config.queuePrefix, db: deps.db, log: deps.log,
    lockDurationMs: config.workers.lockDurationMs, stalledIntervalMs: config.workers.stalledIntervalMs, metrics: deps.metrics,
  };
  // A worker's batch is carried through the later stages in its own job (see CarryOnScheduler);
  // the documents its validation jobs validate are applied by the process's apply loop.
  const queued = deps.scheduler;
  const workerDeps: PipelineDeps = {
    ...deps,
    applyLoop: new ApplyLoop(() => workerDeps),
    scheduler: new CarryOnScheduler(
      queued,
      { apply: (ids) => applyMessages(workerDeps, ids), deliver: (ids) => deliverResponses(workerDeps, ids) },
      (stage, error) => deps.log.warn({ stage, err: error }, 'stage failed in the job before it; its batch goes on the queue'),
    ),
  };
  const stage = (name: PipelineStage, run: (deps: PipelineDeps, ids: readonly string[]) => Promise<Map<string, unknown>>) => ({
    stage: name,
    run: (ids: readonly string[]) => run(workerDeps, ids),
    enqueueSeparately: (ids: readonly string[]) => queued.enqueue(name, ids, { separately: true }),
  });
  const workers: Worker[] = [
    startStageWorker({ ...common, ...stage('validate', validateMessages), concurrency: config.workers.validateConcurrency }),
    startStageWorker({ ...common, ...stage('apply', applyMessages), concurrency: config.workers.applyConcurrency }),
    startStageWorker({ ...common, ...stage('deliver', deliverResponses), concurrency: config.workers.deliverConcurrency }),
  ];
  // Closed first on shutdown (closers run in reverse): active jobs finish before the database goes.
  const stopReconciler = startReconciler({
    db: deps.db, scheduler: deps.scheduler, everyMs: config.workers.reconcileEveryMs, olderThanMs: config.workers.reconcileAfterMs, log: deps.log,
  });
  closers.push(() => stopReconciler());
  closers.push(() => closeWithin('workers, their active jobs finishing', () => Promise.all(workers.map((worker) => worker.close())), WORKERS_FINISH_MS, deps.log));
}

/**
 * The process's metrics (GET /metrics): its own counters, and gauges read when scraped
 * from the queues and the message store, which every process shares.
 */
function processMetrics(config: Readonly<GatewayConfig>, catalogue: Catalogue, db: Database, queues: PipelineQueues | undefined): GatewayMetrics {
  return new GatewayMetrics({
    documentTypes: catalogue.names,
    counterparties: config.counterparties.map((counterparty) => counterparty.id),
    sources: {
      ...(queues ? { queueDepths: () => queues.counts() } : {}),
      deadMessages: () => countDeadMessages(db),
    },
  });
}

/**
 * Which inboxes, remote servers and mailbox this `watch` process reads: on PostgreSQL, those whose
 * lease it holds (any number of watch processes, on any hosts, read each one by one;
 * given up after the readers stop, closers running in reverse); with the embedded
 * database, which admits one process, all of them.
 */
async function channelLeases(config: Readonly<GatewayConfig>, folders: readonly FolderCounterparty[], closers: (() => Promise<unknown>)[], log: Logger): Promise<ChannelLeases> {
  if (!config.databaseUrl) return soleProcessLeases;
  const names = [
    ...folders.map((folder) => folderLease(folder.id)),
    ...config.counterparties.flatMap((counterparty) => (counterparty.sftp ? [remoteSftpLease(counterparty.id)] : [])),
    ...(config.mail.imap ? [mailboxLease(config.mail.imap)] : []),
  ];
  const leases = new PostgresLeases({ url: config.databaseUrl, names, log });
  closers.push(() => leases.stop());
  await leases.start();
  return leases;
}

/** The configured database: PostgreSQL at `databaseUrl`, else PGlite in the data folder. */
export async function openDatabase(config: Readonly<GatewayConfig>, dataDir: string): Promise<Database> {
  if (config.databaseUrl) return openPostgresDatabase({ url: config.databaseUrl, max: config.databasePoolSize });
  const { openPgliteDatabase } = await import('./ledger/pglite.database.ts');
  return openPgliteDatabase(join(dataDir, 'pglite'));
}

async function embeddedRedis(dataDir: string, closers: (() => Promise<unknown>)[]): Promise<string> {
  const redis: EmbeddedRedis = await startEmbeddedRedis(dataDir);
  closers.push(() => redis.stop());
  return redis.url;
}

/** At most one call per 5 s: a Redis outage must not flood the log. */
function throttled<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
  let last = 0;
  return (...args) => {
    if (Date.now() - last < 5000) return;
    last = Date.now();
    fn(...args);
  };
}

/** Sender address → counterparty, from the counterparties' `mail.addresses`. */
function senderDirectory(config: Readonly<GatewayConfig>) {
  try {
    return buildSenderDirectory(config.counterparties);
  } catch (error) {
    throw new GatewayError('CONFIG_INVALID', `counterparties: ${(error as Error).message}`);
  }
}

function buildCounterparties(config: Readonly<GatewayConfig>, catalogue: Catalogue): Map<string, Counterparty> {
  const result = new Map<string, Counterparty>();
  for (const [index, entry] of config.counterparties.entries()) {
    let allowedTypes: Set<string>;
    try {
      allowedTypes = catalogue.expandAllowed(entry.messageTypes);
    } catch (error) {
      throw new GatewayError('CONFIG_INVALID', `counterparties.${index}.messageTypes: ${(error as Error).message}`);
    }
    result.set(entry.id, { id: entry.id, name: entry.name, organisationNumber: entry.organisationNumber, role: entry.role, allowedTypes });
  }
  return result;
}
