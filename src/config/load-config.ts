import { existsSync, readFileSync } from 'node:fs';
import { resolve, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { configSchema, type GatewayConfig } from './config.schema.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { configFileProblems } from './config-file-problems.ts';
import { formatConfigProblems, requiredSettingMessage, schemaProblems } from './config-problem.ts';
import { crossSettingProblems } from './cross-setting-problems.ts';
import { unworkableSettingProblems } from './unworkable-setting-problems.ts';
import { wellFormedConfig } from './well-formed-config.ts';

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
  // Secrets of nested settings, to keep them out of the file.
  ARCHIVE_S3_ACCESS_KEY_ID: 'retention.archive.s3.accessKeyId',
  ARCHIVE_S3_SECRET_ACCESS_KEY: 'retention.archive.s3.secretAccessKey',
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
  for (const [variable, path] of Object.entries(ENVIRONMENT)) {
    const value = env[variable];
    if (value !== undefined && value !== '') setSetting(raw, path.split('.'), value);
  }
  Object.assign(raw, options.overrides);
  return parseConfig(raw, file, { checkFiles: true });
}

/**
 * Validates settings against the schema, checks what spans settings and (with
 * `checkFiles`) the files they name, all in one pass: every problem is named at once,
 * sorted by path, however many there are and whatever kind.
 */
export function parseConfig(raw: unknown, source = 'configuration', options: { checkFiles?: boolean } = {}): Readonly<GatewayConfig> {
  const result = configSchema.safeParse(raw, { error: requiredSettingMessage });
  const wellFormed = wellFormedConfig(raw);
  const problems = [
    ...(result.success ? [] : schemaProblems(result.error.issues)),
    ...crossSettingProblems(wellFormed),
    ...unworkableSettingProblems(wellFormed),
    ...(options.checkFiles ? configFileProblems(raw) : []),
  ];
  if (problems.length > 0 || !result.success) throw new GatewayError('CONFIG_INVALID', formatConfigProblems(source, problems));
  return deepFreeze(result.data);
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

/** Sets a setting by its path, making the mappings above it that the file does not have (one that is not a mapping is left for the schema to name). */
function setSetting(raw: Record<string, unknown>, path: readonly string[], value: string): void {
  const [key, ...rest] = path;
  if (rest.length === 0) {
    raw[key!] = value;
    return;
  }
  raw[key!] ??= {};
  const inner = raw[key!];
  if (typeof inner === 'object' && inner !== null && !Array.isArray(inner)) setSetting(inner as Record<string, unknown>, rest, value);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
