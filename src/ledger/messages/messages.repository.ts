import type { Sql } from '../database.ts';

/**
 * The message store's queries. Plain functions taking the database (or the open
 * transaction) first; rows are mapped to domain shapes here and nowhere else.
 */
export type MessageStatus = 'received' | 'validated' | 'applied' | 'rejected' | 'duplicate' | 'dead';
export type MessageOutcome = 'accepted' | 'partially_accepted' | 'rejected';
export type PipelineStage = 'validate' | 'apply' | 'deliver';

export interface NewMessage {
  readonly id: string;
  readonly counterpartyId: string;
  readonly channel: string;
  readonly externalId: string;
  readonly sha256: string;
  readonly sizeBytes: number;
  readonly raw: Uint8Array | null;
  readonly rawLocation: string | null;
  readonly status: MessageStatus;
  readonly errorCode: string | null;
  readonly duplicateOf: string | null;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly receivedAt: Date;
  /** A file left in the sender's inbox until it is moved out: also recorded in `inbox_files`. */
  readonly inboxFile?: boolean;
  /** The sender's own MessageId from the document's header, when it could be read: an original's is unique per counterparty. */
  readonly headerMessageId?: string | null;
  /**
   * The ordering key as read from the header at intake (messages/ordering-key-hint.ts),
   * when it could be; validation writes the key it finds, which is the same.
   */
  readonly orderingKey?: string | null;
}

export interface StoredMessage {
  readonly id: string;
  readonly seq: number;
  readonly counterpartyId: string;
  readonly channel: string;
  readonly externalId: string;
  readonly sha256: string;
  readonly sizeBytes: number;
  readonly messageType: string | null;
  readonly orderingKey: string | null;
  readonly status: MessageStatus;
  readonly outcome: MessageOutcome | null;
  readonly errorCode: string | null;
  readonly deadStage: PipelineStage | null;
  readonly duplicateOf: string | null;
  readonly metadata: Record<string, unknown>;
  readonly receivedAt: Date;
  readonly updatedAt: Date;
}

const MESSAGE_COLUMNS = `id, seq, counterparty_id, channel, external_id, sha256, size_bytes, message_type, ordering_key,
  status, outcome, error_code, dead_stage, duplicate_of, metadata, received_at, updated_at`;

interface MessageRow {
  id: string;
  seq: string | number;
  counterparty_id: string;
  channel: string;
  external_id: string;
  sha256: string;
  size_bytes: string | number;
  message_type: string | null;
  ordering_key: string | null;
  status: MessageStatus;
  outcome: MessageOutcome | null;
  error_code: string | null;
  dead_stage: PipelineStage | null;
  duplicate_of: string | null;
  metadata: Record<string, unknown>;
  received_at: Date | string;
  updated_at: Date | string;
}

function toMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    seq: Number(row.seq),
    counterpartyId: row.counterparty_id,
    channel: row.channel,
    externalId: row.external_id,
    sha256: row.sha256,
    sizeBytes: Number(row.size_bytes),
    messageType: row.message_type,
    orderingKey: row.ordering_key,
    status: row.status,
    outcome: row.outcome,
    errorCode: row.error_code,
    deadStage: row.dead_stage,
    duplicateOf: row.duplicate_of,
    metadata: row.metadata,
    receivedAt: new Date(row.received_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** Which of a document's keys an earlier original has: its content, its header MessageId, or only its external id (file name). */
export type OriginalMatch = 'content' | 'MessageId' | 'file name';

/**
 * The original (a message recorded as no other's duplicate, and not rejected as
 * malformed XML: that is most often a file taken half-uploaded, migration 0020) of the same counterparty
 * that has one of this document's keys — the same content, the same header MessageId,
 * or the same external id — and which key: content first, then MessageId, so
 * 'file name' means another document under the same external id.
 */
export async function findOriginal(
  sql: Sql,
  document: { counterpartyId: string; externalId: string; sha256: string; headerMessageId: string | null },
): Promise<{ id: string; matched: OriginalMatch } | undefined> {
  // At most three rows: each key is unique among a counterparty's originals.
  const { rows } = await sql.query<{ id: string; sha256: string; header_message_id: string | null }>(
    `SELECT id, sha256, header_message_id FROM messages
      WHERE counterparty_id = $1 AND duplicate_of IS NULL AND error_code IS DISTINCT FROM 'XML_MALFORMED'
        AND (external_id = $2 OR sha256 = $3 OR header_message_id = $4)`,
    [document.counterpartyId, document.externalId, document.sha256, document.headerMessageId],
  );
  const byContent = rows.find((row) => row.sha256 === document.sha256);
  if (byContent) return { id: byContent.id, matched: 'content' };
  const byMessageId = document.headerMessageId === null ? undefined : rows.find((row) => row.header_message_id === document.headerMessageId);
  if (byMessageId) return { id: byMessageId.id, matched: 'MessageId' };
  return rows[0] ? { id: rows[0].id, matched: 'file name' } : undefined;
}

/** A message recorded before under a delivery's key, and whether it has the same content. */
export interface EarlierDelivery {
  readonly messageId: string;
  readonly status: MessageStatus;
  readonly errorCode: string | null;
  readonly sameContent: boolean;
}

/**
 * For a channel whose external id is the key of one delivery (SSEK's TxId, a mail's
 * Message-ID and attachment; indexed for each, migrations 0038 and 0040): the message
 * recorded under the counterparty's key with this content, else the first recorded
 * under it with other content (one rejected as malformed XML claims nothing,
 * migration 0020). Takes the key's transaction lock first, so that offers of one
 * delivery made at once look one after the other, each after the one before has
 * committed: call it inside the transaction that records the document. Looked up in its
 * own statement, after the lock, so it sees what the lock's holder committed.
 */
export async function findEarlierDelivery(
  tx: Sql,
  document: { counterpartyId: string; channel: string; externalId: string; sha256: string },
): Promise<EarlierDelivery | undefined> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`delivery ${document.counterpartyId} ${document.channel} ${document.externalId}`]);
  const { rows } = await tx.query<{ id: string; status: MessageStatus; error_code: string | null; same_content: boolean }>(
    `SELECT id, status, error_code, sha256 = $4 AS same_content FROM messages
      WHERE counterparty_id = $1 AND channel = $2 AND external_id = $3 AND (sha256 = $4 OR error_code IS DISTINCT FROM 'XML_MALFORMED')
      ORDER BY sha256 = $4 DESC, seq LIMIT 1`,
    [document.counterpartyId, document.channel, document.externalId, document.sha256],
  );
  const row = rows[0];
  return row && { messageId: row.id, status: row.status, errorCode: row.error_code, sameContent: row.same_content };
}

/**
 * Inserts a received document. Returns false when a concurrent intake recorded the
 * same original first (the unique indexes on external id, content and MessageId said so).
 */
export async function insertMessage(sql: Sql, message: NewMessage): Promise<boolean> {
  // One statement: the row and its first history event, or neither when an original exists.
  const { rows } = await sql.query(
    `WITH inserted AS (
       INSERT INTO messages (id, counterparty_id, channel, external_id, sha256, size_bytes, raw, raw_location,
                             status, outcome, error_code, duplicate_of, metadata, received_at, header_message_id, ordering_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $18, $19)
       ON CONFLICT DO NOTHING RETURNING id),
     inbox AS (
       INSERT INTO inbox_files (message_id, counterparty_id, file_name) SELECT id, $2, $4 FROM inserted WHERE $17::boolean)
     INSERT INTO message_events (message_id, status, reason, detail)
     SELECT id, $9, $15, $16 FROM inserted RETURNING message_id`,
    [
      message.id, message.counterpartyId, message.channel, message.externalId, message.sha256, message.sizeBytes,
      message.raw, message.rawLocation, message.status, message.status === 'received' ? null : 'rejected',
      message.errorCode, message.duplicateOf, JSON.stringify(message.metadata), message.receivedAt,
      message.errorCode ?? 'received', JSON.stringify({ channel: message.channel, externalId: message.externalId }),
      message.inboxFile === true, message.headerMessageId ?? null, message.orderingKey ?? null,
    ],
  );
  return rows.length > 0;
}

/** Documents larger than this go in a statement of their own (the statement of a run of small ones stays small). */
const MULTI_ROW_MAX_BYTES = 1024 * 1024;

/**
 * Inserts received documents (status `received`) in the given order, so their `seq`
 * follows it: runs of small documents in one statement each, a large one (or one
 * kept in the document store) on its own.
 * Returns the ids that were inserted; a document the unique indexes refuse (a
 * duplicate of an earlier one, also of one earlier in the same list) is left out, for
 * the caller to record as a duplicate.
 */
export async function insertReceivedMessages(sql: Sql, messages: readonly NewMessage[]): Promise<Set<string>> {
  const inserted = new Set<string>();
  let run: NewMessage[] = [];
  const flush = async () => {
    for (const id of await insertSmallMessages(sql, run)) inserted.add(id);
    run = [];
  };
  for (const message of messages) {
    if (message.status !== 'received') throw new Error(`insertReceivedMessages takes received documents (${message.id})`);
    // A document kept in the document store (raw null) also goes on its own.
    if (message.raw !== null && message.raw.byteLength <= MULTI_ROW_MAX_BYTES && messages.length > 1) {
      run.push(message);
      continue;
    }
    await flush();
    if (await insertMessage(sql, message)) inserted.add(message.id);
  }
  await flush();
  return inserted;
}

/**
 * Whether insertReceivedMessages records these documents with one statement — every
 * one small enough for a shared statement — which is all-or-none without a transaction.
 */
export function isOneStatement(messages: readonly NewMessage[]): boolean {
  return messages.length <= 1 || messages.every((m) => m.raw !== null && m.raw.byteLength <= MULTI_ROW_MAX_BYTES);
}

/** Received documents in one statement, in order; the ids inserted. */
async function insertSmallMessages(sql: Sql, messages: readonly NewMessage[]): Promise<Set<string>> {
  if (messages.length === 0) return new Set();
  // The rows travel as one JSON document and their bytes as one binary parameter, cut
  // apart by offset in the statement: no per-document text encoding on either side.
  let offset = 0;
  const rows = messages.map((m, index) => {
    const length = (m.raw as Uint8Array).byteLength;
    const row = {
      ordinality: index, id: m.id, counterparty_id: m.counterpartyId, channel: m.channel, external_id: m.externalId, sha256: m.sha256,
      size_bytes: m.sizeBytes, metadata: m.metadata, received_at: m.receivedAt.toISOString(), raw_from: offset + 1, raw_length: length,
      inbox_file: m.inboxFile === true, header_message_id: m.headerMessageId ?? null, ordering_key: m.orderingKey ?? null,
    };
    offset += length;
    return row;
  });
  // One row back: how many were inserted, and which only when the unique indexes left some out.
  const { rows: [result] } = await sql.query<{ inserted: number; ids: string[] | null }>(
    `WITH input AS (
       SELECT * FROM json_to_recordset($1::json)
              AS i(ordinality int, id text, counterparty_id text, channel text, external_id text, sha256 text, size_bytes bigint,
                   metadata jsonb, received_at timestamptz, raw_from int, raw_length int, inbox_file boolean, header_message_id text,
                   ordering_key text)),
     inserted AS (
       INSERT INTO messages (id, counterparty_id, channel, external_id, sha256, size_bytes, raw, status, metadata, received_at, header_message_id, ordering_key)
       SELECT id, counterparty_id, channel, external_id, sha256, size_bytes, substring($2::bytea FROM raw_from FOR raw_length),
              'received', metadata, received_at, header_message_id, ordering_key
         FROM input ORDER BY ordinality
       ON CONFLICT DO NOTHING RETURNING id),
     events AS (
       INSERT INTO message_events (message_id, status, reason, detail)
       SELECT i.id, 'received', 'received', jsonb_build_object('channel', i.channel, 'externalId', i.external_id)
         FROM inserted JOIN input i ON i.id = inserted.id
        ORDER BY i.ordinality),
     inbox AS (
       INSERT INTO inbox_files (message_id, counterparty_id, file_name)
       SELECT i.id, i.counterparty_id, i.external_id FROM inserted JOIN input i ON i.id = inserted.id WHERE i.inbox_file)
     SELECT count(*)::int AS inserted, CASE WHEN count(*) < $3 THEN array_agg(id) END AS ids FROM inserted`,
    [JSON.stringify(rows), Buffer.concat(messages.map((m) => m.raw as Uint8Array), offset), messages.length],
  );
  if (result && result.inserted === messages.length) return new Set(messages.map((m) => m.id));
  return new Set(result?.ids ?? []);
}

export async function addEvent(sql: Sql, messageId: string, status: string, reason: string, detail?: unknown): Promise<void> {
  await sql.query('INSERT INTO message_events (message_id, status, reason, detail) VALUES ($1, $2, $3, $4)', [
    messageId, status, reason, detail === undefined ? null : JSON.stringify(detail),
  ]);
}

export async function getMessage(sql: Sql, id: string): Promise<StoredMessage | undefined> {
  const { rows } = await sql.query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = $1`, [id]);
  return rows[0] ? toMessage(rows[0]) : undefined;
}

/**
 * Several messages with their raw bytes (or the document store's location of them) in
 * one query, in no particular order; unknown ids are left out. The bytes of those in
 * `withoutRaw` (the caller has them already) are left out too: raw is null for them.
 */
export async function getMessagesWithRaw(
  sql: Sql,
  ids: readonly string[],
  withoutRaw: readonly string[] = [],
): Promise<(StoredMessage & { raw: Uint8Array | null; rawLocation: string | null })[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<MessageRow & { raw: Uint8Array | null; raw_location: string | null }>(
    `SELECT ${MESSAGE_COLUMNS}, CASE WHEN id = ANY($2::text[]) THEN NULL ELSE raw END AS raw, raw_location
       FROM messages WHERE id = ANY($1::text[])`,
    [ids, withoutRaw],
  );
  return rows.map((row) => ({ ...toMessage(row), raw: row.raw, rawLocation: row.raw_location }));
}

/** The message with its raw bytes, locked for the rest of the transaction. */
export async function lockMessage(sql: Sql, id: string): Promise<(StoredMessage & { raw: Uint8Array | null; document: unknown }) | undefined> {
  const { rows } = await sql.query<MessageRow & { raw: Uint8Array | null; document: unknown }>(
    `SELECT ${MESSAGE_COLUMNS}, raw, document FROM messages WHERE id = $1 FOR UPDATE`,
    [id],
  );
  const row = rows[0];
  return row ? { ...toMessage(row), raw: row.raw, document: row.document } : undefined;
}

/**
 * Moves validated messages from `received` to `validated` with their type, ordering key
 * and typed document (as JSON text), and a history event each, in one statement. Gives
 * the ids that were still `received` (a second run changes nothing).
 */
export async function markValidatedMany(
  sql: Sql,
  validated: readonly { id: string; messageType: string; orderingKey: string; documentJson: string }[],
): Promise<Set<string>> {
  if (validated.length === 0) return new Set();
  // The documents are JSON already: the batch is written around them, not stringified again.
  const input = `[${validated
    .map((v) => `{"id":${JSON.stringify(v.id)},"message_type":${JSON.stringify(v.messageType)},"ordering_key":${JSON.stringify(v.orderingKey)},"document":${v.documentJson}}`)
    .join(',')}]`;
  const { rows } = await sql.query<{ message_id: string }>(
    `WITH input AS (
       SELECT * FROM json_to_recordset($1::json) AS i(id text, message_type text, ordering_key text, document jsonb)),
     updated AS (
       UPDATE messages m SET status = 'validated', message_type = i.message_type, ordering_key = i.ordering_key,
              document = i.document, updated_at = now()
         FROM input i WHERE m.id = i.id AND m.status = 'received' RETURNING m.id, m.message_type)
     INSERT INTO message_events (message_id, status, reason) SELECT id, 'validated', message_type FROM updated RETURNING message_id`,
    [input],
  );
  return new Set(rows.map((row) => row.message_id));
}

/** A validated message's end: its response and final status, as apply decided them. */
export interface AppliedMessage {
  readonly id: string;
  readonly response: { readonly documentType: string; readonly fileName: string; readonly body: string };
  readonly status: 'applied' | 'rejected';
  readonly outcome: MessageOutcome;
  readonly messageType: string;
  readonly orderingKey: string;
  readonly errorCode: string | null;
  readonly reason: string;
}

/**
 * Stores the responses of applied messages and moves them to their final status with a
 * history event each, all in one statement. A message comes `from` the status it has in
 * the store: `validated`, or still `received` when validation handed its typed document
 * over in memory — its history then gets the `validated` event too. Gives how many were
 * still in their `from` status (a second run changes nothing).
 */
export async function finishAppliedMany(
  sql: Sql,
  finished: readonly (AppliedMessage & { readonly from: 'received' | 'validated' })[],
): Promise<number> {
  if (finished.length === 0) return 0;
  const { rows } = await sql.query<{ moved: number }>(
    `WITH input AS (
       SELECT * FROM json_to_recordset($1::json)
              AS i(ordinality int, id text, document_type text, file_name text, body text, status text, outcome text,
                   message_type text, ordering_key text, error_code text, reason text, from_status text)),
     stored AS (
       INSERT INTO responses (message_id, document_type, file_name, body)
       SELECT id, document_type, file_name, body FROM input ORDER BY ordinality
       ON CONFLICT (message_id) DO NOTHING),
     updated AS (
       UPDATE messages m SET status = i.status, outcome = i.outcome, message_type = i.message_type,
              ordering_key = i.ordering_key, error_code = i.error_code, document = NULL, updated_at = now()
         FROM input i WHERE m.id = i.id AND m.status = i.from_status
       RETURNING m.id, i.status, i.outcome, i.reason, i.ordinality, i.from_status, i.message_type),
     events AS (
       SELECT id, 'validated' AS status, message_type AS reason, NULL::jsonb AS detail, ordinality, 0 AS step FROM updated
        WHERE from_status = 'received'
       UNION ALL
       SELECT id, status, reason, jsonb_build_object('outcome', outcome), ordinality, 1 FROM updated),
     recorded AS (
       INSERT INTO message_events (message_id, status, reason, detail)
       SELECT id, status, reason, detail FROM events ORDER BY ordinality, step)
     SELECT count(*)::int AS moved FROM updated`,
    [JSON.stringify(finished.map((f, index) => ({
      ordinality: index, id: f.id, document_type: f.response.documentType, file_name: f.response.fileName, body: f.response.body, status: f.status,
      outcome: f.outcome, message_type: f.messageType, ordering_key: f.orderingKey, error_code: f.errorCode, reason: f.reason, from_status: f.from,
    })))],
  );
  return rows[0]?.moved ?? 0;
}

/**
 * Moves a message from `from` to its final state (applied or rejected) with its
 * outcome and a history event, in one statement. False when it was not in `from`.
 */
export async function markFinished(
  sql: Sql,
  id: string,
  fields: {
    from: MessageStatus; status: 'applied' | 'rejected'; outcome: MessageOutcome; messageType: string | null;
    errorCode: string | null; reason: string;
  },
): Promise<boolean> {
  const { rows } = await sql.query(
    `WITH updated AS (
       UPDATE messages SET status = $2, outcome = $3, message_type = COALESCE($4, message_type), error_code = $5,
              document = NULL, updated_at = now()
        WHERE id = $1 AND status = $6 RETURNING id)
     INSERT INTO message_events (message_id, status, reason, detail)
     SELECT id, $2, $7, $8 FROM updated RETURNING message_id`,
    [id, fields.status, fields.outcome, fields.messageType, fields.errorCode, fields.from, fields.reason, JSON.stringify({ outcome: fields.outcome })],
  );
  return rows.length > 0;
}

/** The statuses a message has while it waits for each stage. */
const WAITING_FOR: Record<PipelineStage, readonly MessageStatus[]> = {
  validate: ['received'],
  apply: ['validated'],
  deliver: ['applied', 'rejected', 'duplicate'],
};

/**
 * Marks a message dead after its stage's last attempt — unless it has moved on
 * meanwhile (another job applied it), in which case nothing changes.
 */
export async function markDead(sql: Sql, id: string, stage: PipelineStage, errorCode: string, reason: string): Promise<boolean> {
  const { rows } = await sql.query(
    `UPDATE messages SET status = 'dead', dead_stage = $2, error_code = $3, updated_at = now()
      WHERE id = $1 AND status = ANY($4::text[]) RETURNING id`,
    [id, stage, errorCode, WAITING_FOR[stage]],
  );
  if (rows.length === 0) return false;
  await addEvent(sql, id, 'dead', reason, { stage, errorCode });
  return true;
}

/** A validated message that may be applied now; its typed document is read apart (getValidatedDocuments). */
export interface ApplicableMessage {
  readonly id: string;
  readonly orderingKey: string;
  readonly counterpartyId: string;
  /** The channel the request came by (where its answer goes back, unless routed). */
  readonly channel: string;
  readonly externalId: string;
  readonly messageType: string;
  readonly metadata: Record<string, unknown>;
}

/** The typed documents validation stored for messages, by id. */
export async function getValidatedDocuments(sql: Sql, ids: readonly string[]): Promise<Map<string, unknown>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql.query<{ id: string; document: unknown }>('SELECT id, document FROM messages WHERE id = ANY($1::text[])', [ids]);
  return new Map(rows.map((row) => [row.id, row.document]));
}

/** The ordering keys of those of `ids` that are validated (waiting to be applied), by message id. */
export async function findValidatedKeys(sql: Sql, ids: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await sql.query<{ id: string; ordering_key: string }>(
    `SELECT id, ordering_key FROM messages WHERE id = ANY($1::text[]) AND status = 'validated' AND ordering_key IS NOT NULL`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.ordering_key]));
}

/**
 * The validated messages of an ordering key that may be applied now, oldest first,
 * locked for the transaction. The list stops before the first message whose sender
 * has an older message not yet validated that may belong to the same key: one whose
 * key intake read as this one, or could not read.
 */
export async function listApplicable(sql: Sql, orderingKey: string, limit: number): Promise<ApplicableMessage[]> {
  return listApplicableOfKeys(sql, [orderingKey], limit);
}

/**
 * listApplicable for several keys at once, oldest first across them: each key's list
 * stops at its first blocked message; `limit` caps the whole list.
 */
export async function listApplicableOfKeys(sql: Sql, orderingKeys: readonly string[], limit: number): Promise<ApplicableMessage[]> {
  if (orderingKeys.length === 0) return [];
  const { rows } = await sql.query<{
    id: string; seq: string; counterparty_id: string; channel: string; external_id: string; message_type: string; ordering_key: string;
    metadata: Record<string, unknown>; blocked: boolean;
  }>(
    `SELECT m.id, m.seq, m.counterparty_id, m.channel, m.external_id, m.message_type, m.ordering_key, m.metadata,
            EXISTS (SELECT 1 FROM messages r WHERE r.counterparty_id = m.counterparty_id AND r.status = 'received' AND r.seq < m.seq
                       AND (r.ordering_key IS NULL OR r.ordering_key = m.ordering_key)) AS blocked
       FROM messages m
      WHERE m.ordering_key = ANY($1::text[]) AND m.status = 'validated'
      ORDER BY m.seq LIMIT $2 FOR UPDATE OF m`,
    [orderingKeys, limit],
  );
  const applicable: ApplicableMessage[] = [];
  const stopped = new Set<string>();
  for (const row of rows) {
    if (stopped.has(row.ordering_key)) continue;
    if (row.blocked) {
      stopped.add(row.ordering_key);
      continue;
    }
    applicable.push({
      id: row.id, counterpartyId: row.counterparty_id, channel: row.channel, externalId: row.external_id, messageType: row.message_type,
      orderingKey: row.ordering_key, metadata: row.metadata,
    });
  }
  return applicable;
}

export interface MessageFilter {
  readonly status?: MessageStatus;
  readonly counterpartyId?: string;
  readonly messageType?: string;
  /** Only messages before this sequence number (paging, newest first). */
  readonly beforeSeq?: number;
  readonly limit?: number;
}

export async function listMessages(sql: Sql, filter: MessageFilter = {}): Promise<StoredMessage[]> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (condition: string, value: unknown) => {
    params.push(value);
    conditions.push(condition.replace('?', `$${params.length}`));
  };
  if (filter.status) add('status = ?', filter.status);
  if (filter.counterpartyId) add('counterparty_id = ?', filter.counterpartyId);
  if (filter.messageType) add('message_type = ?', filter.messageType);
  if (filter.beforeSeq) add('seq < ?', filter.beforeSeq);
  params.push(filter.limit ?? 100);
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  const { rows } = await sql.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM messages ${where} ORDER BY seq DESC LIMIT $${params.length}`,
    params,
  );
  return rows.map(toMessage);
}

export interface MessageEvent {
  readonly at: Date;
  readonly status: string;
  readonly reason: string | null;
  readonly detail: unknown;
}

export async function listEvents(sql: Sql, messageId: string): Promise<MessageEvent[]> {
  const { rows } = await sql.query<{ at: Date | string; status: string; reason: string | null; detail: unknown }>(
    'SELECT at, status, reason, detail FROM message_events WHERE message_id = $1 ORDER BY id',
    [messageId],
  );
  return rows.map((row) => ({ at: new Date(row.at), status: row.status, reason: row.reason, detail: row.detail }));
}

/** Messages that sat in a stage longer than `olderThanMs`: the reconciler re-enqueues them. */
export async function listStalled(sql: Sql, olderThanMs: number, limit: number): Promise<{ id: string; stage: PipelineStage }[]> {
  const { rows } = await sql.query<{ id: string; stage: PipelineStage }>(
    `(SELECT id, CASE status WHEN 'received' THEN 'validate' ELSE 'apply' END AS stage FROM messages
        WHERE status IN ('received', 'validated') AND updated_at < now() - make_interval(secs => $1::float8 / 1000)
        ORDER BY seq LIMIT $2)
     UNION ALL
     (SELECT message_id AS id, 'deliver' AS stage FROM responses
        WHERE delivered_at IS NULL AND created_at < now() - make_interval(secs => $1::float8 / 1000)
        ORDER BY created_at LIMIT $2)`,
    [olderThanMs, limit],
  );
  return rows;
}
