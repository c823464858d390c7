import { type Command, Option } from 'commander';
import { stockholmDate } from '../core/calendar-date.ts';
import { GatewayError, isGatewayError } from '../core/gateway-error.ts';
import { endedOrThrow, readInsuranceEnd } from '../http/staff/insurance-end.routes.ts';
import { INSURANCE_END_CAUSES } from '../ledger/plan/insurance-end.repository.ts';
import { recordEndWithLeaflet, type EndWithLeaflet } from '../requests/transfer-leaflet-out.ts';
import { postJson, printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { EXIT, reportError, table } from './output.ts';

/**
 * `depot-gateway insurance-end <number> --cause death --date YYYY-MM-DD`: staff record
 * the last day in force of an insurance that ended outside the gateway's flows (a
 * death, a move to another insurer, a surrender), as POST /api/insurances/<number>/end
 * does. Through the running gateway's staff API when one answers (recorded under the
 * staff user), otherwise in-process with the same checks (recorded under
 * `cli:<account>`). An insurance that is unknown or already ended is a refusal (exit
 * 1), not a failure. A death that pays the death benefit of repayment protection prints
 * it below the end: the custody value the next payout run sells and pays out, and the
 * 1 % the insurer pays from its own funds. A move to another insurer named with `--to
 * <insurer>` sends that insurer the transfer leaflet, recorded with the end.
 */
export function registerInsuranceEndCommand(program: Command): void {
  program
    .command('insurance-end')
    .description('record that an insurance has ended: charged to that day, no tax on a later opening value, no payouts after it')
    .argument('<number>', 'the insurance number, e.g. INS-100006')
    .addOption(new Option('--cause <cause>', 'why it ended').choices(INSURANCE_END_CAUSES).makeOptionMandatory())
    .requiredOption('--date <date>', 'the last day in force, YYYY-MM-DD; not after today')
    .option('--beneficiary-name <name>', "a death: the death benefit's beneficiary (with --beneficiary-account; or later, depot-gateway death-benefit)")
    .option('--beneficiary-account <digits>', "a death: the beneficiary's bank account, clearing number and account number, digits only")
    .option('--to <insurer>', 'transferred-out: the counterparty id of the insurer it moves to, which is sent the transfer leaflet')
    .option('--json', 'the end recorded as JSON')
    .action((number: string, options: EndOptions) => runInsuranceEnd(program.opts<GlobalOptions>(), number, options));
}

interface EndOptions {
  cause: string;
  date: string;
  beneficiaryName?: string;
  beneficiaryAccount?: string;
  to?: string;
  json?: boolean;
}

/** What the command answers 1 for: no such insurance, one that has already ended, a beneficiary's account the bank rules refuse. */
const REFUSED: ReadonlySet<string> = new Set(['RESOURCE_NOT_FOUND', 'INSURANCE_ALREADY_ENDED', 'BANK_ACCOUNT_INVALID', 'TRANSFER_VALUE_UNKNOWN']);

async function runInsuranceEnd(options: GlobalOptions, insuranceNumber: string, end: EndOptions): Promise<void> {
  if ((end.beneficiaryName === undefined) !== (end.beneficiaryAccount === undefined)) {
    throw new GatewayError('REQUEST_INVALID', '--beneficiary-name and --beneficiary-account go together: give both, or neither.');
  }
  const beneficiary = end.beneficiaryName !== undefined ? { name: end.beneficiaryName, account: end.beneficiaryAccount } : undefined;
  const body = { cause: end.cause, date: end.date, ...(beneficiary ? { beneficiary } : {}), ...(end.to !== undefined ? { receivingInsurer: end.to } : {}) };
  let ended: EndWithLeaflet;
  try {
    ended = await throughGatewayOrStore(
      options,
      async (gateway, by) => {
        const now = gateway.deps.clock();
        const read = readInsuranceEnd(body, stockholmDate(now));
        const { cause, date } = read;
        const outcome = await recordEndWithLeaflet(gateway.deps, { insuranceNumber, endDate: date, cause, endedBy: by, beneficiary: read.beneficiary, receivingInsurer: read.receivingInsurer }, now);
        return endedOrThrow(insuranceNumber, outcome);
      },
      (client) => postJson<EndWithLeaflet>(client, `/api/insurances/${encodeURIComponent(insuranceNumber)}/end`, body),
    );
  } catch (error) {
    if (!isGatewayError(error) || !REFUSED.has(error.code)) throw error;
    reportError(error);
    process.exitCode = EXIT.rejected;
    return;
  }
  if (end.json) {
    printJson(ended);
    return;
  }
  // Through the API the time arrives as a string, in-process as a Date: print both alike.
  const recordedAt = new Date(ended.recordedAt).toISOString();
  process.stdout.write(table([['INSURANCE', 'LAST DAY', 'CAUSE', 'RECORDED BY', 'RECORDED AT'], [ended.insuranceNumber, ended.endDate, ended.cause, ended.endedBy, recordedAt]]));
  if (ended.cause === 'death') process.stdout.write(`\n${deathBenefitText(ended)}\n`);
  if (ended.transferLeaflet) process.stdout.write(`\nTransfer leaflet ${ended.transferLeaflet.documentId} recorded for ${ended.transferLeaflet.receivingInsurer}, delivered over its channel.\n`);
}

/** What a recorded death pays beyond its end, for staff. */
function deathBenefitText({ deathBenefit }: EndWithLeaflet): string {
  if (!deathBenefit) return 'No death benefit (only a capital insurance with repayment protection and no payout registered pays one): nothing more is ordered.';
  const { custodyValue, valueAsOf, insurerAmount, beneficiary, insuranceNumber } = deathBenefit;
  const to = beneficiary
    ? `to ${beneficiary.name}, account ${beneficiary.account}`
    : `to the beneficiary's account, once recorded (depot-gateway death-benefit ${insuranceNumber} --beneficiary-name … --beneficiary-account …; until then no run orders it)`;
  const sale = `The next payout run sells the whole account and pays it out in one final payout ${to}.`;
  if (custodyValue === null) return `Death benefit recorded, no custody value reported yet: ${sale} The insurer pays 1 % of the value that run pays out.`;
  return `Death benefit: custody value ${custodyValue} SEK (as of ${valueAsOf}); the insurer pays 1 %, ${insurerAmount} SEK, from its own funds. ${sale}`;
}
