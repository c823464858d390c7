import { mkdirSync } from 'node:fs';
import { copyFile, readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Gateway, Role } from '../app.ts';
import { compositionRoot, postJson, throughGatewayOrStore } from './gateway-or-store.ts';
import { loadConfig } from '../config/load-config.ts';
import type { GatewayConfig } from '../config/config.schema.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { getMessage, listEvents, listMessages, type MessageFilter, type MessageStatus, type StoredMessage } from '../ledger/messages/messages.repository.ts';
import { getResponse, listDeliveries } from '../ledger/messages/responses.repository.ts';
import { migrate } from '../ledger/migrate.ts';
import { seedDemoData } from '../demo/demo-data.ts';
import { replayMessage } from '../pipeline/replay.ts';
import { newSubmissionKey } from '../pipeline/message-id.ts';
import { dropDemoSample } from './demo-sample.ts';
import { formatPerson, type PersonView } from './person-view.ts';
import { personStateAsOf } from '../core/person-history.ts';
import { stockholmDate } from '../core/calendar-date.ts';
import { readPersonHistory } from '../ledger/plan/person-history.repository.ts';
import { GatewayClient } from './gateway-client.ts';
import { chooseLogFormat, createCommandLogger, createGatewayLogger } from '../observability/gateway-logger.ts';
import { buildStartSummary, formatStartSummary } from './start-summary.ts';
import type { IntakeReceipt } from '../channels/envelope.ts';
import { newSubmissionWorkFile, settleSubmissionWorkFile } from '../channels/submission-work-file.ts';
import { expectedCustodians, listAnnualCustodianReports, listCustodianReports, type AnnualCustodianReportView } from '../calendar/report-deadlines.job.ts';
import { EXIT, table } from './output.ts';
import { stopOnSignals } from './stop-on-signal.ts';
import { runDepsFrom, type RunOutcome } from '../calendar/debit-run.ts';
import { makeRequestedRun, readDebitRunRequest, readPayoutRunRequest, type RunRequest } from '../calendar/requested-run.ts';
import { listSetAsideMail, setAsideLimit } from '../ledger/messages/mail-set-aside.repository.ts';
import { hashSecret } from '../config/secret-hash.ts';
import { readSecret } from './read-secret.ts';
import type { AddressInfo } from 'node:net';

/**
 * What each command does. Commands that read or change the store work in-process on
 * the configured database; `submit` hands the document to a running gateway over its
 * staff API when one answers, and otherwise runs the pipeline in-process.
 */
interface GlobalOptions {
  config?: string;
  demo?: boolean;
}

function config(options: GlobalOptions): Readonly<GatewayConfig> {
  return loadConfig({ ...(options.config ? { file: options.config } : {}), demo: options.demo === true });
}

export async function runStart(options: GlobalOptions, roles: readonly Role[]): Promise<void> {
  const settings = config(options);
  const format = chooseLogFormat(settings.logFormat, process.stdout.isTTY === true);
  const log = await createGatewayLogger(settings, format);
  const opening = (await compositionRoot()).openGateway(settings, { roles, log });
  stopOnSignals(opening, log);
  const gateway = await opening;
  log.info(
    {
      roles, port: roles.includes('api') ? settings.port : undefined, database: gateway.deps.db.kind, counterparties: [...gateway.folders.keys()],
      // Set by bin/depot-gateway.js: the compiled build in dist/, or the sources through tsx.
      code: process.env.DEPOT_GATEWAY_CODE ?? 'sources',
    },
    'depot-gateway is running',
  );
  if (settings.demo && roles.includes('watch')) await dropDemoSample(gateway);
  // Last, so that a newcomer finds it at the bottom of the screen.
  const address = gateway.http?.server.address();
  const folders = roles.includes('watch') ? gateway.folders : new Map<string, string>();
  const portOf = (listening: string | AddressInfo | null | undefined) => (listening && typeof listening === 'object' ? listening.port : undefined);
  const summary = buildStartSummary(settings, folders, portOf(address), process.pid, portOf(gateway.metricsHttp?.server.address()), gateway.bankIdTestServer?.pageUrl);
  if (format === 'pretty') process.stdout.write(formatStartSummary(summary));
  else log.info(summary, 'where to look');
}

export async function runMigrate(options: GlobalOptions): Promise<void> {
  // The database alone: opening a gateway would migrate first and leave nothing to report.
  const settings = config(options);
  const dataDir = resolve(settings.dataDir);
  // As a gateway does before opening it: the embedded database's lock file is kept beside its folder, in the data folder.
  mkdirSync(dataDir, { recursive: true });
  const db = await (await compositionRoot()).openDatabase(settings, dataDir);
  try {
    const applied = await migrate(db);
    if (settings.demo) await seedDemoData(db);
    process.stdout.write(applied.length ? `applied migrations ${applied.join(', ')}\n` : 'database is up to date\n');
  } finally {
    await db.close();
  }
}

interface SubmitOptions {
  from: string;
  wait: boolean;
  timeout: string;
  json?: boolean;
}

export async function runSubmit(options: GlobalOptions, file: string, submit: SubmitOptions): Promise<void> {
  const settings = config(options);
  // The size first: a document over the limit is never read into memory, here or by the gateway.
  const size = await stat(file).then((stats) => stats.size, (error: Error) => {
    throw new GatewayError('REQUEST_INVALID', `cannot read ${file}: ${error.message}`);
  });
  const name = basename(file);
  const client = new GatewayClient(settings);
  if (await client.isRunning()) {
    const receipt = await client.submit(submit.from, name, file);
    if (!submit.wait) return void printJson(receipt);
    const outcome = await client.waitForOutcome(receipt.messageId, Number(submit.timeout) * 1000);
    return finishSubmit(submit, receipt, outcome.message, outcome.response);
  }
  const gateway = await (await compositionRoot()).openGateway(settings, { roles: [], inline: true, log: commandLog() });
  let workFile: string | undefined;
  let receipt: IntakeReceipt | undefined;
  try {
    if (size > settings.limits.maxDocumentBytes) {
      // Kept where the gateway keeps an oversized submission (intake records that place), not at the caller's path.
      workFile = await newSubmissionWorkFile(settings.dataDir, name);
      await copyFile(file, workFile);
    }
    const content = workFile ? { path: workFile, setAsidePath: workFile } : { bytes: await readFile(file) };
    receipt = await gateway.intake.receive({
      channel: 'cli', counterpartyId: submit.from, externalId: newSubmissionKey(), receivedAt: new Date(), content, metadata: { fileName: name },
    });
    const message = await getMessage(gateway.deps.db, receipt.messageId);
    const response = await getResponse(gateway.deps.db, receipt.messageId, gateway.deps.documents);
    finishSubmit(submit, receipt, message, response?.body);
  } finally {
    if (workFile) await settleSubmissionWorkFile(workFile, receipt);
    await gateway.close();
  }
}

function finishSubmit(submit: SubmitOptions, receipt: object, message: StoredMessage | Pick<StoredMessage, 'status' | 'outcome'> | undefined, body: string | undefined): void {
  if (submit.json) printJson({ ...receipt, status: message?.status, outcome: message?.outcome });
  else if (body) process.stdout.write(body);
  if (!message || !body) throw new GatewayError('INTERNAL_ERROR', 'the document was recorded but has no outcome yet');
  process.exitCode = message.outcome === 'accepted' || message.outcome === 'partially_accepted' ? EXIT.ok : EXIT.rejected;
}

export async function runReplay(options: GlobalOptions, id: string): Promise<void> {
  const settings = config(options);
  const client = new GatewayClient(settings);
  if (await client.isRunning()) {
    printJson(await client.replay(id));
    return;
  }
  const gateway = await (await compositionRoot()).openGateway(settings, { roles: [], inline: true, log: commandLog() });
  try {
    const stage = await replayMessage(gateway.deps.db, gateway.deps.scheduler, id);
    printJson({ messageId: id, replayedFrom: stage, status: (await getMessage(gateway.deps.db, id))?.status });
  } finally {
    await gateway.close();
  }
}

interface ListOptions {
  status?: MessageStatus;
  counterparty?: string;
  type?: string;
  /** Absent: DEFAULT_LIST_LIMIT, and a note on stderr when the list is cut there. */
  limit?: number;
  json?: boolean;
}

const DEFAULT_LIST_LIMIT = 50;

export async function runMessagesList(options: GlobalOptions, list: ListOptions): Promise<void> {
  const filter: MessageFilter = {
    ...(list.status ? { status: list.status } : {}), ...(list.counterparty ? { counterpartyId: list.counterparty } : {}),
    ...(list.type ? { messageType: list.type } : {}), limit: list.limit ?? DEFAULT_LIST_LIMIT,
  };
  const messages = await readStore(options, (gateway) => listMessages(gateway.deps.db, filter), (client) => client.list(filter));
  if (list.limit === undefined && messages.length === DEFAULT_LIST_LIMIT) {
    process.stderr.write(`depot-gateway: the newest ${DEFAULT_LIST_LIMIT} messages; there may be more (--limit N to see more)\n`);
  }
  if (list.json) {
    for (const message of messages) printJson(summary(message));
    return;
  }
  const rows = messages.map((m) => [m.id, new Date(m.receivedAt).toISOString(), m.counterpartyId, m.messageType ?? '-', m.status, m.outcome ?? '-', m.errorCode ?? '']);
  process.stdout.write(table([['ID', 'RECEIVED', 'COUNTERPARTY', 'TYPE', 'STATUS', 'OUTCOME', 'CODE'], ...rows]));
}

export async function runMessagesShow(options: GlobalOptions, id: string, show: { json?: boolean }): Promise<void> {
  const detail = await readStore(
    options,
    async (gateway) => {
      const message = await getMessage(gateway.deps.db, id);
      if (!message) return undefined;
      return { message, events: await listEvents(gateway.deps.db, id), deliveries: await listDeliveries(gateway.deps.db, id) };
    },
    (client) => client.show(id),
  );
  if (!detail) throw new GatewayError('MESSAGE_NOT_FOUND', id);
  if (show.json) return void printJson(detail);
  const { message } = detail;
  process.stdout.write(
    `${message.id}  ${message.messageType ?? '(type unknown)'} from ${message.counterpartyId} by ${message.channel} (${message.externalId})\n` +
      `status ${message.status}${message.outcome ? `, ${message.outcome}` : ''}${message.errorCode ? `, ${message.errorCode}` : ''}${message.duplicateOf ? `, duplicate of ${message.duplicateOf}` : ''}\n` +
      `${message.sizeBytes} bytes, sha256 ${message.sha256}\n\nhistory:\n` +
      detail.events.map((e) => `  ${new Date(e.at).toISOString()}  ${e.status.padEnd(10)} ${e.reason ?? ''}\n`).join('') +
      `deliveries:\n` +
      (detail.deliveries.map((d) => `  ${new Date(d.at).toISOString()}  ${d.outcome.padEnd(10)} ${d.channel} ${d.target ?? d.error ?? ''}\n`).join('') || '  (none)\n'),
  );
}

export async function runMessagesResponse(options: GlobalOptions, id: string): Promise<void> {
  const body = await readStore(options, async (gateway) => (await getResponse(gateway.deps.db, id, gateway.deps.documents))?.body, (client) => client.response(id));
  if (!body) throw new GatewayError('MESSAGE_NOT_FOUND', `${id} has no response`);
  process.stdout.write(body);
}

export async function runPerson(options: GlobalOptions, pin: string, person: { agreement: string; asOf?: string; json?: boolean }): Promise<void> {
  const asOf = person.asOf ?? stockholmDate(new Date());
  if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf)) throw new GatewayError('REQUEST_INVALID', `--as-of must be a date YYYY-MM-DD, not "${asOf}".`);
  const view = await readStore<PersonView | undefined>(
    options,
    async (gateway) => {
      const history = await readPersonHistory(gateway.deps.db, person.agreement, pin);
      return history ? { state: personStateAsOf(history, asOf), history } : undefined;
    },
    (client) => client.person(person.agreement, pin, asOf),
  );
  if (!view) throw new GatewayError('PERSON_NOT_FOUND', `${pin} under agreement ${person.agreement}`);
  process.stdout.write(person.json ? `${JSON.stringify(view)}\n` : formatPerson(view));
}

export async function runReports(options: GlobalOptions, reports: { from?: string; to?: string; late?: boolean; json?: boolean; annual?: boolean; year?: string }): Promise<void> {
  if (reports.annual) return runAnnualReports(options, reports);
  const query = { from: reports.from, to: reports.to, statuses: reports.late ? ['late', 'missing'] : undefined };
  const rows = await readStore(
    options,
    (gateway) => listCustodianReports(gateway.deps.db, expectedCustodians(gateway.config.counterparties), query, gateway.deps.clock()),
    (client) => client.reports(query),
  );
  if (reports.json) {
    for (const row of rows) printJson(row);
    return;
  }
  const cells = rows.map((r) => [r.dueDay, r.custodianId, r.kind, r.status, r.deadline, r.arrivedAt ?? '-', r.messageId ?? '-', r.notifiedAt ?? '-']);
  process.stdout.write(table([['DUE DAY', 'CUSTODIAN', 'KIND', 'STATUS', 'DEADLINE', 'ARRIVED', 'MESSAGE', 'NOTIFIED'], ...cells]));
}

/** `reports --annual`: the yearly CostAndCharges of one account year, through the staff API when a gateway answers. */
async function runAnnualReports(options: GlobalOptions, reports: { year?: string; late?: boolean; json?: boolean }): Promise<void> {
  const query = { year: reports.year, statuses: reports.late ? ['late', 'missing'] : undefined };
  const params = new URLSearchParams();
  if (query.year) params.set('year', query.year);
  if (query.statuses) params.set('status', query.statuses.join(','));
  const rows = await readStore(
    options,
    (gateway) => listAnnualCustodianReports(gateway.deps.db, query, gateway.deps.clock()),
    async (client) => (await client.request<{ reports: AnnualCustodianReportView[] }>(`/api/custodian-reports/annual?${params}`)).reports,
  );
  if (reports.json) {
    for (const row of rows) printJson(row);
    return;
  }
  const cells = rows.map((r) => [String(r.year), r.custodianId, r.kind, r.status, r.deadline, r.arrivedAt ?? '-', r.messageId ?? '-', r.notifiedAt ?? '-']);
  process.stdout.write(table([['YEAR', 'CUSTODIAN', 'KIND', 'STATUS', 'DEADLINE', 'ARRIVED', 'MESSAGE', 'NOTIFIED'], ...cells]));
}

export async function runMailSetAside(options: GlobalOptions, listing: { limit?: string; json?: boolean }): Promise<void> {
  const limit = setAsideLimit(listing.limit);
  const mails = await readStore(options, (gateway) => listSetAsideMail(gateway.deps.db, limit), (client) => client.setAsideMail(limit));
  if (listing.json) {
    for (const mail of mails) printJson(mail);
    return;
  }
  const cells = mails.map((m) => [m.receivedAt, m.sender ?? '-', m.subject, m.reason, m.folder, m.detail.length > 80 ? `${m.detail.slice(0, 79)}…` : m.detail]);
  process.stdout.write(table([['RECEIVED', 'SENDER', 'SUBJECT', 'REASON', 'FOLDER', 'DETAIL'], ...cells]));
}

export async function runDebitRunCommand(options: GlobalOptions, run: { year: string; quarter: string; dryRun?: boolean; json?: boolean }): Promise<void> {
  if (!/^\d{4}$/.test(run.year) || !/^[1-4]$/.test(run.quarter)) throw new GatewayError('REQUEST_INVALID', '--year must be a year YYYY and --quarter 1, 2, 3 or 4.');
  await makeAndPrintRun(options, readDebitRunRequest({ year: Number(run.year), quarter: Number(run.quarter), dryRun: run.dryRun === true }), '/api/debit-runs', run);
}

export async function runPayoutRunCommand(options: GlobalOptions, run: { month: string; dryRun?: boolean; json?: boolean }): Promise<void> {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(run.month)) throw new GatewayError('REQUEST_INVALID', `--month must be a month YYYY-MM, not "${run.month}".`);
  await makeAndPrintRun(options, readPayoutRunRequest({ month: run.month, dryRun: run.dryRun === true }), '/api/payout-runs', run);
}

/**
 * A run through a running gateway's staff API (POST /api/debit-runs, /api/payout-runs)
 * when one answers — it may hold the embedded database, and its worker delivers the
 * documents — otherwise in-process, delivered by this process before it exits.
 */
async function makeAndPrintRun(options: GlobalOptions, request: RunRequest, path: string, run: { dryRun?: boolean; json?: boolean }): Promise<void> {
  // The staff API's body: the request's fields; the path says its kind.
  const body = request.kind === 'debit' ? { year: request.year, quarter: request.quarter, dryRun: request.dryRun } : { month: request.month, dryRun: request.dryRun };
  const made = await throughGatewayOrStore<{ outcome: RunOutcome; through: 'process' | 'gateway' }>(
    options,
    async (gateway) => ({
      outcome: await makeRequestedRun(gateway.deps.db, runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log), request, gateway.deps.clock()),
      through: 'process' as const,
    }),
    async (client) => ({ outcome: await postJson<RunOutcome>(client, path, body), through: 'gateway' as const }),
  );
  printRun(made.outcome, run, made.through);
}

/** Prints the scrypt hash of a secret read from stdin; needs no configuration, database or Redis. */
export async function runHashSecret(): Promise<void> {
  process.stdout.write(`${await hashSecret(await readSecret())}\n`);
}

/**
 * A run's outcome: one line per custodian (JSON with --json); with --dry-run the documents
 * that would be sent. A document not delivered (its outbox not writable …) fails the
 * command after the outcome is printed: the run is stored, and its recorded file is
 * delivered by a running gateway's worker or by the command run again. Through a running
 * gateway, a document its deliver stage has not delivered within the answer's wait stays
 * with that stage, which keeps trying.
 */
function printRun(result: RunOutcome, run: { dryRun?: boolean; json?: boolean }, through: 'process' | 'gateway'): void {
  printOutcome(result, run);
  if (result.undelivered.length === 0) return;
  const stored = through === 'gateway'
    ? "not delivered yet. The run is stored and the running gateway's deliver stage keeps trying (its attempts and last error: the console's runs page)."
    : "not delivered (the reason is logged above). The run is stored: a running gateway's worker delivers the recorded file, or run the command again.";
  throw new GatewayError('DELIVERY_FAILED', `${result.undelivered.join(', ')} ${stored}`);
}

function printOutcome(result: RunOutcome, run: { dryRun?: boolean; json?: boolean }): void {
  if (run.json) {
    printJson(result);
    return;
  }
  if (result.created.length === 0) process.stdout.write(`${result.runKey}: already run for every custodian; nothing new.\n`);
  const cells = result.created.map((c) => [c.custodianId, String(c.accounts), c.total, String(c.held.length), c.fileName ?? '-', result.delivered.find((d) => d.documentId === c.documentId)?.target ?? (run.dryRun ? '(dry run)' : '-')]);
  if (cells.length > 0) process.stdout.write(table([['CUSTODIAN', 'ACCOUNTS', 'TOTAL', 'HELD', 'FILE', 'DELIVERED TO'], ...cells]));
  for (const held of result.created.flatMap((c) => c.held)) process.stdout.write(`held: ${held.accountNumber} (${held.insuranceNumber}): ${held.reason}\n`);
  for (const tax of result.created.flatMap((c) => c.heldTax ?? [])) {
    process.stdout.write(`tax held: ${tax.accountNumber} (${tax.insuranceNumber}): YieldTax/${tax.basis} ${tax.periodFrom}–${tax.periodTo} on ${tax.base}${tax.halfBase ? ' at half' : ''}: ${tax.reason}\n`);
  }
  for (const tax of result.created.flatMap((c) => c.caughtUpTax ?? [])) {
    process.stdout.write(`tax held by ${tax.heldBy} debited: ${tax.accountNumber} (${tax.insuranceNumber}): YieldTax/${tax.basis} ${tax.periodFrom}–${tax.periodTo} ${tax.amount}\n`);
  }
  // Files an earlier run of the key stored and could not deliver, delivered now.
  const earlier = result.delivered.filter((d) => !result.created.some((c) => c.documentId === d.documentId));
  for (const { documentId, target } of earlier) process.stdout.write(`delivered ${documentId}, stored by an earlier run: ${target}\n`);
  for (const document of result.documents ?? []) process.stdout.write(`\n--- ${document.custodianId}\n${document.body}`);
}

function summary(message: StoredMessage) {
  const { id, counterpartyId, channel, externalId, messageType, status, outcome, errorCode, duplicateOf, receivedAt } = message;
  return { id, counterparty: counterpartyId, channel, externalId, type: messageType, status, outcome, errorCode, duplicateOf, receivedAt };
}

/** Reads through the running gateway's API when it answers (the embedded database is then in use), else in-process. */
async function readStore<T>(options: GlobalOptions, local: (gateway: Gateway) => Promise<T>, remote: (client: GatewayClient) => Promise<T>): Promise<T> {
  const settings = config(options);
  const client = new GatewayClient(settings);
  if (await client.isRunning()) return remote(client);
  return withStore(options, local);
}

async function withStore<T>(options: GlobalOptions, work: (gateway: Gateway) => Promise<T>): Promise<T> {
  const gateway = await (await compositionRoot()).openGateway(config(options), { roles: [], inline: true, log: commandLog() });
  try {
    return await work(gateway);
  } finally {
    await gateway.close();
  }
}

/** Warnings of a one-shot command go to stderr: stdout holds only what the command answers (a table, JSON, a document). */
function commandLog(): Logger {
  return createCommandLogger();
}

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
