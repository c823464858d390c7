import { type Command, Option } from 'commander';
import { stockholmDate } from '../core/calendar-date.ts';
import { GatewayError } from '../core/gateway-error.ts';
import {
  decideApplication, findApplication, listApplications, type ApplicationFilter, type ApplicationRecord, type ApplicationStatus,
  type ApplicationSummary, type ReviewDecision,
} from '../ledger/advice/applications.repository.ts';
import { APPLICATION_KINDS, APPLICATION_STATUSES, notUnderReview, readApplicationLimit } from '../http/staff/application-review.routes.ts';
import { postJson, printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { table } from './output.ts';

/**
 * `depot-gateway applications`: staff review of insurance and pension plan applications
 * the rules sent to a person — the list (any status, awaiting signature and expired
 * included), one application with its signatories and history, and approve
 * (which issues at once) or reject with a reason. Through the running gateway's staff
 * API when one answers, the decision recorded under the staff user signed in as;
 * otherwise in-process, recorded under `cli:<account>`. A decision on an application
 * not under review (decided already, or no such id) exits 1 with RESOURCE_NOT_FOUND.
 */
export function registerApplicationsCommand(program: Command): void {
  const globals = () => program.opts<GlobalOptions>();
  const applications = program.command('applications').description('applications made through the REST API: list, show, and approve or reject those under review');
  applications
    .command('list', { isDefault: true })
    .description('applications, oldest first')
    .addOption(new Option('--status <status>').choices(APPLICATION_STATUSES))
    .addOption(new Option('--kind <kind>', 'an individual insurance or an employer\'s pension plan').choices(APPLICATION_KINDS))
    .option('--limit <n>', `at most this many, 1–1000 (default ${DEFAULT_LIMIT}; a note on stderr says when more may match)`)
    .option('--json', 'JSON lines instead of a table')
    .action((options: ListOptions) => runApplicationsList(globals(), options));
  applications
    .command('show')
    .argument('<id>')
    .option('--json', 'the application as JSON')
    .description('one application with what was applied for, who signs it and its status history')
    .action((id: string, options: { json?: boolean }) => runApplicationShow(globals(), id, options));
  for (const [decision, description] of [['approve', 'approve an application under review: it is issued at once'], ['reject', 'reject an application under review']] as const) {
    applications
      .command(decision)
      .argument('<id>')
      .requiredOption('--reason <text>', 'why, kept in the status history')
      .option('--json', 'the outcome as JSON')
      .description(description)
      .action((id: string, options: { reason: string; json?: boolean }) => runApplicationDecision(globals(), id, decision, options));
  }
}

interface ListOptions {
  status?: ApplicationStatus;
  kind?: ApplicationSummary['kind'];
  limit?: string;
  json?: boolean;
}

const DEFAULT_LIMIT = 100;

async function runApplicationsList(options: GlobalOptions, list: ListOptions): Promise<void> {
  const limit = readApplicationLimit(list.limit ?? String(DEFAULT_LIMIT));
  const filter: ApplicationFilter = { status: list.status, kind: list.kind };
  const query = new URLSearchParams({ ...(list.status ? { status: list.status } : {}), ...(list.kind ? { kind: list.kind } : {}), limit: String(limit) });
  const rows = await throughGatewayOrStore(
    options,
    (gateway) => listApplications(gateway.deps.db, filter, limit),
    (client) => client.request<ApplicationSummary[]>(`/api/applications?${query}`),
  );
  if (list.limit === undefined && rows.length === DEFAULT_LIMIT) {
    process.stderr.write(`depot-gateway: the oldest ${DEFAULT_LIMIT} applications; there may be more (--limit N to see more)\n`);
  }
  if (list.json) {
    for (const row of rows) printJson(row);
    return;
  }
  const cells = rows.map((a) => [a.applicationId, a.kind, a.status, a.submittedAt, a.firmOrganisationNumber, a.advisorCode, a.customerId, a.productId, issuedAs(a)]);
  process.stdout.write(table([['ID', 'KIND', 'STATUS', 'SUBMITTED', 'FIRM', 'ADVISOR', 'CUSTOMER', 'PRODUCT', 'ISSUED AS'], ...cells]));
}

async function runApplicationShow(options: GlobalOptions, id: string, show: { json?: boolean }): Promise<void> {
  const application = await throughGatewayOrStore(
    options,
    async (gateway) => {
      const found = await findApplication(gateway.deps.db, id);
      if (!found) throw new GatewayError('RESOURCE_NOT_FOUND', `No application ${id}.`);
      return found;
    },
    (client) => client.request<ApplicationRecord>(`/api/applications/${encodeURIComponent(id)}`),
  );
  process.stdout.write(show.json ? `${JSON.stringify(application)}\n` : formatApplication(application));
}

async function runApplicationDecision(options: GlobalOptions, id: string, decision: ReviewDecision, decide: { reason: string; json?: boolean }): Promise<void> {
  const reason = decide.reason.trim();
  if (reason === '') throw new GatewayError('REQUEST_INVALID', '--reason must say why.');
  const outcome = await throughGatewayOrStore(
    options,
    async (gateway, by) => {
      const now = gateway.deps.clock();
      const status = await decideApplication(gateway.deps.db, id, decision, by, reason, now, stockholmDate(now));
      if (!status) throw new GatewayError('RESOURCE_NOT_FOUND', notUnderReview(id));
      return { applicationId: id, status };
    },
    (client) => postJson<{ applicationId: string; status: ApplicationStatus }>(client, `/api/applications/${encodeURIComponent(id)}/${decision}`, { reason }),
  );
  process.stdout.write(decide.json ? `${JSON.stringify(outcome)}\n` : `${outcome.applicationId}  ${outcome.status}\n`);
}

function issuedAs(application: ApplicationSummary): string {
  return application.insuranceId ?? application.agreementId ?? '-';
}

/** One application for a person: what it is, where it stands, and each status it passed with who and why. */
function formatApplication(application: ApplicationRecord): string {
  const a = application;
  const lines = [
    `${a.applicationId}  ${a.kind} ${a.productId} (${a.productName})`,
    `status ${a.status}${a.insuranceId || a.agreementId ? `, issued as ${issuedAs(a)}` : ''}`,
    `customer ${a.customerId}, firm ${a.firmOrganisationNumber}, advisor ${a.advisorCode}, submitted ${a.submittedAt}`,
  ];
  if (a.signing) {
    const company = a.signing.companySignaturesRequired === null ? '' : `, ${a.signing.companySignaturesRequired} of the company signatories`;
    lines.push('', `signatories (sign case ${a.signing.signCaseId}, to be signed by ${a.signing.signBy}${company}):`,
      indent(table([['ROLE', 'PERSONNUMMER', 'SIGNED'], ...a.signing.signatories.map((s) => [s.role, s.personalNumber, s.signedAt ?? 'not yet'])])));
  }
  if (a.kind === 'plan' && a.insurances.length > 0) {
    lines.push('', 'insurances:', indent(table([['EMPLOYEE', 'INSURANCE'], ...a.insurances.map((i) => [i.personalIdentityNumber, i.insuranceId])])));
  }
  const history = a.history.map((h) => [h.at, h.status, h.by, h.reason ?? '']);
  lines.push('', 'history:', indent(table([['AT', 'STATUS', 'BY', 'REASON'], ...history])));
  return `${lines.join('\n')}\n`;
}

function indent(text: string): string {
  return text.trimEnd().split('\n').map((line) => `  ${line}`).join('\n');
}
