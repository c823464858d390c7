import { createRequire } from 'node:module';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { runStart, runMigrate, runSubmit, runReplay, runMessagesList, runMessagesShow, runMessagesResponse, runPerson, runReports, runDebitRunCommand, runPayoutRunCommand, runMailSetAside, runHashSecret } from './cli/commands.ts';
import { registerInsuranceEndCommand } from './cli/insurance-end.command.ts';
import { registerBankIdTestServerCommand } from './cli/bankid-test-server.command.ts';
import { registerInsuranceCommand } from './cli/insurance.command.ts';
import { registerPayoutStartCommand } from './cli/payout-start.command.ts';
import { registerPayoutNoticesCommand } from './cli/payout-notices.command.ts';
import { registerDeathBenefitCommand } from './cli/death-benefit.command.ts';
import { registerPaymentOrdersCommand } from './cli/payment-orders.command.ts';
import { registerInvoiceSpecificationsCommand } from './cli/invoice-specifications.command.ts';
import { registerPersonDataCommand } from './cli/person-data.command.ts';
import { EXIT, reportError } from './cli/output.ts';
import { endQuietlyOnClosedPipe } from './cli/closed-pipe.ts';
import { registerApplicationsCommand } from './cli/applications.command.ts';
import { registerWithdrawalsCommand } from './cli/withdrawals.command.ts';
import { registerCustodianSwitchesCommand } from './cli/custodian-switches.command.ts';
import { registerPowersOfAttorneyCommand } from './cli/powers-of-attorney.command.ts';
import { registerCompanySignatoriesCommand } from './cli/company-signatories.command.ts';
import { registerApplicationNoticesCommand } from './cli/application-notices.command.ts';
import { GatewayError, isGatewayError } from './core/gateway-error.ts';
import { ERROR_CODES } from './core/error-codes.ts';
import { gatewayUrl } from './cli/gateway-client.ts';
import { loadSettings } from './cli/gateway-or-store.ts';

/**
 * The depot-gateway command. Exit codes a script can rely on:
 *   0  success (for submit: the document was accepted, fully or partly)
 *   1  the document was rejected (submit; DOCUMENT_TOO_LARGE included, whether or not a gateway
 *      is running), or no message / person matches (MESSAGE_NOT_FOUND, PERSON_NOT_FOUND), or
 *      nothing with that id to show or change (RESOURCE_NOT_FOUND: an application not under
 *      review, a power of attorney already revoked)
 *   2  usage error or system error (configuration, database, queue, network)
 */
/** A --limit: a whole number of at least 1, or a usage error naming what was given. */
function positiveInteger(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError(`a whole number of at least 1, not "${value}"`);
  return Number(value);
}

/** Errors that answer the question asked (no such thing; a document refused unrecorded) rather than a failure. */
const REJECTIONS: ReadonlySet<string> = new Set(['MESSAGE_NOT_FOUND', 'PERSON_NOT_FOUND', 'DOCUMENT_TOO_LARGE', 'RESOURCE_NOT_FOUND']);

const SELF_OPENING: ReadonlySet<string> = new Set(['start', 'api', 'worker', 'watch', 'migrate']);

/**
 * A command that found the embedded database held by a gateway also found no gateway
 * answering where it looked: say where, and how to point it at the port that gateway
 * listens on (a demo started with PORT=8081, say).
 */
function withDataFolderHint(error: unknown): unknown {
  if (!isGatewayError(error) || error.code !== 'DATA_FOLDER_IN_USE') return error;
  // A gateway being started and migrate open the database themselves; the rest look for a running gateway first.
  if (SELF_OPENING.has(program.args[0] ?? '')) return error;
  let url: string;
  try {
    url = gatewayUrl(loadSettings(program.opts()));
  } catch {
    return error;
  }
  const holder = typeof error.details.pid === 'number' ? `process ${error.details.pid}` : 'that process';
  const port = new URL(url).port;
  return new GatewayError(
    'DATA_FOLDER_IN_USE',
    `${error.message.replace(`${ERROR_CODES.DATA_FOLDER_IN_USE.message} `, '')} No gateway answered this command at ${url} (this configuration's host and port). ` +
      `If ${holder} is a gateway listening on another port, give the command that port as the gateway was given it: PORT=<its port> depot-gateway … (PORT=${port} is where this command looked), ` +
      'with the same --config, --demo or DEPOT_GATEWAY_CONFIG it was started with.',
    { cause: error, details: error.details },
  );
}

/** The installed release, from package.json (one level up from src/ and from dist/). */
const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

endQuietlyOnClosedPipe();

const program = new Command('depot-gateway')
  .description('Integration gateway for fund-based custody insurance and occupational pensions')
  .version(version, '-V, --version', 'print the release and exit')
  .option('-c, --config <file>', 'configuration file (YAML); default $DEPOT_GATEWAY_CONFIG')
  .option('--demo', 'use the demo configuration (config/demo.yaml: demo data and login, embedded services, this machine only)')
  .showHelpAfterError()
  .exitOverride();

for (const [name, roles, description] of [
  ['start', ['api', 'worker', 'watch'], 'run every role in one process: HTTP, queue workers, folder watcher'],
  ['api', ['api'], 'run the HTTP server only (health, staff API, queue dashboard)'],
  ['worker', ['worker'], 'run the queue workers only (validate, apply, deliver) and the reconciler'],
  ['watch', ['watch'], 'run the counterparty folder watcher only'],
] as const) {
  program.command(name).description(description).action(() => runStart(program.opts(), roles));
}

program.command('migrate').description('bring the database schema up to date').action(() => runMigrate(program.opts()));

program
  .command('submit')
  .description('hand a document to the gateway on behalf of a counterparty and print its response')
  .argument('<file>', 'the XML document')
  .requiredOption('--from <counterparty>', 'counterparty id, e.g. demo-employer')
  .option('--wait', 'wait for the outcome and print the response document (default)', true)
  .option('--no-wait', 'print the receipt and return once the document is recorded')
  .option('--timeout <seconds>', 'how long to wait for the outcome', '60')
  .option('--json', 'print the receipt as JSON instead of the response document')
  .action((file: string, options) => runSubmit(program.opts(), file, options));

program.command('replay').description('process a dead message again from the stage where it died').argument('<id>').action((id: string) => runReplay(program.opts(), id));

const messages = program.command('messages').description('list and inspect messages in the message store');
messages
  .command('list', { isDefault: true })
  .description('list messages, newest first')
  .addOption(new Option('--status <status>').choices(['received', 'validated', 'applied', 'rejected', 'duplicate', 'dead']))
  .option('--counterparty <id>')
  .option('--type <messageType>')
  .option('--limit <n>', 'at most this many, newest first (default 50; a note on stderr says when more match)', positiveInteger)
  .option('--json', 'JSON lines instead of a table')
  .action((options) => runMessagesList(program.opts(), options));
messages.command('show').argument('<id>').option('--json').description('one message with its history and deliveries').action((id: string, options) => runMessagesShow(program.opts(), id, options));
messages.command('response').argument('<id>').description('print the response document of a message').action((id: string) => runMessagesResponse(program.opts(), id));

program
  .command('person')
  .description("a person's plan history under an agreement and the state it gives as of a date")
  .argument('<pin>', 'personal identity number, 12 digits')
  .requiredOption('--agreement <number>', 'agreement number, e.g. AGR-1001')
  .option('--as-of <date>', 'the date the state is read for (YYYY-MM-DD); default today in Stockholm')
  .option('--json', 'the history and state as JSON')
  .action((pin: string, options) => runPerson(program.opts(), pin, options));

program
  .command('reports')
  .description('custodian Holdings and Transactions per banking day: on time, late, missing or pending (deadline 08:30 Stockholm); with --annual, the yearly CostAndCharges (due by 30 April)')
  .option('--from <date>', 'first due day (YYYY-MM-DD); default 14 days before --to')
  .option('--to <date>', 'last due day (YYYY-MM-DD); default today in Stockholm')
  .addOption(new Option('--annual', "each custodian's CostAndCharges of one account year instead of the daily reports").conflicts(['from', 'to']))
  .addOption(new Option('--year <year>', 'the account year of --annual (YYYY); default last year').implies({ annual: true }))
  .option('--late', 'only late and missing reports')
  .option('--json', 'JSON lines instead of a table')
  .action((options) => runReports(program.opts(), options));

program
  .command('debit-run')
  .description('make the debit run of a quarter (in arrears): one DebitAccounts file per custodian, delivered to its outbox; a repeat makes nothing new')
  .requiredOption('--year <year>', 'year of the quarter covered, e.g. 2026')
  .requiredOption('--quarter <quarter>', 'quarter covered, 1–4 (4 is debited in February of the next year)')
  .option('--dry-run', 'compute and print the documents without storing or sending them')
  .option('--json', 'the outcome as JSON')
  .action((options) => runDebitRunCommand(program.opts(), options));

program
  .command('payout-run')
  .description("make a month's payout run: sell orders (by the 10th) and payouts (by the 22nd) of insurances in payout")
  .requiredOption('--month <month>', 'the payout month, YYYY-MM')
  .option('--dry-run', 'compute and print the documents without storing or sending them')
  .option('--json', 'the outcome as JSON')
  .action((options) => runPayoutRunCommand(program.opts(), options));

registerInsuranceCommand(program);
registerInsuranceEndCommand(program);
registerPayoutStartCommand(program);
registerDeathBenefitCommand(program);
registerPaymentOrdersCommand(program);
registerInvoiceSpecificationsCommand(program);
registerPersonDataCommand(program);

program
  .command('mail-set-aside')
  .description('mail the mailbox channel set aside (unknown sender, no XML attachment …), newest first, with the reason and the folder it is in')
  .option('--limit <n>', 'how many, 1–1000 (default 100)')
  .option('--json', 'JSON lines instead of a table')
  .action((options) => runMailSetAside(program.opts(), options));

registerPayoutNoticesCommand(program);

registerApplicationNoticesCommand(program);

registerApplicationsCommand(program);
registerWithdrawalsCommand(program);
registerCustodianSwitchesCommand(program);
registerPowersOfAttorneyCommand(program);
registerCompanySignatoriesCommand(program);
registerBankIdTestServerCommand(program);

program
  .command('hash-secret')
  .description('read a secret from stdin (not echoed at a terminal) and print its scrypt hash, for passwordHash and secretHash settings')
  .action(() => runHashSecret());

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
  }
  reportError(withDataFolderHint(error));
  process.exit(isGatewayError(error) && REJECTIONS.has(error.code) ? EXIT.rejected : EXIT.usage);
}
