import { isIP } from 'node:net';
import { z } from 'zod';
import { isSecretHash } from './secret-hash.ts';
import { isValidOrganisationNumber } from '../core/identifiers.ts';
import { parseBankAccount } from '../core/bank-account.ts';
import { isValidSwedishIban } from '../core/swedish-iban.ts';
import { Catalogue } from '../messages/catalogue.ts';
import { redisSentinelSchema } from './redis-sentinel.schema.ts';

/**
 * The configuration schema. Every setting has a default that works on one machine;
 * production overrides the database, Redis, staff credentials and counterparties.
 * config/example.yaml documents each setting.
 */
const counterpartyRoles = ['custodian', 'employer', 'administrator', 'insurer', 'advisor-firm'] as const;
export type CounterpartyRole = (typeof counterpartyRoles)[number];

/** An SSEK SenderId or ReceiverId: the `ssek:Type` attribute (ORGNR, CN …) and the value. */
const ssekPartyIdSchema = z.strictObject({ type: z.string().min(1).default('ORGNR'), value: z.string().min(1) });

const identifier = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lowercase letters, digits and hyphens, starting with a letter or digit');

/** A scrypt hash made by `depot-gateway hash-secret`. */
const secretHash = z.string().refine(isSecretHash, 'a hash made by `depot-gateway hash-secret` (scrypt$…), not the secret itself');

/** Exactly one of a password's two forms. */
const onePassword = (credentials: { password?: string | undefined; passwordHash?: string | undefined }) => (credentials.password === undefined) !== (credentials.passwordHash === undefined);
const onePasswordMessage = 'set passwordHash (made by `depot-gateway hash-secret`), or password on a loopback host only: one of the two';

/**
 * When an object's refinement runs: whenever the value is an object. Zod skips an
 * object's refinements once any of its settings failed to parse, which hid their problem
 * until the next run. These read only which settings are given (and a record's keys),
 * which a malformed value does not change, so they run beside the settings' own findings.
 */
const whenAnObject = (payload: z.core.ParsePayload): boolean => typeof payload.value === 'object' && payload.value !== null;
const onePasswordRefinement = { message: onePasswordMessage, when: whenAnObject };

/** A Swedish organisation number: 10 digits whose check digit (and group digit) are right. */
const organisationNumber = z.string().regex(/^\d{10}$/, '10 digits without hyphen')
  .refine((value) => !/^\d{10}$/.test(value) || isValidOrganisationNumber(value), 'not an organisation number: its check digit (or its group digit) is wrong');

/** A document type or family a counterparty may send, as the catalogue knows them. */
const catalogue = new Catalogue();
const messageTypeEntry = z.string().min(1).superRefine((entry, context) => {
  const problem = catalogue.unknownEntryProblem(entry);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
});

const emailAddress = z.string().regex(/^[^@\s]+@[^@\s]+$/, 'an e-mail address');

/** A withdrawal account as the policyholder gives it, read by the bank rules into the digits the gateway stores. */
const withdrawalAccountDigits = z.string().transform((given, context) => {
  const reading = parseBankAccount(given);
  if (reading.ok) return reading.account.digits;
  context.addIssue({ code: 'custom', message: reading.problem });
  return z.NEVER;
});

const remotePath = z.string().regex(/^\/[^\0]*[^/\0]$|^\/$/, 'an absolute remote path, without a trailing slash');

/** A counterparty that hosts its own SFTP server: we fetch from its outbox and push to its inbox. */
export const remoteSftpSchema = z.strictObject({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535).default(22),
  username: z.string().min(1),
  /** Our private key for this server (OpenSSH or PEM format, no passphrase). */
  privateKeyPath: z.string().min(1),
  /** The server's pinned host key, as `ssh-keygen -l -E sha256` prints it. */
  hostKeySha256: z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'SHA256: followed by 43 base64 characters, as ssh-keygen -l prints it'),
  /** Remote folder we fetch the counterparty's documents from. */
  outboxPath: remotePath,
  /** Remote folder we push our answers and outgoing documents to. */
  inboxPath: remotePath,
  /** Remote folder a fetched file is moved to once recorded; without it the file is deleted. */
  archivePath: remotePath.optional(),
  pollIntervalMs: z.number().int().positive().default(10_000),
  /** A file is taken only when two listings this far apart show the same size and mtime. */
  stableMs: z.number().int().min(0).default(2_000),
  /** Connect (handshake) and per-operation timeout. */
  timeoutMs: z.number().int().positive().default(30_000),
});

export const counterpartySchema = z.strictObject({
  id: identifier,
  name: z.string().min(1),
  organisationNumber: organisationNumber,
  role: z.enum(counterpartyRoles),
  /** Folder holding inbox/, outbox/, archive/ and rejected/; default <dataDir>/counterparties/<id>. */
  folder: z.string().min(1).optional(),
  /** Document types (root element names) or families the counterparty may send. */
  messageTypes: z.array(messageTypeEntry).default([]),
  /**
   * Which channel answers and outgoing documents go back on: 'request' (the one the
   * request came by; the outbox folder when that channel cannot answer), or always one
   * of 'folder', 'sftp', 'mail', 'ssek'.
   */
  replyBy: z.enum(['request', 'folder', 'sftp', 'mail', 'ssek']).default('request'),
  /**
   * An advisor firm (role `advisor-firm`, the firm of the REST API's advisor-firm client with
   * the same organisation number): the account its commission is paid to, a Swedish IBAN, in
   * the monthly pain.001 payment order (docs/commission.md). Without it the firm's debited
   * commission waits, unpaid and listed, until it is set.
   */
  commissionIban: z.string().refine(isValidSwedishIban, 'a Swedish IBAN, SE followed by 22 digits, whose check digits hold (no spaces)').optional(),
  /** A custodian with `reports: false` is not expected to send daily Holdings and Transactions (no missing-report notices). */
  reports: z.boolean().default(true),
  /**
   * REST access for a custodian (POST /Holdings, POST /Transactions): HTTP Basic with the
   * counterparty id as user name and this password. Without it the REST door is shut.
   */
  rest: z.strictObject({
    /** The hash of the password (`depot-gateway hash-secret`). */
    passwordHash: secretHash.optional(),
    /** The password itself: accepted only while `host` is a loopback address (demo, tests). */
    password: z.string().min(12, 'at least 12 characters').optional(),
  }).refine(onePassword, onePasswordRefinement).optional(),
  /** The counterparty's own SFTP server, polled for its documents and sent our answers. */
  sftp: remoteSftpSchema.optional(),
  /**
   * Mail: the sender addresses that map to this counterparty (matched without regard to
   * case). Answers to a mail go to its sender; documents without a request go to the first.
   */
  mail: z.strictObject({
    addresses: z.array(emailAddress).min(1),
    /**
     * The counterparty's mail reaches the gateway's mailbox through a relay inside the
     * insurer's network that the insurer trusts, which leaves no Authentication-Results
     * to check: its From address is believed as it is. Default false.
     */
    trustedRelay: z.boolean().default(false),
  }).optional(),
  /** SSEK (SOAP): how the counterparty identifies itself and how it wants its answers. */
  ssek: z.strictObject({
    /** SenderIds that name this counterparty; default one of type ORGNR with its organisation number. */
    senderIds: z.array(ssekPartyIdSchema).default([]),
    /** Common name (CN) of the client certificate that identifies it (with ssek.tls). */
    clientCertificateSubject: z.string().min(1).optional(),
    /** SHA-256 fingerprint of that client certificate, hex with or without colons. */
    clientCertificateFingerprint: z.string().regex(/^([0-9A-Fa-f]{2}:?){31}[0-9A-Fa-f]{2}$/, 'a SHA-256 fingerprint in hex').optional(),
    /** PEM certificate whose key signs the SOAP body (WS-Security); set, unsigned requests are refused. */
    signingCertificatePath: z.string().min(1).optional(),
    /** The counterparty's SSEK endpoint that answers are pushed to (flow push). */
    pushUrl: z.string().regex(/^https?:\/\//, 'an http:// or https:// URL').optional(),
    /** The flow when a request does not name one: sync, pull or push. */
    flow: z.enum(['sync', 'pull', 'push']).default('sync'),
  }).optional(),
});

/**
 * How a client proves who it is at the token endpoint: `secretHash` (client_secret_basic
 * or client_secret_post) or `publicKeyPath`, the PEM public key (EC P-256 or RSA) whose
 * private key signs its client assertions (private_key_jwt, RFC 7523). One of the two.
 */
const clientAuthentication = {
  secretHash: secretHash.optional(),
  publicKeyPath: z.string().min(1).optional(),
};

/**
 * What one REST client may ask of the gateway (docs/rest.md, "Limits"): a token bucket
 * of `burst` requests refilled at `requestsPerSecond`, and `concurrentRequests` in flight
 * at once, which must stay below `databasePoolSize` so that no client holds every connection.
 */
const clientRequestLimits = {
  requestsPerSecond: z.number().positive().max(100_000),
  burst: z.number().int().min(1).max(100_000),
  concurrentRequests: z.number().int().min(1).max(1000),
};
/** A client's own limits, each replacing the gateway's `api.limits` setting of that name. */
const clientLimitOverrides = {
  limits: z.strictObject({
    requestsPerSecond: clientRequestLimits.requestsPerSecond.optional(),
    burst: clientRequestLimits.burst.optional(),
    concurrentRequests: clientRequestLimits.concurrentRequests.optional(),
  }).optional(),
};

/**
 * A client of the REST API (OAuth 2.0 client credentials): an advisor firm, whose
 * advisors act under its organisation number, or a custodian (a counterparty). The
 * secret is stored as a hash (`depot-gateway hash-secret`).
 */
export const apiClientSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    id: identifier,
    kind: z.literal('advisor-firm'),
    organisationNumber: organisationNumber,
    ...clientAuthentication,
    ...clientLimitOverrides,
  }),
  z.strictObject({
    id: identifier,
    kind: z.literal('custodian'),
    /** The custodian's id among the counterparties. */
    counterpartyId: identifier,
    ...clientAuthentication,
    ...clientLimitOverrides,
  }),
]).refine((client) => (client.secretHash === undefined) !== (client.publicKeyPath === undefined), {
  message: 'set secretHash (client secret) or publicKeyPath (private_key_jwt): one of the two',
  when: whenAnObject,
});

/**
 * A proxy to trust, as Fastify's `trustProxy` (proxy-addr) takes it: an IP address, a
 * CIDR range (`10.0.0.0/8`, `fd00::/8`), or one of the names `loopback`, `linklocal`,
 * `uniquelocal`.
 */
const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
function isProxyAddress(value: string): boolean {
  if (PROXY_NAMES.includes(value)) return true;
  const [address = '', range, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  // Not /0: trusting every address would let anyone claim any client address.
  return range === undefined || (/^[1-9]\d{0,2}$/.test(range) && Number(range) <= (family === 4 ? 32 : 128));
}
/** The list, or (TRUST_PROXY) the same comma-separated. */
const trustedProxies = z.preprocess(
  (value) => (typeof value === 'string' ? value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '') : value),
  z.array(z.string().refine(isProxyAddress, 'an IP address, a CIDR range such as 10.0.0.0/8 (not /0), or loopback, linklocal or uniquelocal')),
);

const yieldTaxPercent = z.string().regex(/^\d{1,2}(\.\d{1,6})?$/, 'a percent such as "0.372"');

export const configSchema = z.strictObject({
  port: z.coerce.number().int().min(0).max(65535).default(8080),
  host: z.string().default('127.0.0.1'),
  /**
   * Where a process without the api role (`worker`, `watch`) serves GET /metrics, on
   * `host`, behind the same staff authentication: its own counters and stage times,
   * which the api process cannot see. Unset, such a process serves none. A process with
   * the api role serves its metrics on `port` and ignores this setting.
   */
  metricsPort: z.coerce.number().int().min(0).max(65535).optional(),
  dataDir: z.string().min(1).default('./data'),
  /**
   * PostgreSQL URL; without one the ledger runs on embedded PostgreSQL (PGlite) in <dataDir>/pglite.
   * libpq's several hosts find a promoted standby: `postgresql://h1:5432,h2:5432/db?target_session_attrs=read-write`
   * (src/ledger/postgres-hosts.ts).
   */
  databaseUrl: z.string().regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .refine((url) => !/[?&]target_session_attrs=(?!(any|read-write|primary)(&|#|$))/.test(url), 'target_session_attrs must be read-write, primary or any (the gateway writes)')
    .optional(),
  /**
   * Connections each process opens to PostgreSQL at most (`databaseUrl`); a request or
   * job that finds them all busy waits for one. The embedded database has one connection
   * whatever this says. Every REST client's `concurrentRequests` must be below it.
   */
  databasePoolSize: z.number().int().min(2).max(1000).default(20),
  /** Redis URL; without one `start` launches a private redis-server on a socket in the data folder. */
  redisUrl: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional(),
  /** Redis through Redis Sentinel instead of `redisUrl` (src/config/redis-sentinel.schema.ts, docs/operations.md). */
  redis: redisSentinelSchema.optional(),
  queuePrefix: z.string().regex(/^[A-Za-z0-9_-]+$/).default('dg'),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * How `start` (and `api`, `worker`, `watch`) writes its log: `pretty`, lines for a person
   * (pino-pretty); `json`, one JSON object a line for a log collector; `auto` (default),
   * pretty when standard output is a terminal and JSON otherwise.
   */
  logFormat: z.enum(['auto', 'json', 'pretty']).default('auto'),
  demo: z.boolean().default(false),
  /**
   * The TLS-terminating proxies (load balancer, ingress) in front of the HTTP ports:
   * addresses or CIDR ranges. A request whose peer is one of them is taken to come from
   * the address in its X-Forwarded-For and by the protocol in X-Forwarded-Proto (the
   * session cookie's Secure, the login and token throttles per client address); from
   * anyone else those headers are ignored. Default none: every X-Forwarded-* is ignored.
   */
  trustProxy: trustedProxies.default([]),
  /**
   * Wrong credentials one client address may send a minute (staff HTTP Basic and the
   * custodians' REST door, counted together) before it is answered 429 for the rest of that minute.
   */
  loginFailuresPerMinute: z.number().int().positive().default(10),
  limits: z.strictObject({
    maxDocumentBytes: z.number().int().positive().default(16 * 1024 * 1024),
    maxXmlDepth: z.number().int().min(4).max(256).default(32),
    /** Attributes one element may carry; more is refused by the XML gate with XML_TOO_MANY_ATTRIBUTES. */
    maxAttributesPerElement: z.number().int().min(1).max(10_000).default(64),
    /** Attributes a whole document may carry; more is refused with XML_DOCUMENT_TOO_MANY_ATTRIBUTES. */
    maxAttributesPerDocument: z.number().int().min(1).max(10_000_000).default(250_000),
    /**
     * A custodian's report (Holdings, Transactions) may be this large: it is kept in the
     * document store (<dataDir>/documents) instead of the database and read as a stream.
     */
    maxReportBytes: z.number().int().positive().default(2 * 1024 * 1024 * 1024),
    /**
     * How far (MB) one validation may leave the validation thread's libxml2 memory above
     * what it started with before the thread is replaced to give that memory back
     * (WebAssembly memory never shrinks). 64 MB: documents of everyday size grow it by a
     * few MB; a million elements or a full-size document by more.
     */
    validationMemoryGrowthMb: z.number().int().min(1).max(4096).default(64),
  }).prefault({}),
  rules: z.strictObject({
    /** How many days back an effective date may lie. */
    maxBackdateDays: z.number().int().min(0).default(365),
  }).prefault({}),
  charges: z.strictObject({
    /**
     * Yield tax rates per tax year, percent of the base (e.g. "0.372"), laid over the
     * built-in table: set a year's P/T and K rates here once its statslåneränta is known.
     */
    yieldTaxRates: z.record(z.string(), z.strictObject({ pt: yieldTaxPercent.optional(), k: yieldTaxPercent.optional() }))
      .superRefine((rates, context) => {
        for (const year of Object.keys(rates)) {
          if (!/^(19|20)\d\d$/.test(year)) context.addIssue({ code: 'custom', path: [year], message: 'a tax year YYYY' });
        }
      }, { when: whenAnObject })
      .default({}),
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
     * How long a job's lock lasts without renewal; a live worker renews its jobs' locks
     * every fifth of it (every second by default). A worker that dies (SIGKILL, power)
     * holds its active jobs — and so its senders' later documents, which keep their
     * order — until the lock runs out; then another worker takes them. 5 s: a live
     * worker loses a lock only if its event loop stands still for about 4 s.
     */
    lockDurationMs: z.number().int().min(1000).default(5_000),
    /** How often workers look for jobs whose lock ran out. */
    stalledIntervalMs: z.number().int().min(500).default(1_000),
    /** How often unfinished messages are re-enqueued from the message store (covers a lost Redis). */
    reconcileEveryMs: z.number().int().positive().default(15_000),
    /** Seconds a message may sit in a stage before the reconciler re-enqueues it. */
    reconcileAfterMs: z.number().int().positive().default(10_000),
  }).prefault({}),
  folders: z.strictObject({
    /**
     * A file is taken when its size and mtime have not changed for this long (and its
     * document ends: see incompleteGraceMs). A sender that writes under a temporary name
     * and renames is taken at once whatever this says.
     */
    stableMs: z.number().int().min(0).default(3_000),
    pollIntervalMs: z.number().int().positive().default(100),
    /**
     * A file whose XML document ends before its root element closes is still being
     * written (a throttled SFTP client pauses for seconds between bursts) and waits; it is
     * taken as it is, and answered XML_MALFORMED, once unchanged this long. 2 minutes.
     */
    incompleteGraceMs: z.number().int().min(0).default(120_000),
  }).prefault({}),
  staff: z.strictObject({
    users: z.array(z.strictObject({
      username: z.string().min(1),
      /** The hash of the password (`depot-gateway hash-secret`). */
      passwordHash: secretHash.optional(),
      /** The password itself: accepted only while `host` is a loopback address (demo, tests). */
      password: z.string().min(8).optional(),
      /**
       * What the user may do: `viewer` reads (the console, GET on the staff API and the
       * queue dashboard); `operator` also acts (replay, submit, end an insurance, the
       * dashboard's retries). Default `operator`, what every staff user could do before
       * roles existed: a configuration written then keeps working (docs/console.md).
       */
      role: z.enum(['viewer', 'operator']).default('operator'),
    }).refine(onePassword, onePasswordRefinement)).default([]),
    /** A console session ends after this many minutes without a request. */
    sessionIdleMinutes: z.number().int().min(1).max(24 * 60).default(30),
    /** A console session ends this many hours after sign-in, however busy. */
    sessionMaxHours: z.number().int().min(1).max(24 * 7).default(12),
  }).prefault({}),
  /** Mail the gateway sends (and, with `imap`, reads). Without `smtp` no mail leaves the gateway. */
  mail: z.strictObject({
    smtp: z.strictObject({
      host: z.string().min(1),
      port: z.number().int().min(1).max(65535).default(587),
      secure: z.boolean().default(false),
      user: z.string().min(1).optional(),
      password: z.string().optional(),
      from: emailAddress,
      timeoutMs: z.number().int().positive().default(30_000),
    }).optional(),
    /** The gateway's mailbox: counterparties' mail with XML attachments is read from it (role `watch`). */
    imap: z.strictObject({
      host: z.string().min(1),
      port: z.number().int().min(1).max(65535).default(993),
      /** true: TLS from the first byte (993); false: STARTTLS when offered. */
      secure: z.boolean().default(true),
      user: z.string().min(1),
      password: z.string(),
      mailbox: z.string().min(1).default('INBOX'),
      processedMailbox: z.string().min(1).default('Processed'),
      asideMailbox: z.string().min(1).default('Set aside'),
      /** How often the mailbox is looked at besides IDLE (with `idle: false` the only way). */
      pollIntervalMs: z.number().int().positive().default(30_000),
      idle: z.boolean().default(true),
      /**
       * The authserv-id the insurer's receiving mail server writes in the
       * Authentication-Results header (RFC 8601) it adds to each mail, e.g.
       * mx.insurer.example. A counterparty's mail is taken only when that server's DMARC,
       * DKIM or SPF verdict passed for its From domain (see `trustedRelay`). The server
       * must remove such headers that arrive claiming its name.
       */
      authservId: z.string().regex(/^[^\s;]+$/, 'a host name, without spaces or ";"').optional(),
      /** A larger mail is set aside (reason too-large) without being fetched. Default 64 MiB. */
      maxMailBytes: z.number().int().positive().default(64 * 1024 * 1024),
    }).optional(),
  }).prefault({}),
  /** The monthly invoice specification each pension-plan agreement's employer gets (docs/invoice-specification.md). */
  invoiceSpecifications: z.strictObject({
    /** The day of the month (Europe/Stockholm, 06:00) the month's specifications are made and sent. Default 5. */
    dayOfMonth: z.number().int().min(1).max(28).default(5),
    /** How many months back a worker started after an outage still makes specifications (this month included). Default 2. */
    catchUpMonths: z.number().int().min(1).max(12).default(2),
  }).prefault({}),
  /** How long received documents' bytes stay in the message store's rows (docs/operations.md, "Retention"). */
  retention: z.strictObject({
    /** A finished message's bytes move to a compressed archive file of the document store this many days after it was received; the counterparties' archive folders are kept as long. Default 730 (two years). */
    keepBytesDays: z.number().int().min(1).default(730),
    /** The personal identity numbers in archived documents and responses are masked to the date of birth this many days after they were received (at least keepBytesDays). Default 3650 (ten years). */
    maskAfterDays: z.number().int().min(1).default(3650),
    /** At most this many messages archived, and this many documents masked, a night (the rest the next night). Default 200 000. */
    maxPerRun: z.number().int().min(1).default(200_000),
    /** Where the archive files go. Without `s3`, `<dataDir>/documents/archive`. */
    archive: z.strictObject({
      /**
       * An S3-compatible bucket: each archive file one object, `<prefix>archive/<day>-<seq>.gz`.
       * Files archived to the data folder before stay there and are still read. The keys
       * may come from ARCHIVE_S3_ACCESS_KEY_ID and ARCHIVE_S3_SECRET_ACCESS_KEY instead.
       */
      s3: z.strictObject({
        /** The store's address (https://s3.example.internal:9000); without it, AWS's for the region. */
        endpoint: z.url({ protocol: /^https?$/, error: 'an http:// or https:// address' }).optional(),
        region: z.string().min(1),
        bucket: z.string().min(1),
        /** Put before every key; empty for none. Default `depot-gateway/`. */
        prefix: z.string().default('depot-gateway/'),
        accessKeyId: z.string().min(1),
        secretAccessKey: z.string().min(1),
        /** `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint>/<key>` (most stores other than AWS). Default false. */
        forcePathStyle: z.boolean().default(false),
      }).optional(),
    }).prefault({}),
  }).prefault({}).refine((retention) => retention.maskAfterDays >= retention.keepBytesDays, {
    message: 'retention.maskAfterDays must be at least retention.keepBytesDays: documents are masked in the archive',
    path: ['maskAfterDays'],
  }),
  /** Custodian switches (docs/custodian-switch.md). */
  custodianSwitches: z.strictObject({
    /** An open switch with no step for more than this many banking days is flagged on the console overview and mailed to operations. Default 10. */
    stallBankingDays: z.number().int().min(1).max(250).default(10),
  }).prefault({}),
  notifications: z.strictObject({
    /** The insurer's operations team: late and missing custodian reports are mailed here (needs mail.smtp). */
    operationsAddress: emailAddress.optional(),
    /** The insurer's customer service: a copy of the notices that an insured's payout can begin, and how each insured was told, is mailed here (default: operationsAddress). */
    customerServiceAddress: emailAddress.optional(),
  }).prefault({}),
  /**
   * BankID (relying-party API v6.0) for signing, over mutual TLS with the insurer's
   * relying-party certificate: PEM certificate and key, or a PKCS#12 file. Files are read
   * at start. Without it nothing is signed with BankID. See docs/bankid.md.
   */
  bankid: z.strictObject({
    /** The service root, without a path: https://appapi2.bankid.com, or https://appapi2.test.bankid.com for the test service. */
    url: z.string().regex(/^https:\/\/[^\s/?#]+\/?$/, 'an https:// address without a path, such as https://appapi2.bankid.com'),
    certPath: z.string().min(1).optional(),
    keyPath: z.string().min(1).optional(),
    pfxPath: z.string().min(1).optional(),
    /** Of the PKCS#12 file (or of an encrypted PEM key). */
    passphrase: z.string().optional(),
    /** The CA that issued BankID's server certificate: the only one trusted for this connection. */
    caPath: z.string().min(1),
    /** How long one request (sign, collect, cancel) may take. */
    timeoutMs: z.number().int().positive().default(10_000),
  }).refine(
    (bankid) => bankid.pfxPath === undefined ? bankid.certPath !== undefined && bankid.keyPath !== undefined : bankid.certPath === undefined && bankid.keyPath === undefined,
    { message: 'set certPath and keyPath (PEM), or pfxPath (PKCS#12): one of the two', when: whenAnObject },
  ).optional(),
  /**
   * The demo's BankID (demo: true, loopback host; refused otherwise, and beside `bankid`):
   * the `api` role starts the local BankID test server on free loopback ports — its RP
   * API over mutual TLS with certificates of a test CA made in <dataDir>/bankid-test, and
   * its page where a person approves or refuses orders — and points `bankid` at it.
   * See docs/bankid.md.
   */
  bankidTestServer: z.boolean().default(false),
  /**
   * The insurer's signing page (GET /sign/{signCaseId}?t=…): a signatory opens the link
   * made for them (POST /SignCase/{id}/Link, or mailed from the console) and signs with
   * BankID there. See docs/bankid.md.
   */
  signingPage: z.strictObject({
    /** The page's address as signatories reach it (behind a proxy: the proxy's), put in every link; default http(s)://<host>:<port>. */
    publicUrl: z.string().regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*[^\s?#/])?\/?$/, 'an http:// or https:// address without a query, such as https://sign.example.se').optional(),
    /** How long a signing link works; it stops sooner once its case is complete or closed. */
    linkLifetimeHours: z.number().int().min(1).max(2160).default(168),
  }).prefault({}),
  /**
   * Where the 13:00 run (role `worker`) checks a registered withdrawal account against its
   * policyholder: `local`, a fixed list of account holders (tests and the demo); `http`,
   * the insurer's account-ownership service (the protocol in docs/rest.md). Without it
   * registered accounts are not validated and stay pending.
   */
  accountOwnership: z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('local'),
      /** Each account (clearing number and account number, digits only) and its holder's personnummer or organisation number. */
      holders: z.array(z.strictObject({ accountNumber: withdrawalAccountDigits, holderId: z.string().regex(/^(\d{12}|\d{10})$/, 'a 12-digit personnummer or a 10-digit organisation number') })).default([]),
    }),
    z.strictObject({
      kind: z.literal('http'),
      /** The service's address; each check is a POST to it. */
      url: z.string().regex(/^https?:\/\/[^\s]+$/, 'an http:// or https:// URL'),
      /** Sent as `Authorization: Bearer <token>` when set. */
      token: z.string().min(1).optional(),
      /** How long one check may take; a check that fails leaves the account pending for the next run. */
      timeoutMs: z.number().int().positive().default(10_000),
    }),
  ]).optional(),
  /**
   * The insurer's own bank account, which its own payments are paid from: the 1 % of a
   * death benefit, in the pain.001 payment orders its finance staff download
   * (`depot-gateway payment-orders`) and upload to the bank. Without it no payment order
   * is made: the payments wait, listed (`depot-gateway death-benefits --waiting`), and the
   * first payout run after it is set makes their file.
   */
  insurerAccount: z.strictObject({
    /** The account holder's name, as the debtor and initiating party of each payment order. */
    name: z.string().trim().min(1).max(70),
    /** A Swedish IBAN (SE and 22 digits) whose check digits hold. */
    iban: z.string().refine(isValidSwedishIban, 'a Swedish IBAN, SE followed by 22 digits, whose check digits hold (no spaces)'),
    /** The BIC of the insurer's bank (8 or 11 characters, e.g. ESSESESS). */
    bic: z.string().regex(/^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$/, 'a BIC of 8 or 11 capital letters and digits, e.g. ESSESESS'),
  }).optional(),
  /** The SSEK endpoint (POST /ssek on the api port). */
  ssek: z.strictObject({
    /** The insurer's organisation number: the ReceiverId (type ORGNR) senders address, and our SenderId on pushes. */
    organisationNumber: organisationNumber.default('5560360793'),
    /** Further ReceiverIds accepted as the insurer. */
    receiverIds: z.array(ssekPartyIdSchema).default([]),
    /**
     * The endpoint's address as counterparties reach it, published in the WSDL
     * (behind a proxy: the proxy's address). Default http(s)://<host>:<port>/ssek.
     */
    publicUrl: z.string().regex(/^https?:\/\/[^\s]+$/, 'an http:// or https:// URL').optional(),
    /** How long a synchronous request waits for its response before it is answered with a receipt. */
    syncWaitMs: z.number().int().min(0).max(120_000).default(10_000),
    /** How long one push to a counterparty's endpoint may take. */
    pushTimeoutMs: z.number().int().positive().default(30_000),
    /** HTTPS for the api port, with client certificates (mutual TLS) checked against clientCaPath. */
    tls: z.strictObject({
      certPath: z.string().min(1),
      keyPath: z.string().min(1),
      clientCaPath: z.string().min(1).optional(),
    }).optional(),
  }).prefault({}),
  /** The REST API for advisors and custodians: who may get a token, and the tokens. */
  api: z.strictObject({
    /** How long an access token lasts. Short: a leaked token is soon worthless. */
    tokenLifetimeSeconds: z.number().int().min(30).max(3600).default(300),
    /** PEM file of the key that signs access tokens (EC P-256); default <dataDir>/keys/api-token-signing.pem, made at first start. */
    signingKeyPath: z.string().min(1).optional(),
    /** Token requests a client address may make a minute before it is answered 429. */
    tokenRequestsPerMinute: z.number().int().positive().default(30),
    clients: z.array(apiClientSchema).default([]),
    /**
     * Per client (each client's `limits` may replace any of these): `requestsPerSecond`
     * on average with bursts of `burst`, and `concurrentRequests` in flight at once. Over
     * either the client is answered 429 TOO_MANY_REQUESTS with Retry-After. The token
     * endpoint, the staff API, the custodians' POST /Holdings and /Transactions and SSEK
     * are not counted here.
     */
    limits: z.strictObject({
      requestsPerSecond: clientRequestLimits.requestsPerSecond.default(50),
      burst: clientRequestLimits.burst.default(100),
      concurrentRequests: clientRequestLimits.concurrentRequests.default(8),
    }).prefault({}),
    /** When an application needs a person's review before it is approved. */
    review: z.strictObject({
      /** An insurance application with a single premium above this many SEK. */
      singlePremiumAbove: z.string().regex(/^\d{1,12}(\.\d{1,2})?$/, 'an amount in SEK such as "1000000"').default('1000000'),
      /** An insurance application whose insured is older than this many years. */
      insuredOlderThan: z.number().int().min(18).max(120).default(75),
      /** A pension plan application with more employees than this. */
      planEmployeesAbove: z.number().int().min(0).max(100_000).default(50),
    }).prefault({}),
    /** Days after the day of submission an application may be signed (its last day to sign); on the next it expires. */
    applicationSigningDays: z.number().int().min(1).max(365).default(30),
  }).prefault({}),
  counterparties: z.array(counterpartySchema).default([]),
});

export type GatewayConfig = z.infer<typeof configSchema>;
export type CounterpartyConfig = z.infer<typeof counterpartySchema>;
export type ApiClientConfig = z.infer<typeof apiClientSchema>;
export type RemoteSftpConfig = z.infer<typeof remoteSftpSchema>;
