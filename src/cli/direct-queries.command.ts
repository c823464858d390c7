import type { Command } from 'commander';
import { readDirectQueryFilter } from '../http/staff/direct-queries.routes.ts';
import { listDirectQueries, type DirectQueryRow } from '../ledger/advice/direct-queries.repository.ts';
import { printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { table } from './output.ts';

/**
 * `depot-gateway powers-of-attorney queries`: the record of direct queries — which advisor
 * firm read which customer's engagement under which of its powers, when, as JSON or XML
 * and how many insurances the answer listed, newest first (docs/direct-query.md). Through
 * the running gateway's staff API (GET /api/direct-queries) when one answers, otherwise
 * in-process. A subcommand of powers-of-attorney: it is what the powers were used for.
 */
export function registerDirectQueriesSubcommand(powers: Command, globals: () => GlobalOptions): void {
  powers
    .command('queries')
    .description('the direct queries answered under the powers: which firm read which customer\'s engagement, when, under which power; newest first')
    .option('--customer <id>', 'only this customer (personnummer or organisation number)')
    .option('--firm <orgnr>', 'only queries by this advisor firm')
    .option('--limit <n>', 'at most this many, 1 to 1000', '200')
    .option('--json', 'JSON lines instead of a table')
    .action((options: QueriesOptions) => runDirectQueriesList(globals(), options));
}

interface QueriesOptions {
  customer?: string;
  firm?: string;
  limit: string;
  json?: boolean;
}

async function runDirectQueriesList(options: GlobalOptions, listing: QueriesOptions): Promise<void> {
  const filter = readDirectQueryFilter(listing);
  const params = new URLSearchParams({ ...(listing.customer ? { customer: listing.customer } : {}), ...(listing.firm ? { firm: listing.firm } : {}), limit: listing.limit });
  const rows = await throughGatewayOrStore(
    options,
    (gateway) => listDirectQueries(gateway.deps.db, filter),
    async (client) => (await client.request<{ queries: DirectQueryRow[] }>(`/api/direct-queries?${params}`)).queries,
  );
  if (listing.json) {
    for (const row of rows) printJson(row);
    return;
  }
  const cells = rows.map((q) => [q.id, q.queriedAt, q.firmOrganisationNumber, q.clientId, q.customerId, `${q.powerKind} #${q.powerOfAttorneyId}`, q.answeredAs, String(q.insuranceCount)]);
  process.stdout.write(table([['ID', 'AT', 'FIRM', 'CLIENT', 'CUSTOMER', 'POWER', 'AS', 'INSURANCES'], ...cells]));
}
