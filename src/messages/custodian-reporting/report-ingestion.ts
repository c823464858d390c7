import type { ErrorCode } from '../../core/error-codes.ts';
import type { Sql } from '../../ledger/database.ts';
import { recordReportArrival } from '../../ledger/custody/report-deadlines.repository.ts';
import type { ApplyContext, ApplyOutcome, DocumentErrorOutcome, MessageType, RejectedAccount } from '../message-type.ts';
import type { BatchVerdict } from '../schema-validator.ts';
import { ReportRejected, splitReport, type ReportPreamble, type ReportRecord } from './report-splitter.ts';
import { RecordReader } from './record-reader.ts';
import { optionalTextOf } from '../xml-element.ts';
import { custodianOrderingKey, readCustodianReport, type CustodianReport } from './custodian-report.ts';
import { advanceCustodianSwitches } from '../../ledger/custody/custodian-switch-progress.ts';

/**
 * Streams a custodian report into the ledger inside the apply transaction:
 *
 *   file ─► splitter (one account at a time) ─► batches of ~1,000 records
 *        ─► libxml2 schema validation of the batch (its own thread) ─► per-account checks
 *        ─► COPY rows of accepted accounts ─► the kind's set-based apply
 *
 * Batches are validated on the validation thread (messages/validation-thread.ts) a few
 * ahead of the one being copied, and the COPY runs while the file is still being read:
 * the gateway's thread splits the file and writes rows, libxml2 validates, and
 * PostgreSQL loads, side by side; memory holds a few batches. A bad account is
 * rejected alone, with the lines of its errors; a document that cannot be read on
 * (mal-formed XML, a bad header, another custodian's report) is rejected whole and
 * nothing of it stays: the load runs under a savepoint that is rolled back.
 */
export interface AccountRows {
  /** COPY text (tab-separated lines) of the account's records. */
  readonly rows: string;
  readonly count: number;
}

/** The report being loaded: its preamble and the gateway's id of the message. */
export interface ReportLoad {
  readonly report: CustodianReport;
  readonly messageId: string;
}

export interface AcceptedAccount<Facts> {
  readonly accountNumber: string;
  readonly facts: Facts;
}

/** What a kind of report (Holdings, Transactions) adds to the common streaming. */
export interface ReportKind<Facts> {
  readonly name: 'Holdings' | 'Transactions';
  /** Runs before the COPY (e.g. creates a staging table). */
  prepare(tx: Sql): Promise<void>;
  /** `COPY … FROM STDIN` statement the accepted accounts' rows go to. */
  readonly copyStatement: string;
  /** Checks one schema-valid account beyond its schema and gives its rows, or why it is rejected. */
  readAccount(record: ReportRecord, reader: RecordReader, load: ReportLoad): { rejection: { code: ErrorCode; text: string } } | { rows: AccountRows; facts: Facts };
  /** The set-based apply after the COPY; gives how many records it loaded. */
  finish(tx: Sql, load: ReportLoad, accounts: readonly AcceptedAccount<Facts>[], copied: number): Promise<number>;
}

/** Text per libxml2 validation call (about 1,000 positions): about five times cheaper than one call per record. */
const BATCH_CHARACTERS = 128 * 1024;
/** Batches validated ahead of the one being copied, so the reading and the validating thread both keep busy (3: 10.8–11.2 s for a million positions; 6: 8.8–9.1 s; 12: no better). */
const BATCHES_IN_FLIGHT = 6;
const RECORD_NAME = 'Account';
/** Schema errors quoted per rejected account. */
const ERRORS_PER_ACCOUNT = 5;

/** The message type of a streamed report kind: its preamble read at validation, its accounts streamed at apply. */
export function streamedReportType<Facts>(kind: ReportKind<Facts>): MessageType<CustodianReport> {
  return {
    name: kind.name,
    responseName: `${kind.name}Response`,
    family: 'custodian-reporting',
    streamed: { recordName: RECORD_NAME },
    read: readCustodianReport,
    senderMessageId: (report) => report.messageId,
    orderingKey: custodianOrderingKey,
    apply: (context, report) => ingestReport(context, kind, report),
  };
}

export async function ingestReport<Facts>(context: ApplyContext, kind: ReportKind<Facts>, report: CustodianReport): Promise<ApplyOutcome> {
  // An empty number is a header the schema refuses: the preamble's validation says so, with its line.
  if (report.custodianOrganisationNumber && report.custodianOrganisationNumber !== context.sender.organisationNumber) {
    return rejectedWhole([{
      code: 'CUSTODIAN_MISMATCH',
      text: `The report is for custodian ${report.custodianOrganisationNumber || '(none)'}, but ${context.sender.counterpartyId} (${context.sender.organisationNumber}) sent it.`,
      element: 'CustodianOrganisationNumber',
    }]);
  }
  const source = await context.openDocument();
  const known = await custodianAccounts(context.tx, context.sender.counterpartyId);
  const load = new Load<Facts>(context, kind, report, known);
  await context.tx.query('SAVEPOINT report_load');
  try {
    await kind.prepare(context.tx);
    const copied = await context.tx.copyFrom(kind.copyStatement, load.rows(countingBytes(source.open(), load), source.sizeBytes));
    if (load.documentErrors.length > 0) throw new ReportRejected({ ok: false, code: 'SCHEMA_VIOLATION', text: 'preamble' });
    const loaded = await kind.finish(context.tx, { report, messageId: context.messageId }, load.accepted, copied);
    await context.tx.query('RELEASE SAVEPOINT report_load');
    if (load.accepted.length > 0) {
      await recordReportArrival(context.tx, {
        custodianId: context.sender.counterpartyId, kind: kind.name, asOfDate: report.asOfDate, receivedAt: source.receivedAt, messageId: context.messageId,
      });
      // A custodian switch moves on with the reports of its two custodians (custodian-switch-progress.ts).
      await advanceCustodianSwitches(context.tx, load.accepted.map((account) => account.accountNumber), {
        messageId: context.messageId, custodianId: context.sender.counterpartyId, at: source.receivedAt,
      });
    }
    return {
      items: [],
      errors: load.accepted.length === 0 && load.received === 0 ? [{ code: 'SCHEMA_VIOLATION', text: `The report has no <Account>.` }] : [],
      report: { accountsReceived: load.received, accountsAccepted: load.accepted.length, recordsLoaded: loaded, rejected: load.rejected },
    };
  } catch (error) {
    await context.tx.query('ROLLBACK TO SAVEPOINT report_load');
    if (load.documentErrors.length > 0) return rejectedWhole(load.documentErrors);
    if (error instanceof ReportRejected) {
      const { code, text, line } = error.rejection;
      return rejectedWhole([{ code, text, ...(line ? { line } : {}) }]);
    }
    throw error;
  }
}

function rejectedWhole(errors: DocumentErrorOutcome[]): ApplyOutcome {
  return { items: [], errors };
}

/** One report's load: walks the accounts, validates them in batches, and yields the COPY text of the accepted ones. */
class Load<Facts> {
  readonly accepted: AcceptedAccount<Facts>[] = [];
  readonly rejected: RejectedAccount[] = [];
  readonly documentErrors: DocumentErrorOutcome[] = [];
  received = 0;
  bytesRead = 0;
  /** Reads the records with the namespaces of the root's start tag; made when the preamble arrives. */
  #reader: RecordReader | undefined;
  records = 0;
  readonly #seen = new Set<string>();

  constructor(
    private readonly context: ApplyContext,
    private readonly kind: ReportKind<Facts>,
    private readonly report: CustodianReport,
    private readonly known: ReadonlySet<string>,
  ) {}

  async *rows(bytes: AsyncIterable<Uint8Array>, bytesTotal: number): AsyncGenerator<string> {
    const validator = this.context.reportValidator;
    let preamble: ReportPreamble | undefined;
    let batch: ReportRecord[] = [];
    let characters = 0;
    // Batches being validated (on the validation thread) while the file is read on:
    // decided and copied in their order, at most BATCHES_IN_FLIGHT held at once.
    const inFlight: { records: ReportRecord[]; verdict: Promise<BatchVerdict> }[] = [];
    const decideOldest = async () => {
      const oldest = inFlight.shift();
      if (!oldest) return '';
      const text = this.#decide(oldest.records, await oldest.verdict);
      this.context.progress({ bytesRead: this.bytesRead, bytesTotal, records: this.records });
      return text;
    };
    const send = (head: ReportPreamble, records: ReportRecord[]) => {
      const verdict = validator.validate(this.kind.name, head, records, RECORD_NAME);
      verdict.catch(() => undefined); // awaited in decideOldest; a failure then fails the load
      inFlight.push({ records, verdict });
    };
    for await (const chunk of splitReport(bytes, { recordName: RECORD_NAME, maxDepth: this.context.maxXmlDepth })) {
      if (chunk.kind === 'preamble') {
        preamble = chunk.preamble;
        this.#reader = RecordReader.forRoot(preamble.rootStartTag, preamble.rootQName);
        const verdict = await validator.validate(this.kind.name, preamble, [], RECORD_NAME);
        if (verdict.preambleErrors.length > 0) {
          this.documentErrors.push(...verdict.preambleErrors.map((e) => ({ code: 'SCHEMA_VIOLATION' as const, ...e })));
          return;
        }
        continue;
      }
      batch.push(chunk.record);
      characters += chunk.record.text.length;
      // The splitter hands over the preamble before any record.
      if (characters < BATCH_CHARACTERS || !preamble) continue;
      send(preamble, batch);
      batch = [];
      characters = 0;
      if (inFlight.length < BATCHES_IN_FLIGHT) continue;
      const text = await decideOldest();
      if (text) yield text;
    }
    if (preamble && batch.length > 0) send(preamble, batch);
    while (inFlight.length > 0) {
      const text = await decideOldest();
      if (text) yield text;
    }
  }

  /** Decides each account of a validated batch; gives the COPY text of the accepted ones. */
  #decide(batch: readonly ReportRecord[], verdict: BatchVerdict): string {
    const out: string[] = [];
    const reader = this.#reader;
    if (!reader) throw new Error('Records were decided before the preamble arrived.');
    batch.forEach((record, index) => {
      this.received += 1;
      const errors = verdict.recordErrors.get(index);
      const accountNumber = accountNumberOf(record, reader, errors !== undefined) || '(no AccountNumber)';
      const reject = (code: ErrorCode, text: string): void => void this.rejected.push({ accountNumber, code, text, line: record.line });
      if (errors) {
        const quoted = errors.slice(0, ERRORS_PER_ACCOUNT).map((e) => (e.line ? `line ${e.line}: ${e.text}` : e.text));
        const more = errors.length > ERRORS_PER_ACCOUNT ? ` (and ${errors.length - ERRORS_PER_ACCOUNT} more)` : '';
        return reject('ACCOUNT_SCHEMA_VIOLATION', `${quoted.join('; ')}${more}`);
      }
      if (this.#seen.has(accountNumber)) return reject('ACCOUNT_REPORTED_TWICE', `Account ${accountNumber} appears earlier in the report; this occurrence was not loaded.`);
      this.#seen.add(accountNumber);
      if (!this.known.has(accountNumber)) return reject('CUSTODY_ACCOUNT_UNKNOWN', `Account ${accountNumber} is not a custody account the insurer holds with you.`);
      const result = this.kind.readAccount(record, reader, { report: this.report, messageId: this.context.messageId });
      if ('rejection' in result) return reject(result.rejection.code, result.rejection.text);
      this.accepted.push({ accountNumber, facts: result.facts });
      this.records += result.rows.count;
      out.push(result.rows.rows);
      return undefined;
    });
    return out.join('');
  }
}

/** The record's AccountNumber; of a record already rejected, what can be read of it. */
function accountNumberOf(record: ReportRecord, reader: RecordReader, rejected: boolean): string | undefined {
  if (reader.plain(record.text)) return reader.plainValue(record.text, 'AccountNumber');
  const tree = reader.tree(record.text, record.line, { lenient: rejected });
  return tree && optionalTextOf(tree, 'AccountNumber');
}

async function* countingBytes(source: AsyncIterable<Uint8Array>, load: { bytesRead: number }): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    load.bytesRead += chunk.byteLength;
    yield chunk;
  }
}

async function custodianAccounts(tx: Sql, custodianId: string): Promise<Set<string>> {
  const { rows } = await tx.query<{ account_number: string }>('SELECT account_number FROM custody_accounts WHERE custodian_id = $1', [custodianId]);
  return new Set(rows.map((row) => row.account_number));
}
