import type { Command } from 'commander';
import { exportPersonData, type PersonDataExport } from '../http/staff/person-data.routes.ts';
import { printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { table } from './output.ts';

/**
 * `depot-gateway person-data <pin>`: what the gateway holds on a person, for a
 * subject-access request — how many rows of which kind and the documents that named
 * them; with `--export`, all of it as one JSON document on stdout (redirect it to a
 * file). Through the running gateway's staff API (GET /api/persons/{pin}/data) when one
 * answers, otherwise in-process. Every export is recorded in the staff audit log.
 */
export function registerPersonDataCommand(program: Command): void {
  program
    .command('person-data')
    .description('what the gateway holds on a person (subject-access request): rows per kind and the documents that named them; --export prints all of it as JSON')
    .argument('<pin>', 'personal identity number, 12 digits')
    .option('--export', 'everything, as one JSON document on stdout')
    .action((pin: string, options: { export?: boolean }) => runPersonData(program.opts(), pin, options));
}

async function runPersonData(options: GlobalOptions, pin: string, listing: { export?: boolean }): Promise<void> {
  const data = await throughGatewayOrStore<PersonDataExport>(
    options,
    (gateway, by) => exportPersonData(gateway.deps.db, pin, { username: by, now: gateway.deps.clock(), parties: gateway.config }),
    (client) => client.request<PersonDataExport>(`/api/persons/${encodeURIComponent(pin)}/data`),
  );
  if (listing.export) {
    printJson(data);
    return;
  }
  const kinds = Object.entries(data.records).map(([kind, rows]) => [kind, String(rows.length)]);
  process.stdout.write(table([['KIND', 'ROWS'], ...kinds, ['insurances in the engagement', String(data.engagement.insurances.length)], ['documents naming the person', String(data.documents.length)]]));
  if (data.documents.length > 0) {
    process.stdout.write('\n');
    process.stdout.write(table([['MESSAGE', 'RECEIVED', 'FROM', 'TYPE', 'STATUS'], ...data.documents.map((d) => [d.messageId, d.receivedAt, d.counterpartyId, d.messageType ?? '', d.status])]));
  }
}
