import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { resolve, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { configSchema, type GatewayConfig } from './config.schema.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { exposedCredentialProblems } from './exposed-credentials.ts';
import { bankIdTestServerProblems } from './bankid-test-server-problems.ts';

/** The repository root, where schemas/, fixtures/ and config/ live. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The demo configuration (`--demo`, `npm start`): demo counterparties and data, embedded services, loopback only. */
export const DEMO_CONFIG_PATH = join(PROJECT_ROOT, 'config', 'demo.yaml');

/** Settings that the environment overrides, and the variable for each. */
const ENVIRONMENT: Record<string, string> = {
  PORT: 'port',
  HOST: 'host',
  METRICS_PORT: 'metricsPort',
  DATA_DIR: 'dataDir',
  DATABASE_URL: 'databaseUrl',
  REDIS_URL: 'redisUrl',
  QUEUE_PREFIX: 'queuePrefix',
  LOG_LEVEL: 'logLevel',
  LOG_FORMAT: 'logFormat',
  TRUST_PROXY: 'trustProxy',
};

export interface LoadConfigOptions {
  /** Path of a YAML or JSON config file; default $DEPOT_GATEWAY_CONFIG. */
  file?: string;
  /** Use config/demo.yaml. Never implied: without a file, a variable or this, loading fails. */
  demo?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Settings applied last (tests). */
  overrides?: Record<string, unknown>;
}

/**
 * Reads the config file, applies the environment, validates against the schema once
 * and returns a frozen configuration. Every bad setting is named in one error.
 */
export function loadConfig(options: LoadConfigOptions = {}): Readonly<GatewayConfig> {
  const env = options.env ?? process.env;
  const file = chooseConfigFile(options, env);
  const raw = readConfigFile(file);
  for (const [variable, key] of Object.entries(ENVIRONMENT)) {
    const value = env[variable];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  Object.assign(raw, options.overrides);
  return parseConfig(raw, file, { checkFiles: true });
}

/**
 * Validates settings against the schema, then checks what spans settings (and, with
 * `checkFiles`, that the files they name can be read), reporting every problem at once.
 */
export function parseConfig(raw: unknown, source = 'configuration', options: { checkFiles?: boolean } = {}): Readonly<GatewayConfig> {
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new GatewayError('CONFIG_INVALID', `${source}:\n${problems.join('\n')}`);
  }
  const config = result.data;
  const problems = [...crossCheck(config), ...(options.checkFiles ? unreadableFiles(config) : [])];
  if (problems.length > 0) throw new GatewayError('CONFIG_INVALID', `${source}:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
  return deepFreeze(config);
}

/** What the schema cannot see setting by setting: names used twice, references to nothing. Every problem at once. */
function crossCheck(config: GatewayConfig): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const [index, counterparty] of config.counterparties.entries()) {
    if (ids.has(counterparty.id)) problems.push(`counterparties.${index}.id: "${counterparty.id}" is used twice`);
    ids.add(counterparty.id);
  }
  const clientIds = new Set<string>();
  for (const [index, client] of config.api.clients.entries()) {
    if (clientIds.has(client.id)) problems.push(`api.clients.${index}.id: "${client.id}" is used twice`);
    clientIds.add(client.id);
    if (client.kind === 'custodian' && !config.counterparties.some((c) => c.id === client.counterpartyId && c.role === 'custodian')) {
      problems.push(`api.clients.${index}.counterpartyId: "${client.counterpartyId}" is not a custodian among the counterparties`);
    }
  }
  problems.push(...sharedIdentities(config));
  problems.push(...exposedCredentialProblems(config));
  problems.push(...bankIdTestServerProblems(config));
  problems.push(...ssekAuthenticationProblems(config));
  problems.push(...mailAuthenticationProblems(config));
  problems.push(...poolSharingProblems(config));
  return problems;
}

/**
 * A REST client may have fewer requests in flight than the process has database
 * connections, so that one client busy with slow requests leaves connections for the others.
 */
function poolSharingProblems(config: GatewayConfig): string[] {
  const pool = config.databasePoolSize;
  const tooMany = (setting: string, concurrent: number) => `${setting}: ${concurrent} is not below databasePoolSize (${pool}); one client could hold every database connection`;
  const problems: string[] = [];
  if (config.api.limits.concurrentRequests >= pool) problems.push(tooMany('api.limits.concurrentRequests', config.api.limits.concurrentRequests));
  for (const [index, client] of config.api.clients.entries()) {
    const concurrent = client.limits?.concurrentRequests;
    if (concurrent !== undefined && concurrent >= pool) problems.push(tooMany(`api.clients.${index}.limits.concurrentRequests`, concurrent));
  }
  return problems;
}

/**
 * What identifies a sender must name one counterparty: a mail address (case does not
 * matter) or an SSEK SenderId (its type and value; a counterparty without senderIds is
 * named by its organisation number) given for two would be given to whichever is found first.
 */
function sharedIdentities(config: GatewayConfig): string[] {
  const problems: string[] = [];
  const addresses = new Map<string, string>();
  const senderIds = new Map<string, string>();
  for (const [index, counterparty] of config.counterparties.entries()) {
    for (const address of counterparty.mail?.addresses ?? []) {
      const owner = addresses.get(address.toLowerCase());
      if (owner !== undefined && owner !== counterparty.id) problems.push(`counterparties.${index}.mail.addresses: ${address} is also an address of "${owner}"`);
      else addresses.set(address.toLowerCase(), counterparty.id);
    }
    if (!counterparty.ssek) continue;
    const ids = counterparty.ssek.senderIds.length > 0 ? counterparty.ssek.senderIds : [{ type: 'ORGNR', value: counterparty.organisationNumber }];
    for (const id of ids) {
      const key = `${id.type.toUpperCase()}:${id.value}`;
      const owner = senderIds.get(key);
      if (owner !== undefined && owner !== counterparty.id) problems.push(`counterparties.${index}.ssek: SenderId ${id.value} (type ${id.type}) also names "${owner}"`);
      else senderIds.set(key, counterparty.id);
    }
  }
  return problems;
}

/** Files the configuration names (keys, certificates) that this process cannot read: found at start, not at first use. */
function unreadableFiles(config: GatewayConfig): string[] {
  const files: [setting: string, path: string | undefined][] = [
    ...config.counterparties.flatMap((counterparty, index): [string, string | undefined][] => [
      [`counterparties.${index}.sftp.privateKeyPath`, counterparty.sftp?.privateKeyPath],
      [`counterparties.${index}.ssek.signingCertificatePath`, counterparty.ssek?.signingCertificatePath],
    ]),
    ['ssek.tls.certPath', config.ssek.tls?.certPath],
    ['ssek.tls.keyPath', config.ssek.tls?.keyPath],
    ['ssek.tls.clientCaPath', config.ssek.tls?.clientCaPath],
    ['bankid.certPath', config.bankid?.certPath],
    ['bankid.keyPath', config.bankid?.keyPath],
    ['bankid.pfxPath', config.bankid?.pfxPath],
    ['bankid.caPath', config.bankid?.caPath],
    ...config.api.clients.map((client, index): [string, string | undefined] => [`api.clients.${index}.publicKeyPath`, client.publicKeyPath]),
  ];
  const problems: string[] = [];
  for (const [setting, path] of files) {
    if (path === undefined) continue;
    try {
      accessSync(path, constants.R_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push(`${setting}: ${path} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code})`}`);
    }
  }
  return problems;
}

/** Read mail is believed by its receiving server's verdict: without its name no counterparty's mail could be taken. */
function mailAuthenticationProblems(config: GatewayConfig): string[] {
  if (!config.mail.imap || config.mail.imap.authservId !== undefined) return [];
  return config.counterparties.flatMap((counterparty, index) => (counterparty.mail && !counterparty.mail.trustedRelay
    ? [`counterparties.${index}.mail: "${counterparty.id}"'s mail cannot be authenticated: set mail.imap.authservId (the name your receiving mail server writes in Authentication-Results), or mail.trustedRelay: true if its mail comes only through a relay you trust`]
    : []));
}

/**
 * SSEK counterparties that nothing but their SenderId — a public organisation number —
 * would identify: each needs a client certificate (which needs ssek.tls.clientCaPath to
 * be asked for) or a signing certificate.
 */
function ssekAuthenticationProblems(config: GatewayConfig): string[] {
  const problems: string[] = [];
  for (const [index, counterparty] of config.counterparties.entries()) {
    const ssek = counterparty.ssek;
    if (!ssek) continue;
    const certificate = ssek.clientCertificateSubject !== undefined || ssek.clientCertificateFingerprint !== undefined;
    if (!certificate && ssek.signingCertificatePath === undefined) {
      problems.push(`counterparties.${index}.ssek: "${counterparty.id}" has neither a client certificate (clientCertificateSubject or clientCertificateFingerprint, with ssek.tls.clientCaPath) ` +
        'nor a signingCertificatePath: anyone could send under its SenderId');
    }
    if (certificate && !config.ssek.tls?.clientCaPath) {
      problems.push(`counterparties.${index}.ssek: "${counterparty.id}" is identified by a client certificate, but ssek.tls.clientCaPath is not set, so none is asked for`);
    }
  }
  return problems;
}

/**
 * The file to read: --config (or `file`), --demo, or $DEPOT_GATEWAY_CONFIG. No default:
 * a production host or image started without its configuration must not quietly run
 * the demo with its published password.
 */
function chooseConfigFile(options: LoadConfigOptions, env: NodeJS.ProcessEnv): string {
  if (options.file && options.demo) throw new GatewayError('CONFIG_INVALID', 'give --config <file> or --demo, not both');
  if (options.file) return options.file;
  if (options.demo) return DEMO_CONFIG_PATH;
  if (env.DEPOT_GATEWAY_CONFIG) return env.DEPOT_GATEWAY_CONFIG;
  throw new GatewayError(
    'CONFIG_INVALID',
    'no configuration given. Name your file with --config <file> or DEPOT_GATEWAY_CONFIG (start from config/example.yaml; ' +
      'in the Docker image mount it and set DEPOT_GATEWAY_CONFIG). To try the demo on this machine: npm start, or depot-gateway --demo start.',
  );
}

function readConfigFile(file: string): Record<string, unknown> {
  if (!existsSync(file)) throw new GatewayError('CONFIG_INVALID', `config file ${file} does not exist: put your configuration there (start from config/example.yaml), or name another file with --config`);
  try {
    const parsed: unknown = parseYaml(readFileSync(file, 'utf8'));
    if (parsed === null || parsed === undefined) return {};
    if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the top level must be a mapping');
    return { ...(parsed as Record<string, unknown>) };
  } catch (error) {
    throw new GatewayError('CONFIG_INVALID', `${file}: ${(error as Error).message}`, { cause: error });
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
