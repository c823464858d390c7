import { z } from 'zod';

/**
 * The configuration schema. Every setting has a default that works on one machine;
 * production overrides the database, Redis, staff credentials and counterparties.
 * config/example.yaml documents each setting.
 */
const counterpartyRoles = ['custodian', 'employer', 'administrator'] as const;
export type CounterpartyRole = (typeof counterpartyRoles)[number];

const identifier = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lowercase letters, digits and hyphens, starting with a letter or digit');

export const counterpartySchema = z.strictObject({
  id: identifier,
  name: z.string().min(1),
  organisationNumber: z.string().regex(/^\d{10}$/, '10 digits without hyphen'),
  role: z.enum(counterpartyRoles),
  /** Folder holding inbox/, outbox/, archive/ and rejected/; default <dataDir>/counterparties/<id>. */
  folder: z.string().min(1).optional(),
  /** Document types (root element names) or families the counterparty may send. */
  messageTypes: z.array(z.string().min(1)).default([]),
  /**
   * Which channel answers and outgoing documents go back on: 'request' (the one the
   * request came by; the outbox folder when that channel cannot answer), or always one
   * of 'folder', 'sftp', 'mail', 'ssek'.
   */
  replyBy: z.enum(['request', 'folder', 'sftp', 'mail', 'ssek']).default('request'),
});

export const configSchema = z.strictObject({
  port: z.coerce.number().int().min(0).max(65535).default(8080),
  host: z.string().default('127.0.0.1'),
  dataDir: z.string().min(1).default('./data'),
  /** PostgreSQL URL; without one the ledger runs on embedded PostgreSQL (PGlite) in <dataDir>/pglite. */
  databaseUrl: z.string().regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://').optional(),
  /** Redis URL; without one `start` launches a private redis-server on a socket in the data folder. */
  redisUrl: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional(),
  queuePrefix: z.string().regex(/^[A-Za-z0-9_-]+$/).default('dg'),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  demo: z.boolean().default(false),
  limits: z.strictObject({
    maxDocumentBytes: z.number().int().positive().default(16 * 1024 * 1024),
    maxXmlDepth: z.number().int().min(4).max(256).default(32),
  }).prefault({}),
  rules: z.strictObject({
    /** How many days back an effective date may lie. */
    maxBackdateDays: z.number().int().min(0).default(365),
  }).prefault({}),
  workers: z.strictObject({
    validateConcurrency: z.number().int().positive().default(8),
    applyConcurrency: z.number().int().positive().default(16),
    deliverConcurrency: z.number().int().positive().default(8),
    /** Attempts before a job with transient failures is dead. */
    attempts: z.number().int().positive().default(8),
    /** First retry delay; doubles each attempt, with jitter. */
    backoffMs: z.number().int().positive().default(500),
    /**
     * How long a job's lock lasts without renewal. A worker that dies (SIGKILL, power)
     * holds its active jobs until the lock runs out; then another worker takes them.
     */
    lockDurationMs: z.number().int().min(1000).default(15_000),
    /** How often workers look for jobs whose lock ran out. */
    stalledIntervalMs: z.number().int().min(500).default(5_000),
    /** How often unfinished messages are re-enqueued from the message store (covers a lost Redis). */
    reconcileEveryMs: z.number().int().positive().default(15_000),
    /** Seconds a message may sit in a stage before the reconciler re-enqueues it. */
    reconcileAfterMs: z.number().int().positive().default(10_000),
  }).prefault({}),
  folders: z.strictObject({
    /** A file is taken when its size and mtime have not changed for this long. */
    stableMs: z.number().int().min(0).default(500),
    pollIntervalMs: z.number().int().positive().default(100),
  }).prefault({}),
  staff: z.strictObject({
    users: z.array(z.strictObject({ username: z.string().min(1), password: z.string().min(8) })).default([]),
  }).prefault({}),
  counterparties: z.array(counterpartySchema).default([]),
});

export type GatewayConfig = z.infer<typeof configSchema>;
export type CounterpartyConfig = z.infer<typeof counterpartySchema>;
