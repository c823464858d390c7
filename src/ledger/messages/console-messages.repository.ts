import type { DocumentKeyKind } from '../../core/document-keys.ts';
import type { IsoDate } from '../../core/calendar-date.ts';
import type { Sql } from '../database.ts';
import type { MessageOutcome, MessageStatus } from './messages.repository.ts';

/**
 * The console's queries of the message store: the browser's filtered, newest-first
 * pages (keyset on `seq`, so page 1,000 costs what page 1 does) and the overview's
 * counts. Searching by what a document is about goes through `document_keys`; raw
 * documents are never read here.
 */
export interface ConsoleMessageFilter {
  readonly counterpartyId?: string;
  readonly channel?: string;
  readonly messageType?: string;
  readonly status?: MessageStatus;
  readonly outcome?: MessageOutcome;
  readonly errorCode?: string;
  /** Received on or after this Stockholm day. */
  readonly receivedFrom?: IsoDate;
  /** Received on or before this Stockholm day. */
  readonly receivedTo?: IsoDate;
  /** The file name (the folder channel's external id, or the name given at submit). */
  readonly fileName?: string;
  /** The sender's own header MessageId. */
  readonly headerMessageId?: string;
  /** A key the document names (document_keys). */
  readonly key?: { readonly kind: DocumentKeyKind; readonly value: string };
  /** Only messages older than this sequence number (the next page). */
  readonly beforeSeq?: number;
  readonly limit: number;
}

export interface ConsoleMessage {
  readonly id: string;
  readonly seq: number;
  readonly counterpartyId: string;
  readonly channel: string;
  readonly externalId: string;
  readonly headerMessageId: string | null;
  readonly messageType: string | null;
  readonly status: MessageStatus;
  readonly outcome: MessageOutcome | null;
  readonly errorCode: string | null;
  readonly deadStage: string | null;
  readonly duplicateOf: string | null;
  readonly sizeBytes: number;
  readonly receivedAt: Date;
}

interface Row {
  id: string; seq: string | number; counterparty_id: string; channel: string; external_id: string; header_message_id: string | null;
  message_type: string | null; status: MessageStatus; outcome: MessageOutcome | null; error_code: string | null; dead_stage: string | null;
  duplicate_of: string | null; size_bytes: string | number; received_at: Date | string;
}

const COLUMNS = `m.id, m.seq, m.counterparty_id, m.channel, m.external_id, m.header_message_id, m.message_type, m.status, m.outcome,
  m.error_code, m.dead_stage, m.duplicate_of, m.size_bytes, m.received_at`;

/** The Stockholm day's first instant, in SQL, for a date parameter. */
const dayStart = (parameter: string) => `((${parameter})::date::timestamp AT TIME ZONE 'Europe/Stockholm')`;

export async function searchMessages(sql: Sql, filter: ConsoleMessageFilter): Promise<ConsoleMessage[]> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (condition: (parameter: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${params.length}`));
  };
  if (filter.counterpartyId) add((p) => `m.counterparty_id = ${p}`, filter.counterpartyId);
  if (filter.channel) add((p) => `m.channel = ${p}`, filter.channel);
  if (filter.messageType) add((p) => `m.message_type = ${p}`, filter.messageType);
  if (filter.status) add((p) => `m.status = ${p}`, filter.status);
  if (filter.outcome) add((p) => `m.outcome = ${p}`, filter.outcome);
  if (filter.errorCode) add((p) => `m.error_code = ${p}`, filter.errorCode);
  if (filter.receivedFrom) add((p) => `m.received_at >= ${dayStart(p)}`, filter.receivedFrom);
  if (filter.receivedTo) add((p) => `m.received_at < ${dayStart(`${p}::date + 1`)}`, filter.receivedTo);
  if (filter.fileName) add((p) => `(m.external_id = ${p} OR m.metadata->>'fileName' = ${p})`, filter.fileName);
  if (filter.headerMessageId) add((p) => `m.header_message_id = ${p}`, filter.headerMessageId);
  // A key search walks the key's index backwards from its newest entry: a key has one row
  // per message, carrying the message's seq, so the index orders and pages it and only a
  // page's messages are read — whether the key names ten messages or seventy thousand.
  const seq = filter.key ? 'k.seq' : 'm.seq';
  if (filter.beforeSeq) add((p) => `${seq} < ${p}`, filter.beforeSeq);
  let from = 'messages m';
  if (filter.key) {
    add((p) => `k.kind = ${p}`, filter.key.kind);
    add((p) => `k.value = ${p}`, filter.key.value);
    from = 'document_keys k JOIN messages m ON m.id = k.message_id';
  }
  params.push(filter.limit);
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  const { rows } = await sql.query<Row>(`SELECT ${COLUMNS} FROM ${from} ${where} ORDER BY ${seq} DESC LIMIT $${params.length}`, params);
  return rows.map(toConsoleMessage);
}

function toConsoleMessage(row: Row): ConsoleMessage {
  return {
    id: row.id, seq: Number(row.seq), counterpartyId: row.counterparty_id, channel: row.channel, externalId: row.external_id,
    headerMessageId: row.header_message_id, messageType: row.message_type, status: row.status, outcome: row.outcome,
    errorCode: row.error_code, deadStage: row.dead_stage, duplicateOf: row.duplicate_of, sizeBytes: Number(row.size_bytes),
    receivedAt: new Date(row.received_at),
  };
}

export interface DayCount {
  readonly counterpartyId: string;
  readonly messageType: string | null;
  readonly status: MessageStatus;
  readonly outcome: MessageOutcome | null;
  readonly count: number;
}

/** The documents received on a Stockholm day, counted per counterparty, type, status and outcome. */
export async function countMessagesOfDay(sql: Sql, day: IsoDate): Promise<DayCount[]> {
  const { rows } = await sql.query<{ counterparty_id: string; message_type: string | null; status: MessageStatus; outcome: MessageOutcome | null; count: string | number }>(
    `SELECT counterparty_id, message_type, status, outcome, count(*) AS count FROM messages m
      WHERE m.received_at >= ${dayStart('$1')} AND m.received_at < ${dayStart('$1::date + 1')}
      GROUP BY 1, 2, 3, 4 ORDER BY 1, 2 NULLS LAST, 3, 4 NULLS LAST`,
    [day],
  );
  return rows.map((row) => ({ counterpartyId: row.counterparty_id, messageType: row.message_type, status: row.status, outcome: row.outcome, count: Number(row.count) }));
}

/** Dead messages, whenever received. */
export async function countDeadMessages(sql: Sql): Promise<number> {
  const { rows } = await sql.query<{ count: string | number }>(`SELECT count(*) AS count FROM messages WHERE status = 'dead'`);
  return Number(rows[0]?.count ?? 0);
}

/** A message's raw bytes as received (null when kept in the document store), where the store keeps them, and its metadata. */
export interface RawDocument {
  readonly raw: Uint8Array | null;
  readonly rawLocation: string | null;
  /** When its archive file's personal identity numbers were masked (retention), if they were. */
  readonly maskedAt: Date | null;
  readonly metadata: Record<string, unknown>;
}

export async function getRawDocument(sql: Sql, id: string): Promise<RawDocument | undefined> {
  const { rows } = await sql.query<{ raw: Uint8Array | null; raw_location: string | null; masked_at: Date | string | null; metadata: Record<string, unknown> }>(
    `SELECT m.raw, m.raw_location, a.masked_at, m.metadata
       FROM messages m LEFT JOIN message_archive_files a ON a.file = split_part(m.raw_location, '@', 1)
      WHERE m.id = $1`,
    [id],
  );
  const row = rows[0];
  return row ? { raw: row.raw, rawLocation: row.raw_location, maskedAt: row.masked_at === null ? null : new Date(row.masked_at), metadata: row.metadata } : undefined;
}

/** The messages recorded as duplicates of this one. */
export async function listDuplicatesOf(sql: Sql, id: string): Promise<{ id: string; receivedAt: Date }[]> {
  const { rows } = await sql.query<{ id: string; received_at: Date | string }>('SELECT id, received_at FROM messages WHERE duplicate_of = $1 ORDER BY seq', [id]);
  return rows.map((row) => ({ id: row.id, receivedAt: new Date(row.received_at) }));
}
