import type { Command } from 'commander';
import { isGatewayError } from '../core/gateway-error.ts';
import { registerPayout, type RegisteredPayout } from '../http/staff/payout-start.routes.ts';
import { postJson, printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { EXIT, reportError, table } from './output.ts';

/**
 * `depot-gateway payout-start <number> --period 10y --first-month 2035-02 --account 50001234567`:
 * staff register the payout an insured person started, as POST
 * /api/insurances/<number>/payout does. Through the running gateway's staff API when
 * one answers (recorded under the staff user), otherwise in-process with the same
 * checks (recorded under `cli:<account>`). A refusal (unknown, ended or already in
 * payout; a period the product does not offer; a month too early, passed or already
 * run; a bank account that does not hold or is not registered and validated as the
 * insured's) exits 1 with its code, not as a failure.
 */
export function registerPayoutStartCommand(program: Command): void {
  program
    .command('payout-start')
    .description('register the payout an insured started: period (10y, 36m, life-long), first month and the bank account paid to')
    .argument('<number>', 'the insurance number, e.g. INS-100001')
    .requiredOption('--period <years>', 'the payout period the product offers: 10y, 36m (5y, 10y, 20y by default), or life-long')
    .requiredOption('--first-month <month>', 'the month of the first payout, YYYY-MM')
    .requiredOption('--account <digits>', "the insured's validated account: clearing number and account number, digits only (Swedbank: without the 5th clearing digit)")
    .option('--json', 'the payout registered as JSON')
    .action((number: string, options: StartOptions) => runPayoutStart(program.opts<GlobalOptions>(), number, options));
}

interface StartOptions {
  period: string;
  firstMonth: string;
  account: string;
  json?: boolean;
}

const REFUSED: ReadonlySet<string> = new Set([
  'RESOURCE_NOT_FOUND', 'INSURANCE_ALREADY_ENDED', 'PAYOUT_ALREADY_REGISTERED', 'PAYOUT_NOT_YET_DUE', 'PAYOUT_MONTH_PASSED',
  'PAYOUT_PERIOD_NOT_OFFERED', 'BANK_ACCOUNT_INVALID', 'PAYOUT_ACCOUNT_NOT_VALIDATED', 'REQUEST_INVALID',
]);

async function runPayoutStart(options: GlobalOptions, insuranceNumber: string, start: StartOptions): Promise<void> {
  const body = { period: start.period, firstMonth: start.firstMonth, withdrawalAccount: start.account };
  let registered: RegisteredPayout;
  try {
    registered = await throughGatewayOrStore(
      options,
      (gateway, by) => registerPayout(gateway.deps.db, insuranceNumber, body, by, gateway.deps.clock()),
      (client) => postJson<RegisteredPayout>(client, `/api/insurances/${encodeURIComponent(insuranceNumber)}/payout`, body),
    );
  } catch (error) {
    if (!isGatewayError(error) || !REFUSED.has(error.code)) throw error;
    reportError(error);
    process.exitCode = EXIT.rejected;
    return;
  }
  if (start.json) {
    printJson(registered);
    return;
  }
  const r = registered;
  process.stdout.write(table([
    ['INSURANCE', 'CAN BEGIN', 'PERIOD', 'FIRST MONTH', 'ACCOUNT', 'BANK', 'REGISTERED BY', 'REGISTERED AT'],
    [r.insuranceNumber, r.canBegin, r.period, r.firstMonth, r.withdrawalAccount, r.bankName, r.registeredBy, r.registeredAt],
  ]));
}
