import type { ErrorCode } from '../core/error-codes.ts';
import type { Sql } from '../ledger/database.ts';
import type { XmlElement } from './xml-element.ts';

/**
 * What the pipeline needs to know about one document type. Everything about a type —
 * schema, fixtures, typed document, rules, handler — lives under its own name; the
 * catalogue (catalogue.ts) registers it with one line.
 */
export type MessageFamily = 'plan-administration' | 'custodian-reporting';

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

/** A handler's result: per-item outcomes, or document errors that rejected everything. */
export interface ApplyOutcome {
  readonly items: readonly ItemOutcome[];
  readonly errors: readonly DocumentErrorOutcome[];
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
}
