import type { Command } from 'commander';
import { GatewayError } from '../core/gateway-error.ts';
import { requireYearMonth } from '../core/payout-plan.ts';
import { readApplicationLimit } from '../http/staff/application-review.routes.ts';
import { findInvoiceSpecification, listInvoiceSpecifications, type InvoiceSpecificationRow } from '../ledger/plan/invoice-specifications.repository.ts';
import {
  invoiceSpecificationDepsFrom, makeInvoiceSpecifications, sendInvoiceSpecificationAgain, type InvoiceSpecificationRunSummary,
} from '../calendar/invoice-specification.job.ts';
import { postJson, printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { table } from './output.ts';

/**
 * `depot-gateway invoice-specifications`: the monthly invoice specifications of the
 * pension-plan agreements (docs/invoice-specification.md), as the staff API gives them —
 * through the running gateway when one answers, otherwise in-process:
 * - `list [--agreement AGR-1001] [--month 2026-11]`: newest month first, with totals and delivery;
 * - `show <id> [--pdf] > file`: the InvoiceSpecification document as recorded, or its PDF;
 * - `make --month 2026-11`: the month's specifications not made yet, made and delivered;
 * - `send-again <id> --reason "…"`: the recorded document delivered once more, audited.
 * An unknown id exits 1 (RESOURCE_NOT_FOUND).
 */
export function registerInvoiceSpecificationsCommand(program: Command): void {
  const globals = () => program.opts<GlobalOptions>();
  const specs = program.command('invoice-specifications').description("the monthly invoice specifications of the employers' pension-plan agreements");
  specs.command('list', { isDefault: true }).description('invoice specifications, newest month first')
    .option('--agreement <number>', "one agreement's").option('--month <YYYY-MM>', "one month's")
    .option('--limit <n>', 'at most this many, 1–1000 (default 100)').option('--json', 'JSON lines instead of a table')
    .action((options: { agreement?: string; month?: string; limit?: string; json?: boolean }) => runList(globals(), options));
  specs.command('show').argument('<id>', 'the specification id, e.g. IS-AGR-1001-2026-11')
    .option('--pdf', 'its PDF instead of the XML document').description('print the document as recorded (or its PDF)')
    .action((id: string, options: { pdf?: boolean }) => runShow(globals(), id, options.pdf === true));
  specs.command('make').requiredOption('--month <YYYY-MM>', 'the month').description("make the month's specifications not made yet, and deliver them")
    .action((options: { month: string }) => runMake(globals(), options.month));
  specs.command('send-again').argument('<id>', 'the specification id').requiredOption('--reason <text>', 'why it is sent again (audit log)')
    .description('deliver the recorded document once more to its counterparty')
    .action((id: string, options: { reason: string }) => runSendAgain(globals(), id, options.reason));
}

async function runList(options: GlobalOptions, list: { agreement?: string; month?: string; limit?: string; json?: boolean }): Promise<void> {
  const limit = readApplicationLimit(list.limit ?? '100');
  const query = new URLSearchParams({ limit: String(limit), ...(list.agreement ? { agreement: list.agreement } : {}), ...(list.month ? { month: list.month } : {}) });
  const rows = await throughGatewayOrStore(
    options,
    (gateway) => listInvoiceSpecifications(gateway.deps.db, { ...(list.agreement ? { agreementNumber: list.agreement } : {}), ...(list.month ? { month: list.month } : {}), limit }),
    async (client) => (await client.request<{ invoiceSpecifications: InvoiceSpecificationRow[] }>(`/api/invoice-specifications?${query}`)).invoiceSpecifications,
  );
  if (list.json) {
    for (const row of rows) printJson(row);
    return;
  }
  const cells = rows.map((r) => [r.documentId, r.month, r.agreementNumber, r.counterpartyId, String(r.insuredCount), r.total, r.deliveredAt ? new Date(r.deliveredAt).toISOString() : 'not yet']);
  process.stdout.write(table([['ID', 'MONTH', 'AGREEMENT', 'TO', 'INSURED', 'TOTAL (SEK)', 'DELIVERED'], ...cells]));
}

async function runShow(options: GlobalOptions, id: string, pdf: boolean): Promise<void> {
  const bytes = await throughGatewayOrStore(
    options,
    async (gateway) => {
      const spec = await findInvoiceSpecification(gateway.deps.db, id);
      if (!spec) throw new GatewayError('RESOURCE_NOT_FOUND', `No invoice specification ${id}.`);
      return pdf ? spec.pdf : Buffer.from(spec.body);
    },
    (client) => client.requestBytes(`/api/invoice-specifications/${encodeURIComponent(id)}${pdf ? '/pdf' : ''}`),
  );
  process.stdout.write(bytes);
}

async function runMake(options: GlobalOptions, month: string): Promise<void> {
  try {
    requireYearMonth(month);
  } catch {
    throw new GatewayError('REQUEST_INVALID', `Not a month YYYY-MM: ${month}.`);
  }
  const made = await throughGatewayOrStore(
    options,
    (gateway) => makeInvoiceSpecifications(gateway.deps.db, invoiceSpecificationDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log), month, gateway.deps.clock()),
    (client) => postJson<InvoiceSpecificationRunSummary>(client, '/api/invoice-specifications', { month }),
  );
  for (const created of made.created) process.stdout.write(`made ${created.documentId} for ${created.counterpartyId}: ${created.total} SEK\n`);
  for (const skipped of made.skipped) process.stdout.write(`not made for ${skipped.agreementNumber}: ${skipped.reason}\n`);
  if (made.created.length === 0 && made.skipped.length === 0) process.stdout.write(`every agreement's specification for ${month} was made already\n`);
}

async function runSendAgain(options: GlobalOptions, id: string, reason: string): Promise<void> {
  await throughGatewayOrStore(
    options,
    (gateway, by) => sendInvoiceSpecificationAgain(gateway.deps.db, invoiceSpecificationDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log), id, { username: by, reason }, gateway.deps.clock()),
    (client) => postJson(client, `/api/invoice-specifications/${encodeURIComponent(id)}/send-again`, { reason }),
  );
  process.stdout.write(`${id} handed to delivery again\n`);
}
