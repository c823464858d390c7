import { resolve, join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { startBankIdTestServer } from '../bankid/bankid-test-server.ts';
import { isLoopbackHost } from '../config/exposed-credentials.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { DEMO_PEOPLE } from '../demo/demo-data.ts';
import { loadSettings, type GlobalOptions } from './gateway-or-store.ts';
import { EXIT } from './output.ts';

/**
 * `depot-gateway bankid-test-server [--port N] [--page-port N]`: the local BankID test
 * server alone, as `npm start` runs it beside the gateway — for a gateway configured by
 * hand, or one started elsewhere. It prints where its RP API and page are, where the
 * certificates of its test CA are, and the `bankid` setting that uses them. Its
 * certificates are those of the configuration's data folder (<dataDir>/bankid-test; the
 * demo's without --config), so the demo and this command share them. Refused when the
 * configuration's host is not a loopback address, as the demo is: the page signs as
 * anyone for whoever reaches it.
 */
export function registerBankIdTestServerCommand(program: Command): void {
  program
    .command('bankid-test-server')
    .description('run the local BankID test server alone, on loopback: its RP API (mutual TLS) and its page, where you approve or refuse sign orders as a person')
    .option('--port <n>', "the RP API's port (default: a free one)", portNumber)
    .option('--page-port <n>', "the page's port (default: a free one)", portNumber)
    .action((options: { port?: number; pagePort?: number }) => runBankIdTestServer(program.opts<GlobalOptions>(), options));
}

async function runBankIdTestServer(options: GlobalOptions, ports: { port?: number; pagePort?: number }): Promise<void> {
  const configured = options.config !== undefined || options.demo === true || Boolean(process.env.DEPOT_GATEWAY_CONFIG);
  const settings = loadSettings(configured ? options : { demo: true });
  if (!isLoopbackHost(settings.host)) {
    throw new GatewayError('CONFIG_INVALID', `the local BankID test server (its page signs as anyone) runs on loopback only, and the configuration's host is ${settings.host}`);
  }
  const server = await startBankIdTestServer({
    certificateDir: join(resolve(settings.dataDir), 'bankid-test'),
    people: DEMO_PEOPLE,
    ...(ports.port !== undefined ? { port: ports.port } : {}),
    ...(ports.pagePort !== undefined ? { pagePort: ports.pagePort } : {}),
  });
  const { certificates } = server;
  const setting = { url: server.url, certPath: certificates.relyingParty.cert, keyPath: certificates.relyingParty.key, caPath: certificates.ca.cert };
  process.stdout.write([
    'The local BankID test server is running. It is not BankID: its page signs as anyone, on this machine only.',
    `  RP API         ${server.url}  (BankID's RP API v6.0, mutual TLS)`,
    `  page           ${server.pageUrl}  (approve or refuse sign orders as a person)`,
    `  test CA        ${certificates.ca.cert}`,
    `  relying party  ${certificates.relyingParty.cert}  (key ${certificates.relyingParty.key})`,
    '  a gateway on this machine signs through it with the setting',
    `  bankid: ${JSON.stringify(setting)}`,
    `  to stop        Ctrl+C, or kill -TERM ${process.pid}`,
    '',
  ].join('\n'));
  const stop = () => {
    server.close().then(() => process.exit(EXIT.ok), () => process.exit(EXIT.usage));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

function portNumber(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65535) throw new InvalidArgumentError(`a port number, 1–65535, not "${value}"`);
  return port;
}
