import { type Command, Option } from 'commander';
import { GatewayError, isGatewayError } from '../core/gateway-error.ts';
import { readApplicationLimit } from '../http/staff/application-review.routes.ts';
import { staffView } from '../http/staff/custodian-switch-review.routes.ts';
import { findSwitch, listSwitches } from '../ledger/custody/custodian-switches.repository.ts';
import { closeCustodianSwitch, registerSwitchForCustomer } from '../requests/custodian-switch.ts';
import { STAFF_REQUEST_CHANNELS, type StaffRequestChannel } from '../requests/withdrawal-request.ts';
import { postJson, printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { EXIT, reportError, table } from './output.ts';

/**
 * `depot-gateway custodian-switches`: switches of an insurance to another custodian
 * (docs/custodian-switch.md) — the list (open ones, or one insurance's), one switch with
 * its history and the runs that waited for it, a switch registered on the policyholder's
 * behalf (from the insurer's e-service or a paper form; the policyholder then signs it),
 * and a switch given up with a reason. Through the running gateway's staff API when one
 * answers (recorded under the staff user), otherwise in-process (under `cli:<account>`).
 * A registration the rules refuse exits 1 with its code; no such switch exits 1,
 * RESOURCE_NOT_FOUND.
 */
type SwitchView = ReturnType<typeof staffView>;

export function registerCustodianSwitchesCommand(program: Command): void {
  const globals = () => program.opts<GlobalOptions>();
  const switches = program.command('custodian-switches').description("switches of an insurance's custodian: list, show, register and close");
  switches
    .command('list', { isDefault: true })
    .description('custodian switches, newest first; STALLED marks an open switch flagged for no step past custodianSwitches.stallBankingDays')
    .option('--open', 'only the open ones (requested, ordered, confirmed)')
    .option('--insurance <number>', "only this insurance's")
    .option('--limit <n>', 'at most this many, 1–1000 (default 100)')
    .option('--json', 'JSON lines instead of a table')
    .action((options: { open?: boolean; insurance?: string; limit?: string; json?: boolean }) => runList(globals(), options));
  switches
    .command('show')
    .argument('<id>')
    .option('--json', 'the switch as JSON')
    .description('one switch with its history and the runs that waited for it')
    .action((id: string, options: { json?: boolean }) => runShow(globals(), id, options));
  switches
    .command('register')
    .description("register a switch on the policyholder's behalf, received through the insurer's e-service or on a paper form; the policyholder signs it (its sign case)")
    .requiredOption('--insurance <number>', 'the insurance')
    .requiredOption('--to <custodian>', 'the receiving custodian (a configured custodian counterparty)')
    .option('--account <number>', 'the new account at the receiving custodian, when it is open already')
    .addOption(new Option('--channel <channel>', 'how the request came').choices(STAFF_REQUEST_CHANNELS).makeOptionMandatory())
    .requiredOption('--reference <text>', "the e-service case or the paper form's reference, kept in the switch's history")
    .option('--json', 'the switch as JSON')
    .action((options: RegisterOptions) => runRegister(globals(), options));
  switches
    .command('close')
    .argument('<id>')
    .requiredOption('--reason <text>', "why it is given up, kept in the switch's history")
    .option('--json', 'the switch as JSON')
    .description('give up an open switch (nothing is sent; its sign case is closed)')
    .action((id: string, options: { reason: string; json?: boolean }) => runClose(globals(), id, options));
}

async function runList(options: GlobalOptions, list: { open?: boolean; insurance?: string; limit?: string; json?: boolean }): Promise<void> {
  const limit = readApplicationLimit(list.limit ?? '100');
  const query = new URLSearchParams({ ...(list.open ? { open: 'true' } : {}), ...(list.insurance ? { insurance: list.insurance } : {}), limit: String(limit) });
  const rows = await throughGatewayOrStore(
    options,
    async (gateway) => (await listSwitches(gateway.deps.db, { ...(list.open ? { open: true } : {}), ...(list.insurance ? { insuranceNumber: list.insurance } : {}), limit })).map(staffView),
    (client) => client.request<SwitchView[]>(`/api/custodian-switches?${query}`),
  );
  if (list.json) {
    for (const row of rows) printJson(row);
    return;
  }
  const cells = rows.map((s) => [s.switchId, s.stalled ? `${s.status} STALLED` : s.status, s.requestedAt, s.insuranceNumber, `${s.fromCustodian} ${s.fromAccount}`, `${s.toCustodian} ${s.toAccount ?? '-'}`]);
  process.stdout.write(table([['ID', 'STATUS', 'REQUESTED', 'INSURANCE', 'FROM', 'TO'], ...cells]));
}

async function runShow(options: GlobalOptions, id: string, show: { json?: boolean }): Promise<void> {
  const found = await throughGatewayOrStore(
    options,
    async (gateway) => {
      const record = await findSwitch(gateway.deps.db, id);
      if (!record) throw new GatewayError('RESOURCE_NOT_FOUND', `No custodian switch ${id}.`);
      return staffView(record);
    },
    (client) => client.request<SwitchView>(`/api/custodian-switches/${encodeURIComponent(id)}`),
  );
  if (show.json) return printJson(found);
  const lines = [
    `${found.switchId}  ${found.status}${found.stalled ? '  STALLED' : ''}`,
    `insurance ${found.insuranceNumber}, policyholder ${found.policyholder}: ${found.fromCustodian} ${found.fromAccount} → ${found.toCustodian} ${found.toAccount ?? '(new account not yet confirmed)'}, sign case ${found.signCaseId ?? '-'}`,
    `order ${found.orderDocumentId ?? '-'}, transferred out ${found.transferredOut ? 'yes' : 'no'}, value arrived ${found.valueArrived ? `${found.movedValue} SEK` : 'no'}`,
    '', 'history:',
    table([['AT', 'EVENT', 'BY', 'REASON'], ...found.history.map((h) => [h.at, h.event, h.by, h.reason ?? ''])]).trimEnd().split('\n').map((line) => `  ${line}`).join('\n'),
    ...(found.waits.length > 0 ? ['', 'runs that waited:', ...found.waits.map((w) => `  ${w.kind} ${w.runKey}: ${w.orderedRunKey ? `ordered as ${w.orderedRunKey}` : 'waiting'}`)] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

interface RegisterOptions {
  insurance: string;
  to: string;
  account?: string;
  channel: StaffRequestChannel;
  reference: string;
  json?: boolean;
}

const REFUSED_REGISTRATION: ReadonlySet<string> = new Set(['RESOURCE_NOT_FOUND', 'REQUEST_INVALID', 'CUSTODIAN_SWITCH_NOT_ALLOWED', 'CUSTODY_ACCOUNT_IN_USE']);

async function runRegister(options: GlobalOptions, register: RegisterOptions): Promise<void> {
  const body = { insuranceNumber: register.insurance, toCustodian: register.to, ...(register.account ? { toAccount: register.account } : {}), channel: register.channel, reference: register.reference };
  let found: SwitchView;
  try {
    found = await throughGatewayOrStore(
      options,
      async (gateway, by) => {
        const custodians = new Set(gateway.config.counterparties.filter((c) => c.role === 'custodian').map((c) => c.id));
        const switchId = await registerSwitchForCustomer(gateway.deps.db, custodians, {
          insuranceNumber: register.insurance, toCustodian: register.to, toAccount: register.account, requestedBy: by,
          note: `${register.channel}: ${register.reference.trim()}`, now: gateway.deps.clock(),
        });
        return staffView((await findSwitch(gateway.deps.db, switchId))!);
      },
      (client) => postJson<SwitchView>(client, '/api/custodian-switches', body),
    );
  } catch (error) {
    if (!isGatewayError(error) || !REFUSED_REGISTRATION.has(error.code)) throw error;
    reportError(error);
    process.exitCode = EXIT.rejected;
    return;
  }
  if (register.json) return printJson(found);
  process.stdout.write(`${found.switchId}  ${found.status}  sign case ${found.signCaseId ?? '-'}\n`);
}

async function runClose(options: GlobalOptions, id: string, close: { reason: string; json?: boolean }): Promise<void> {
  const reason = close.reason.trim();
  if (reason === '') throw new GatewayError('REQUEST_INVALID', '--reason must say why.');
  const found = await throughGatewayOrStore(
    options,
    async (gateway, by) => {
      if (!await closeCustodianSwitch(gateway.deps.db, id, reason, by, gateway.deps.clock())) throw new GatewayError('RESOURCE_NOT_FOUND', `No open custodian switch ${id}.`);
      return staffView((await findSwitch(gateway.deps.db, id))!);
    },
    (client) => postJson<SwitchView>(client, `/api/custodian-switches/${encodeURIComponent(id)}/close`, { reason }),
  );
  process.stdout.write(close.json ? `${JSON.stringify(found)}\n` : `${found.switchId}  ${found.status}\n`);
}
