import { type Command, Option } from 'commander';
import { GatewayError } from '../core/gateway-error.ts';
import { grantPowerOfAttorney, listPowersOfAttorney, revokePowerOfAttorney, type PowerOfAttorneyRow } from '../ledger/advice/powers-of-attorney.repository.ts';
import { notAnAdvisorFirm, notRevocable, readNewPower, readRevokeReason } from '../http/staff/powers-of-attorney.routes.ts';
import { postJson, printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { table } from './output.ts';
import { registerDirectQueriesSubcommand } from './direct-queries.command.ts';

/**
 * `depot-gateway powers-of-attorney`: staff keep the register of which advisor firm may
 * read (information) or act (intermediation) for which customer — list, grant, revoke.
 * Through the running gateway's staff API when one answers, every change audited under
 * the staff user signed in as; otherwise in-process with the same checks, audited under
 * `cli:<account>`. Revoking a power that is not in force exits 1 with RESOURCE_NOT_FOUND.
 * `powers-of-attorney queries` lists the direct queries answered under the powers.
 */
export function registerPowersOfAttorneyCommand(program: Command): void {
  const globals = () => program.opts<GlobalOptions>();
  const powers = program.command('powers-of-attorney').description('the register of powers of attorney: list, grant, revoke (every change audited); the direct queries answered under them');
  powers
    .command('list', { isDefault: true })
    .description('the register, revoked powers included, by customer and start')
    .option('--customer <id>', 'only this customer (personnummer or organisation number)')
    .option('--holder <orgnr>', 'only powers held by this advisor firm')
    .option('--json', 'JSON lines instead of a table')
    .action((options: { customer?: string; holder?: string; json?: boolean }) => runPowersList(globals(), options));
  powers
    .command('grant')
    .description('register a power of attorney for an advisor firm')
    .requiredOption('--customer <id>', 'the customer: personnummer (12 digits) or organisation number (10 digits)')
    .requiredOption('--holder <orgnr>', 'the advisor firm holding it: organisation number (10 digits)')
    .addOption(new Option('--kind <kind>', 'read the customer\'s insurances, or also act for the customer').choices(['information', 'intermediation']).makeOptionMandatory())
    .requiredOption('--from <date>', 'first day it holds, YYYY-MM-DD')
    .option('--to <date>', 'last day it holds, YYYY-MM-DD; open-ended when left out')
    .option('--json', 'the power granted as JSON')
    .action((options: GrantOptions) => runPowerGrant(globals(), options));
  powers
    .command('revoke')
    .description('revoke a power of attorney from now on')
    .argument('<id>')
    .option('--reason <text>', 'why, kept in the audit trail')
    .option('--json', 'the power revoked as JSON')
    .action((id: string, options: { reason?: string; json?: boolean }) => runPowerRevoke(globals(), id, options));
  registerDirectQueriesSubcommand(powers, globals);
}

interface GrantOptions {
  customer: string;
  holder: string;
  kind: string;
  from: string;
  to?: string;
  json?: boolean;
}

async function runPowersList(options: GlobalOptions, list: { customer?: string; holder?: string; json?: boolean }): Promise<void> {
  const query = new URLSearchParams({ ...(list.customer ? { customer: list.customer } : {}), ...(list.holder ? { holder: list.holder } : {}) });
  const rows = await throughGatewayOrStore(
    options,
    (gateway) => listPowersOfAttorney(gateway.deps.db, { customerId: list.customer, holderOrganisationNumber: list.holder }),
    (client) => client.request<PowerOfAttorneyRow[]>(`/api/powers-of-attorney?${query}`),
  );
  printPowers(rows, list);
}

async function runPowerGrant(options: GlobalOptions, grant: GrantOptions): Promise<void> {
  const body = { holderOrganisationNumber: grant.holder, customerId: grant.customer, kind: grant.kind, validFrom: grant.from, ...(grant.to ? { validTo: grant.to } : {}) };
  const power = readNewPower(body);
  const granted = await throughGatewayOrStore(
    options,
    async (gateway, by) => {
      const row = await grantPowerOfAttorney(gateway.deps.db, power, by, gateway.deps.clock());
      if (!row) throw new GatewayError('REQUEST_INVALID', notAnAdvisorFirm(power.holderOrganisationNumber));
      return row;
    },
    (client) => postJson<PowerOfAttorneyRow>(client, '/api/powers-of-attorney', body),
  );
  printPowers([granted], grant);
}

async function runPowerRevoke(options: GlobalOptions, id: string, revoke: { reason?: string; json?: boolean }): Promise<void> {
  const reason = readRevokeReason({ reason: revoke.reason });
  const revoked = await throughGatewayOrStore(
    options,
    async (gateway, by) => {
      const row = await revokePowerOfAttorney(gateway.deps.db, id, by, gateway.deps.clock(), reason);
      if (!row) throw new GatewayError('RESOURCE_NOT_FOUND', notRevocable(id));
      return row;
    },
    (client) => postJson<PowerOfAttorneyRow>(client, `/api/powers-of-attorney/${encodeURIComponent(id)}/revoke`, reason === undefined ? {} : { reason }),
  );
  printPowers([revoked], revoke);
}

function printPowers(rows: readonly PowerOfAttorneyRow[], output: { json?: boolean }): void {
  if (output.json) {
    for (const row of rows) printJson(row);
    return;
  }
  const cells = rows.map((p) => [p.id, p.customerId, p.holderOrganisationNumber, p.kind, p.validFrom, p.validTo ?? '-', p.createdAt, p.createdBy, p.revokedAt ?? '-', p.revokedBy ?? '-']);
  process.stdout.write(table([['ID', 'CUSTOMER', 'HOLDER', 'KIND', 'FROM', 'TO', 'GRANTED', 'BY', 'REVOKED', 'BY'], ...cells]));
}
