import type { Command } from 'commander';
import { GatewayError } from '../core/gateway-error.ts';
import {
  companySigningRegister, registerCompanySignatory, revokeCompanySignatory, setCompanySigningRule, type CompanySignatoryRow, type CompanySigningRegister,
} from '../ledger/advice/company-signatories.repository.ts';
import { notRevocableSignatory, readNewSignatory, readOrganisationNumber, readRequiredSignatures } from '../http/staff/company-signatories.routes.ts';
import { readRevokeReason } from '../http/staff/powers-of-attorney.routes.ts';
import { postJson, printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { table } from './output.ts';

/**
 * `depot-gateway company-signatories`: staff keep the register of who signs for an
 * organisation policyholder and how many must sign together — list, register, revoke,
 * rule. Through the running gateway's staff API when one answers, every change audited
 * under the staff user signed in as; otherwise in-process with the same checks, audited
 * under `cli:<account>`. Revoking one not in force exits 1 with RESOURCE_NOT_FOUND.
 */
export function registerCompanySignatoriesCommand(program: Command): void {
  const globals = () => program.opts<GlobalOptions>();
  const signatories = program.command('company-signatories').description("an organisation's company signatories and signing rule: list, register, revoke, rule (every change audited)");
  signatories
    .command('list', { isDefault: true })
    .description('the signing rule and the signatories, revoked ones included')
    .requiredOption('--organisation <orgnr>', 'the organisation policyholder (10 digits)')
    .option('--json', 'the register as JSON')
    .action((options: { organisation: string; json?: boolean }) => runList(globals(), options));
  signatories
    .command('register')
    .description('register a company signatory')
    .requiredOption('--organisation <orgnr>', 'the organisation policyholder (10 digits)')
    .requiredOption('--personal-number <pin>', "the signatory's personnummer (12 digits)")
    .requiredOption('--name <name>', "the signatory's name")
    .requiredOption('--from <date>', 'first day they may sign, YYYY-MM-DD')
    .option('--to <date>', 'last day they may sign, YYYY-MM-DD; open-ended when left out')
    .option('--json', 'the signatory registered as JSON')
    .action((options: RegisterOptions) => runRegister(globals(), options));
  signatories
    .command('revoke')
    .description('revoke a company signatory from now on')
    .argument('<id>')
    .requiredOption('--organisation <orgnr>', 'the organisation policyholder (10 digits)')
    .option('--reason <text>', 'why, kept in the audit trail')
    .option('--json', 'the signatory revoked as JSON')
    .action((id: string, options: { organisation: string; reason?: string; json?: boolean }) => runRevoke(globals(), id, options));
  signatories
    .command('rule')
    .description('set how many signatories in force must sign together (1: each alone, 2: jointly two)')
    .requiredOption('--organisation <orgnr>', 'the organisation policyholder (10 digits)')
    .requiredOption('--required <n>', 'how many must sign')
    .option('--json', 'the register as JSON')
    .action((options: { organisation: string; required: string; json?: boolean }) => runRule(globals(), options));
}

interface RegisterOptions {
  organisation: string;
  personalNumber: string;
  name: string;
  from: string;
  to?: string;
  json?: boolean;
}

const path = (orgnr: string) => `/api/organisations/${encodeURIComponent(orgnr)}`;

async function runList(options: GlobalOptions, list: { organisation: string; json?: boolean }): Promise<void> {
  const orgnr = readOrganisationNumber(list.organisation);
  const register = await throughGatewayOrStore(
    options,
    (gateway) => companySigningRegister(gateway.deps.db, orgnr),
    (client) => client.request<CompanySigningRegister>(`${path(orgnr)}/signatories`),
  );
  if (list.json) return printJson(register);
  process.stdout.write(`${orgnr}: ${register.requiredSignatures === null ? 'no signing rule set' : `${register.requiredSignatures} must sign together`}\n`);
  printSignatories(register.signatories, list);
}

async function runRegister(options: GlobalOptions, registration: RegisterOptions): Promise<void> {
  const body = { personalNumber: registration.personalNumber, name: registration.name, validFrom: registration.from, ...(registration.to ? { validTo: registration.to } : {}) };
  const orgnr = readOrganisationNumber(registration.organisation);
  const signatory = readNewSignatory(orgnr, body);
  const registered = await throughGatewayOrStore(
    options,
    (gateway, by) => registerCompanySignatory(gateway.deps.db, signatory, by, gateway.deps.clock()),
    (client) => postJson<CompanySignatoryRow>(client, `${path(orgnr)}/signatories`, body),
  );
  printSignatories([registered], registration);
}

async function runRevoke(options: GlobalOptions, id: string, revoke: { organisation: string; reason?: string; json?: boolean }): Promise<void> {
  const orgnr = readOrganisationNumber(revoke.organisation);
  const reason = readRevokeReason({ reason: revoke.reason });
  const revoked = await throughGatewayOrStore(
    options,
    async (gateway, by) => {
      const row = await revokeCompanySignatory(gateway.deps.db, orgnr, id, by, gateway.deps.clock(), reason);
      if (!row) throw new GatewayError('RESOURCE_NOT_FOUND', notRevocableSignatory(orgnr, id));
      return row;
    },
    (client) => postJson<CompanySignatoryRow>(client, `${path(orgnr)}/signatories/${encodeURIComponent(id)}/revoke`, reason === undefined ? {} : { reason }),
  );
  printSignatories([revoked], revoke);
}

async function runRule(options: GlobalOptions, rule: { organisation: string; required: string; json?: boolean }): Promise<void> {
  const orgnr = readOrganisationNumber(rule.organisation);
  const requiredSignatures = readRequiredSignatures({ requiredSignatures: /^\d+$/.test(rule.required) ? Number(rule.required) : rule.required });
  const register = await throughGatewayOrStore(
    options,
    async (gateway, by) => {
      await setCompanySigningRule(gateway.deps.db, orgnr, requiredSignatures, by, gateway.deps.clock());
      return companySigningRegister(gateway.deps.db, orgnr);
    },
    (client) => client.request<CompanySigningRegister>(`${path(orgnr)}/signing-rule`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ requiredSignatures }),
    }),
  );
  if (rule.json) return printJson(register);
  process.stdout.write(`${orgnr}: ${requiredSignatures} must sign together\n`);
}

function printSignatories(rows: readonly CompanySignatoryRow[], output: { json?: boolean }): void {
  if (output.json) {
    for (const row of rows) printJson(row);
    return;
  }
  const cells = rows.map((s) => [s.id, s.organisationNumber, s.personalNumber, s.name, s.validFrom, s.validTo ?? '-', s.createdAt, s.createdBy, s.revokedAt ?? '-', s.revokedBy ?? '-']);
  process.stdout.write(table([['ID', 'ORGANISATION', 'PERSONNUMMER', 'NAME', 'FROM', 'TO', 'REGISTERED', 'BY', 'REVOKED', 'BY'], ...cells]));
}
