import type { Command } from 'commander';
import { isGatewayError } from '../core/gateway-error.ts';
import { listDeathBenefits, type DeathBenefit, type DeathBenefitStatus } from '../ledger/plan/death-benefits.repository.ts';
import { readApplicationLimit } from '../http/staff/application-review.routes.ts';
import { recordBeneficiaryOf } from '../http/staff/death-benefits.routes.ts';
import { postJson, printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { EXIT, reportError, table } from './output.ts';

/**
 * `depot-gateway death-benefit <number> --beneficiary-name "Eva Svensson" --beneficiary-account 50001234560`:
 * staff record who a death benefit is paid to, as POST
 * /api/insurances/<number>/death-benefit/beneficiary does; `depot-gateway death-benefits
 * [--waiting]` lists the benefits and where each stands, as GET /api/death-benefits.
 * Through the running gateway's staff API when one answers (recorded under the staff
 * user), otherwise in-process (recorded under `cli:<account>`). A refusal (no benefit,
 * one already ordered, an account the bank rules refuse) exits 1 with its code.
 */
export function registerDeathBenefitCommand(program: Command): void {
  const globals = () => program.opts<GlobalOptions>();
  program
    .command('death-benefit')
    .description("record who a death benefit is paid to: the beneficiary's name and bank account (until a payout run has ordered it)")
    .argument('<number>', 'the insurance number, e.g. INS-100006')
    .requiredOption('--beneficiary-name <name>', "the beneficiary's name, 1–70 characters")
    .requiredOption('--beneficiary-account <digits>', 'clearing number and account number, digits only (Swedbank: without the 5th clearing digit)')
    .option('--json', 'the death benefit as JSON')
    .action((number: string, options: { beneficiaryName: string; beneficiaryAccount: string; json?: boolean }) => runRecord(globals(), number, options));
  program
    .command('death-benefits')
    .description('death benefits of repayment protection, newest first, and where each stands (beneficiary, custodian order, the insurer\'s payment order)')
    .option('--waiting', 'only those not yet paid by both the custodian\'s order and the insurer\'s payment order')
    .option('--limit <n>', 'at most this many, 1–1000 (default 100)')
    .option('--json', 'JSON lines instead of a table')
    .action((options: { waiting?: boolean; limit?: string; json?: boolean }) => runList(globals(), options));
}

const REFUSED: ReadonlySet<string> = new Set(['RESOURCE_NOT_FOUND', 'DEATH_BENEFIT_ALREADY_ORDERED', 'BANK_ACCOUNT_INVALID', 'REQUEST_INVALID']);

type Listed = DeathBenefit & { status: DeathBenefitStatus };

async function runRecord(options: GlobalOptions, insuranceNumber: string, given: { beneficiaryName: string; beneficiaryAccount: string; json?: boolean }): Promise<void> {
  const body = { name: given.beneficiaryName, account: given.beneficiaryAccount };
  let benefit: Listed;
  try {
    benefit = await throughGatewayOrStore(
      options,
      (gateway, by) => recordBeneficiaryOf(gateway.deps.db, insuranceNumber, body, by, gateway.deps.clock()),
      (client) => postJson<Listed>(client, `/api/insurances/${encodeURIComponent(insuranceNumber)}/death-benefit/beneficiary`, body),
    );
  } catch (error) {
    if (!isGatewayError(error) || !REFUSED.has(error.code)) throw error;
    reportError(error);
    process.exitCode = EXIT.rejected;
    return;
  }
  if (given.json) {
    printJson(benefit);
    return;
  }
  process.stdout.write(table([['INSURANCE', 'BENEFICIARY', 'ACCOUNT', 'RECORDED BY', 'RECORDED AT', 'STATUS'], rowOf(benefit)]));
  process.stdout.write('\nThe next payout run orders the custodian to sell the account and pay it to this account; the insurer\'s 1 % goes in a payment order to the same account.\n');
}

async function runList(options: GlobalOptions, list: { waiting?: boolean; limit?: string; json?: boolean }): Promise<void> {
  const limit = readApplicationLimit(list.limit ?? '100');
  const query = new URLSearchParams({ ...(list.waiting ? { waiting: 'true' } : {}), limit: String(limit) });
  const benefits = await throughGatewayOrStore(
    options,
    (gateway) => listDeathBenefits(gateway.deps.db, { waiting: list.waiting === true, limit }),
    async (client) => (await client.request<{ deathBenefits: Listed[] }>(`/api/death-benefits?${query}`)).deathBenefits,
  );
  if (list.json) {
    for (const benefit of benefits) printJson(benefit);
    return;
  }
  const cells = benefits.map((b) => [b.insuranceNumber, b.deathDate, b.status, b.custodyValue ?? '', b.insurerAmount ?? '', b.beneficiary?.name ?? '', b.beneficiary?.account ?? '',
    b.order?.runKey ?? '', b.paymentOrderId ?? '']);
  process.stdout.write(table([['INSURANCE', 'DIED', 'STATUS', 'CUSTODY VALUE', "INSURER'S 1 %", 'BENEFICIARY', 'ACCOUNT', 'ORDERED BY RUN', 'PAYMENT ORDER'], ...cells]));
}

function rowOf(benefit: Listed): string[] {
  // Through the API the time arrives as a string, in-process as a Date: print both alike.
  const at = benefit.beneficiary ? new Date(benefit.beneficiary.recordedAt).toISOString() : '';
  return [benefit.insuranceNumber, benefit.beneficiary?.name ?? '', benefit.beneficiary?.account ?? '', benefit.beneficiary?.recordedBy ?? '', at, benefit.status];
}
