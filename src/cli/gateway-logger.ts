import { pino, type Logger } from 'pino';
import type { GatewayConfig } from '../config/config.schema.ts';

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

export async function createGatewayLogger(config: Readonly<GatewayConfig>, format: LogFormat): Promise<Logger> {
  if (format === 'json') return pino({ level: config.logLevel });
  const { default: pretty } = await import('pino-pretty');
  // Synchronous, so lines keep their order with what the CLI writes to stdout itself.
  const stream = pretty({
    colorize: process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: true, sync: true,
  });
  return pino({ level: config.logLevel }, stream);
}
