import type { ErrorCode } from '../core/error-codes.ts';
import type { Sql } from '../ledger/database.ts';
import type { BatchValidator } from './schema-validator.ts';
import type { XmlElement } from './xml-element.ts';

/**
 * What the pipeline needs to know about one document type. Everything about a type —
 * schema, fixtures, typed document, rules, handler — lives under its own name; the
 * catalogue (catalogue.ts) registers it with one line.
 */
export type MessageFamily = 'plan-administration' | 'custodian-reporting' | 'insurer-transfer' | 'advisor-reporting';

export interface ItemOutcome {
  readonly itemId: string;
  readonly status: 'Accepted' | 'Rejected';
  /** An identifier the gateway created for an accepted item (a new insurance or invoice number). */
  readonly reference?: string;
  readonly code?: ErrorCode;
  readonly text?: string;
}

export interface DocumentErrorOutcome {
  readonly code: ErrorCode;
  readonly text: string;
  readonly line?: number;
  readonly element?: string;
}

/** An account of a streamed report that was not loaded. */
export interface RejectedAccount {
  readonly accountNumber: string;
  readonly code: ErrorCode;
  readonly text: string;
  readonly line?: number;
}

/** What a streamed report came to: counts and the rejected accounts (no per-item list: reports are large). */
export interface ReportSummary {
  readonly accountsReceived: number;
  readonly accountsAccepted: number;
  readonly recordsLoaded: number;
  readonly rejected: readonly RejectedAccount[];
}

/** A handler's result: per-item outcomes, or document errors that rejected everything. */
export interface ApplyOutcome {
  readonly items: readonly ItemOutcome[];
  readonly errors: readonly DocumentErrorOutcome[];
  /** Set by streamed reports instead of items: the response lists the summary and rejected accounts. */
  readonly report?: ReportSummary;
}

/** The stored bytes of a document, readable as a stream from the start (a report of any size). */
export interface DocumentSource {
  readonly sizeBytes: number;
  readonly receivedAt: Date;
  open(): AsyncIterable<Uint8Array>;
}

/** How far a long apply has come, for the job and the console. */
export interface ApplyProgress {
  readonly bytesRead: number;
  readonly bytesTotal: number;
  readonly records: number;
}

export interface SenderInfo {
  readonly counterpartyId: string;
  readonly organisationNumber: string;
}

export interface ApplyContext {
  /** The open transaction that also stores the response and the message's new status. */
  readonly tx: Sql;
  readonly messageId: string;
  readonly sender: SenderInfo;
  /** Today's date in Europe/Stockholm, YYYY-MM-DD. */
  readonly today: string;
  readonly rules: { readonly maxBackdateDays: number };
  /** The insurer's own organisation number: what a document addressed to the insurer names (a TransferLeaflet's ReceivingInsurer). */
  readonly insurerOrganisationNumber: string;
  /** The document's stored bytes: what a streamed report reads its records from. */
  openDocument(): Promise<DocumentSource>;
  /** Validates record batches of a streamed report (on a thread of its own in the gateway). */
  readonly reportValidator: BatchValidator;
  readonly maxXmlDepth: number;
  /** Reports progress of a long apply (throttled by the caller of the handler). */
  progress(progress: ApplyProgress): void;
}

export interface MessageType<Doc = unknown> {
  /** Root element of the request, e.g. ChangeFee. */
  readonly name: string;
  /** Root element of the response, e.g. ChangeFeeResponse. */
  readonly responseName: string;
  readonly family: MessageFamily;
  /** Reads the typed document from a schema-valid tree. The result is stored as JSON. */
  read(root: XmlElement): Doc;
  /** The sender's own id of the document, echoed in the response. */
  senderMessageId(doc: Doc): string | undefined;
  /** Documents with the same key are applied in arrival order (e.g. agreement:AGR-1001). */
  orderingKey(doc: Doc): string;
  /** Applies the document to the ledger inside the caller's transaction. */
  apply(context: ApplyContext, doc: Doc): Promise<ApplyOutcome>;
  /**
   * True when the handler may run at the same time as other documents' handlers in one
   * transaction: it only runs statements on `context.tx` and reads and writes only rows
   * of its ordering key (its agreement). Apply then runs one document of each key at a
   * time, side by side, and their coalesced statements become one (ledger/coalesce.ts).
   */
  readonly concurrentApply?: boolean;
  /**
   * Set for a streamed report (Holdings, Transactions): validation reads only the
   * preamble — what comes before the first record — and `read` gets a root holding just
   * that; the schema is checked record batch by record batch when `apply` streams the
   * document (context.openDocument). Such a document may exceed limits.maxDocumentBytes
   * up to limits.maxReportBytes; it is then kept in the document store, not in the
   * database.
   */
  readonly streamed?: { readonly recordName: string };
}
