import { pino, type Logger, type LoggerOptions } from 'pino';
import type { GatewayConfig } from '../config/config.schema.ts';
import { maskPersonalIdentityNumbers } from '../core/identifiers.ts';
import { DROPPED, maskAccountField, maskLogLine } from '../core/log-masking.ts';

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
 * Fields that hold a credential or a bank account by name, where a log call puts them:
 * a credential dropped, an account masked to its clearing number when it is a bank
 * account. Named exactly, not with wildcards: each wildcard path adds to a log call
 * about twice what the call costs without it. Deeper down, the line's text is masked
 * all the same (`"authorization":"…"`, `"access_token":"…"`, `"accountNumber":"…"`).
 */
const CREDENTIAL_FIELDS = ['authorization', 'access_token', 'headers.authorization', 'req.headers.authorization'];
const ACCOUNT_FIELDS = ['accountNumber', 'account', 'body.accountNumber'];

/**
 * What every logger of the gateway shares: no personal identity number, access token
 * or bank account number is written. Fields named for one are redacted (a person's
 * number masked or hidden, a credential dropped, a bank account masked to its clearing
 * number); every other text — messages, error texts (a schema error quotes the
 * element's value, a rule error may name the person, a database error quotes the key),
 * request URLs — has each token dropped, each account in a withdrawal path masked to
 * its clearing number (`5000*******`) and each person's number masked to its date of
 * birth (`19700101-****`) in the line as written (`maskLogLine`,
 * src/core/log-masking.ts). Documents sent to counterparties are not logs and keep the
 * numbers.
 */
export function gatewayLoggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [...PERSONAL_FIELDS, ...CREDENTIAL_FIELDS, ...ACCOUNT_FIELDS],
      censor: (value: unknown, path: string[]) => censorField(value, path.at(-1) ?? ''),
    },
    hooks: { streamWrite: maskLogLine },
  };
}

function censorField(value: unknown, field: string): unknown {
  switch (field) {
    case 'authorization':
    case 'access_token':
      return DROPPED;
    case 'accountNumber':
    case 'account':
      return maskAccountField(value);
    default:
      return maskPersonalField(value);
  }
}

/** A field named for a number: masked to the date of birth when it is one, else hidden whole. */
function maskPersonalField(value: unknown): string {
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
