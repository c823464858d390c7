import { type Command, Option } from 'commander';
import { withConfiguredRates } from '../core/charges/yield-tax-rates.ts';
import { GatewayError, isGatewayError } from '../core/gateway-error.ts';
import type { StoredWithdrawalStatus } from '../core/withdrawal-request.rules.ts';
import { findWithdrawalRequest, listWithdrawalRequests, type WithdrawalRequestRecord, type WithdrawalSummary } from '../ledger/advice/withdrawal-requests.repository.ts';
import { readApplicationLimit } from '../http/staff/application-review.routes.ts';
import { notAwaitingDecision, WITHDRAWAL_STATUSES } from '../http/staff/withdrawal-review.routes.ts';
import { runDepsFrom } from '../calendar/debit-run.ts';
import { decideWithdrawal } from '../requests/withdrawal-order.ts';
import { registerRequestForCustomer, STAFF_REQUEST_CHANNELS, type StaffRequestChannel } from '../requests/withdrawal-request.ts';
import { postJson, printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { EXIT, reportError, table } from './output.ts';

/**
 * `depot-gateway withdrawals`: the insurer's approval of withdrawal requests — the list,
 * one request with its history, a request registered on the policyholder's behalf
 * (`register`: from the insurer's e-service or a paper form), and approve or reject
 * with a reason. Through the running gateway's staff API when one answers (recorded
 * under the staff user), otherwise in-process (recorded under `cli:<account>`). An approval of a fully signed
 * request orders it: its DebitAccounts document goes to the custodian. A decision on a
 * request decided already, or no such id, exits 1 with RESOURCE_NOT_FOUND; a registration
 * the rules refuse exits 1 with the first problem's code (REFUSED_REGISTRATION), as the
 * other commands answer a refusal — 2 stays for usage and system errors.
 */
export function registerWithdrawalsCommand(program: Command): void {
  const globals = () => program.opts<GlobalOptions>();
  const withdrawals = program.command('withdrawals').description('withdrawal requests made through the REST API: list, show, and approve or reject');
  withdrawals
    .command('list', { isDefault: true })
    .description('withdrawal requests, oldest first')
    .addOption(new Option('--status <status>').choices(WITHDRAWAL_STATUSES))
    .option('--limit <n>', 'at most this many, 1–1000 (default 100)')
    .option('--json', 'JSON lines instead of a table')
    .action((options: { status?: StoredWithdrawalStatus; limit?: string; json?: boolean }) => runList(globals(), options));
  withdrawals
    .command('show')
    .argument('<id>')
    .option('--json', 'the request as JSON')
    .description('one withdrawal request with its status history')
    .action((id: string, options: { json?: boolean }) => runShow(globals(), id, options));
  withdrawals
    .command('register')
    .description('register a withdrawal request on the policyholder\'s behalf, received through the insurer\'s e-service or on a paper form')
    .requiredOption('--insurance <number>', 'the insurance')
    .requiredOption('--amount <sek>', 'SEK as a decimal string, within the insurance\'s bounds today')
    .requiredOption('--account <digits>', 'a withdrawal account validated for the policyholder: clearing number and account number, digits only')
    .addOption(new Option('--channel <channel>', 'how the request came').choices(STAFF_REQUEST_CHANNELS).makeOptionMandatory())
    .requiredOption('--reference <text>', 'the e-service case or the paper form\'s reference, kept in the request\'s history')
    .option('--json', 'the request as JSON')
    .action((options: RegisterOptions) => runRegister(globals(), options));
  for (const [action, decision, description] of [
    ['approve', 'approved', 'approve a request: once every signatory has signed it goes to the custodian'],
    ['reject', 'rejected', 'reject a request'],
  ] as const) {
    withdrawals
      .command(action)
      .argument('<id>')
      .requiredOption('--reason <text>', 'why, kept in the request\'s history')
      .option('--json', 'the outcome as JSON')
      .description(description)
      .action((id: string, options: { reason: string; json?: boolean }) => runDecision(globals(), id, action, decision, options));
  }
}

async function runList(options: GlobalOptions, list: { status?: StoredWithdrawalStatus; limit?: string; json?: boolean }): Promise<void> {
  const limit = readApplicationLimit(list.limit ?? '100');
  const query = new URLSearchParams({ ...(list.status ? { status: list.status } : {}), limit: String(limit) });
  const rows = await throughGatewayOrStore(
    options,
    (gateway) => listWithdrawalRequests(gateway.deps.db, list.status, limit),
    (client) => client.request<WithdrawalSummary[]>(`/api/withdrawal-requests?${query}`),
  );
  if (list.json) {
    for (const row of rows) printJson(row);
    return;
  }
  const cells = rows.map((r) => [r.requestId, r.status, r.requestedAt, r.insuranceNumber, r.customerId, r.amount, `${r.bankName} ${r.accountNumber}`]);
  process.stdout.write(table([['ID', 'STATUS', 'REQUESTED', 'INSURANCE', 'CUSTOMER', 'AMOUNT', 'ACCOUNT'], ...cells]));
}

async function runShow(options: GlobalOptions, id: string, show: { json?: boolean }): Promise<void> {
  const request = await throughGatewayOrStore(
    options,
    async (gateway) => {
      const found = await findWithdrawalRequest(gateway.deps.db, id);
      if (!found) throw new GatewayError('RESOURCE_NOT_FOUND', `No withdrawal request ${id}.`);
      return found;
    },
    (client) => client.request<WithdrawalRequestRecord>(`/api/withdrawal-requests/${encodeURIComponent(id)}`),
  );
  if (show.json) return printJson(request);
  const r = request;
  const lines = [
    `${r.requestId}  ${r.status}`,
    `insurance ${r.insuranceNumber}, policyholder ${r.customerId}, ${r.amount} SEK to ${r.bankName} ${r.accountNumber}, sign case ${r.signCaseId}`,
    '', 'history:',
    table([['AT', 'EVENT', 'BY', 'REASON'], ...r.history.map((h) => [h.at, h.event, h.by, h.reason ?? ''])]).trimEnd().split('\n').map((line) => `  ${line}`).join('\n'),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

interface RegisterOptions {
  insurance: string;
  amount: string;
  account: string;
  channel: StaffRequestChannel;
  reference: string;
  json?: boolean;
}

/** What a refused registration answers with (registerRequestForCustomer): no such insurance, a bad field, or a rule of the request. */
const REFUSED_REGISTRATION: ReadonlySet<string> = new Set([
  'RESOURCE_NOT_FOUND', 'REQUEST_INVALID', 'BANK_ACCOUNT_INVALID', 'WITHDRAWAL_NOT_ALLOWED', 'WITHDRAWAL_AMOUNT_OUT_OF_BOUNDS', 'WITHDRAWAL_ACCOUNT_NOT_VALIDATED',
]);

async function runRegister(options: GlobalOptions, register: RegisterOptions): Promise<void> {
  const body = { insuranceNumber: register.insurance, amount: register.amount, accountNumber: register.account, channel: register.channel, reference: register.reference };
  let request: WithdrawalRequestRecord;
  try {
    request = await throughGatewayOrStore(
      options,
      async (gateway, by) => {
        const requestId = await registerRequestForCustomer(gateway.deps.db, {
          ...body, by, now: gateway.deps.clock(), yieldTaxRates: withConfiguredRates(gateway.config.charges.yieldTaxRates),
        });
        return (await findWithdrawalRequest(gateway.deps.db, requestId))!;
      },
      (client) => postJson<WithdrawalRequestRecord>(client, '/api/withdrawal-requests', body),
    );
  } catch (error) {
    if (!isGatewayError(error) || !REFUSED_REGISTRATION.has(error.code)) throw error;
    reportError(error);
    process.exitCode = EXIT.rejected;
    return;
  }
  if (register.json) return printJson(request);
  process.stdout.write(`${request.requestId}  ${request.status}  sign case ${request.signCaseId}\n`);
}

async function runDecision(options: GlobalOptions, id: string, action: 'approve' | 'reject', decision: 'approved' | 'rejected', decide: { reason: string; json?: boolean }): Promise<void> {
  const reason = decide.reason.trim();
  if (reason === '') throw new GatewayError('REQUEST_INVALID', '--reason must say why.');
  const outcome = await throughGatewayOrStore(
    options,
    async (gateway, by) => {
      const deps = runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log);
      const status = await decideWithdrawal(gateway.deps.db, deps, id, decision, by, reason, gateway.deps.clock());
      if (!status) throw new GatewayError('RESOURCE_NOT_FOUND', notAwaitingDecision(id));
      return { requestId: id, status };
    },
    (client) => postJson<{ requestId: string; status: string }>(client, `/api/withdrawal-requests/${encodeURIComponent(id)}/${action}`, { reason }),
  );
  process.stdout.write(decide.json ? `${JSON.stringify(outcome)}\n` : `${outcome.requestId}  ${outcome.status}\n`);
}
