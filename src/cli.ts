import { Command, CommanderError, Option } from 'commander';
import { runStart, runMigrate, runSubmit, runReplay, runMessagesList, runMessagesShow, runMessagesResponse, runPerson } from './cli/commands.ts';
import { EXIT, reportError } from './cli/output.ts';
import { isGatewayError } from './core/gateway-error.ts';

/**
 * The depot-gateway command. Exit codes a script can rely on:
 *   0  success (for submit: the document was accepted, fully or partly)
 *   1  the document was rejected (submit), or no message / person matches (MESSAGE_NOT_FOUND, PERSON_NOT_FOUND)
 *   2  usage error or system error (configuration, database, queue, network)
 */
const program = new Command('depot-gateway')
  .description('Integration gateway for fund-based custody insurance and occupational pensions')
  .option('-c, --config <file>', 'configuration file (YAML); default $DEPOT_GATEWAY_CONFIG, else the demo configuration')
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
  .option('--limit <n>', 'at most this many', '50')
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

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
  }
  reportError(error);
  process.exit(isGatewayError(error) && (error.code === 'MESSAGE_NOT_FOUND' || error.code === 'PERSON_NOT_FOUND') ? EXIT.rejected : EXIT.usage);
}
