import { userInfo } from 'node:os';
import type { Gateway } from '../app.ts';
import type { GatewayConfig } from '../config/config.schema.ts';
import { loadConfig } from '../config/load-config.ts';
import { GatewayClient } from './gateway-client.ts';
import { createCommandLogger } from '../observability/gateway-logger.ts';

/**
 * How a staff command reaches the ledger: through a running gateway's staff API when
 * one answers (it may hold the embedded database, and it records the staff user it
 * authenticated), otherwise in-process on the configured database. Both ways give the
 * same answer and the same error codes.
 */

/**
 * The composition root (src/app.ts), loaded when a command opens a gateway or the
 * ledger: it brings in every adapter (queues, HTTP, mail, SFTP, PDF), which takes most of
 * the CLI's start, so --help, --version and usage errors answer without it (0.8 s
 * instead of 2 s on a 2-core machine).
 */
export const compositionRoot = () => import('../app.ts');

/** The options every command takes (see src/cli.ts). */
export interface GlobalOptions {
  readonly config?: string;
  readonly demo?: boolean;
}

export function loadSettings(options: GlobalOptions): Readonly<GatewayConfig> {
  return loadConfig({ ...(options.config ? { file: options.config } : {}), demo: options.demo === true });
}

/**
 * Runs `remote` against the running gateway, or `local` on a gateway opened in this
 * process (no roles, stages inline) and closed afterwards. `local` is told who acts.
 */
export async function throughGatewayOrStore<T>(
  options: GlobalOptions,
  local: (gateway: Gateway, by: string) => Promise<T>,
  remote: (client: GatewayClient) => Promise<T>,
): Promise<T> {
  const settings = loadSettings(options);
  const client = new GatewayClient(settings);
  if (await client.isRunning()) return remote(client);
  // Warnings go to stderr: stdout holds only what the command answers.
  const gateway = await (await compositionRoot()).openGateway(settings, { roles: [], inline: true, log: createCommandLogger() });
  try {
    return await local(gateway, commandUser());
  } finally {
    await gateway.close();
  }
}

/**
 * Who a change made in-process is recorded under: `cli:<account>`, the system account
 * that ran the command. Nobody signed in as a staff user, so none is named; through a
 * running gateway the change is recorded under the staff user it authenticated.
 */
function commandUser(): string {
  return `cli:${userInfo().username}`;
}

/** A staff API POST with a JSON body. */
export function postJson<T>(client: GatewayClient, path: string, body: object): Promise<T> {
  return client.request<T>(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
