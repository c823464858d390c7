import { existsSync, readFileSync } from 'node:fs';
import { resolve, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { configSchema, type GatewayConfig } from './config.schema.ts';
import { GatewayError } from '../core/gateway-error.ts';

/** The repository root, where schemas/, fixtures/ and config/ live. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The configuration `start` uses when no file is given: demo counterparties, embedded services. */
export const DEMO_CONFIG_PATH = join(PROJECT_ROOT, 'config', 'demo.yaml');

/** Settings that the environment overrides, and the variable for each. */
const ENVIRONMENT: Record<string, string> = {
  PORT: 'port',
  HOST: 'host',
  DATA_DIR: 'dataDir',
  DATABASE_URL: 'databaseUrl',
  REDIS_URL: 'redisUrl',
  QUEUE_PREFIX: 'queuePrefix',
  LOG_LEVEL: 'logLevel',
  LOG_FORMAT: 'logFormat',
};

export interface LoadConfigOptions {
  /** Path of a YAML or JSON config file; default $DEPOT_GATEWAY_CONFIG, else the demo configuration. */
  file?: string;
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
  const file = options.file ?? env.DEPOT_GATEWAY_CONFIG ?? DEMO_CONFIG_PATH;
  const raw = readConfigFile(file);
  for (const [variable, key] of Object.entries(ENVIRONMENT)) {
    const value = env[variable];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  Object.assign(raw, options.overrides);
  return parseConfig(raw, file);
}

export function parseConfig(raw: unknown, source = 'configuration'): Readonly<GatewayConfig> {
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new GatewayError('CONFIG_INVALID', `${source}:\n${problems.join('\n')}`);
  }
  const config = result.data;
  const problems = crossCheck(config);
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
  return problems;
}

function readConfigFile(file: string): Record<string, unknown> {
  if (!existsSync(file)) throw new GatewayError('CONFIG_INVALID', `config file ${file} does not exist`);
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
