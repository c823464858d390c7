import { pino, type Logger, type LoggerOptions } from 'pino';
import type { GatewayConfig } from '../config/config.schema.ts';
import { maskPersonalIdentityNumbers } from '../core/identifiers.ts';

/**
 * The log of a running gateway: lines a person can read at a terminal, JSON for
 * everything else (a service manager's journal, a container's log collector, a pipe).
 * `logFormat` (LOG_FORMAT) forces either; `auto` decides by whether standard output
 * is a terminal. pino-pretty is loaded only when it is used.
 */
export type LogFormat = 'json' | 'pretty';

/** The format for the `logFormat` setting and whether standard output is a terminal. */
export function chooseLogFormat(setting: GatewayConfig['logFormat'], stdoutIsTerminal: boolean): LogFormat {
  switch (setting) {
    case 'json':
    case 'pretty':
      return setting;
    case 'auto':
      return stdoutIsTerminal ? 'pretty' : 'json';
    default:
      return setting satisfies never;
  }
}

/**
 * Fields that hold a person's number by name, wherever a log call puts them (top
 * level or one or two objects down): printed masked, whatever their form.
 */
const PERSONAL_FIELDS = ['pin', 'personalIdentityNumber', 'personal_identity_number']
  .flatMap((field) => [field, `*.${field}`, `*.*.${field}`]);

/**
 * What every logger of the gateway shares: no personal identity number is written.
 * Fields named for one are redacted; every other text — messages, error texts (a
 * schema error quotes the element's value, a rule error may name the person, a
 * database error quotes the key), request URLs — has each number masked to its date
 * of birth (`19700101-****`) in the line as written. Documents sent to counterparties
 * are not logs and keep the numbers.
 */
export function gatewayLoggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: PERSONAL_FIELDS, censor: maskField },
    hooks: { streamWrite: maskPersonalIdentityNumbers },
  };
}

/** A field named for a number: masked to the date of birth when it is one, else hidden whole. */
function maskField(value: unknown): string {
  const masked = typeof value === 'string' ? maskPersonalIdentityNumbers(value) : undefined;
  return masked !== undefined && masked !== value ? masked : '[personal identity number]';
}

/** The log of a one-shot command (migrate, debit-run, replay …): warnings and worse, to stderr. */
export function createCommandLogger(): Logger {
  return pino(gatewayLoggerOptions('warn'), pino.destination(2));
}

export async function createGatewayLogger(config: Readonly<GatewayConfig>, format: LogFormat): Promise<Logger> {
  if (format === 'json') return pino(gatewayLoggerOptions(config.logLevel));
  const { default: pretty } = await import('pino-pretty');
  // Synchronous, so lines keep their order with what the CLI writes to stdout itself.
  const stream = pretty({
    colorize: process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: true, sync: true,
  });
  return pino(gatewayLoggerOptions(config.logLevel), stream);
}
