import type { Sql } from '../database.ts';
import type { DocumentStore } from './document-store.ts';

/** Response documents and their delivery attempts. */
export interface StoredResponse {
  readonly messageId: string;
  readonly documentType: string;
  readonly fileName: string;
  readonly body: string;
  readonly createdAt: Date;
  readonly deliveredAt: Date | null;
}

interface ResponseRow {
  message_id: string;
  document_type: string;
  file_name: string;
  body: string;
  created_at: Date | string;
  delivered_at: Date | string | null;
}

export async function insertResponse(
  sql: Sql,
  response: { messageId: string; documentType: string; fileName: string; body: string },
): Promise<void> {
  await sql.query(
    `INSERT INTO responses (message_id, document_type, file_name, body) VALUES ($1, $2, $3, $4)
     ON CONFLICT (message_id) DO NOTHING`,
    [response.messageId, response.documentType, response.fileName, response.body],
  );
}

/**
 * A message's response. One archived by retention (its body in an archive file of the
 * document store, `body_location`) is read back from the store.
 */
export async function getResponse(sql: Sql, messageId: string, store: Pick<DocumentStore, 'read'>): Promise<StoredResponse | undefined> {
  const { rows } = await sql.query<Omit<ResponseRow, 'body'> & { body: string | null; body_location: string | null }>(
    'SELECT message_id, document_type, file_name, body, body_location, created_at, delivered_at FROM responses WHERE message_id = $1',
    [messageId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return toResponse({ ...row, body: row.body ?? await readArchivedBody(store, row.body_location!) });
}

async function readArchivedBody(store: Pick<DocumentStore, 'read'>, location: string): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of store.read(location)) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

function toResponse(row: ResponseRow): StoredResponse {
  return {
    messageId: row.message_id,
    documentType: row.document_type,
    fileName: row.file_name,
    body: row.body,
    createdAt: new Date(row.created_at),
    deliveredAt: row.delivered_at === null ? null : new Date(row.delivered_at),
  };
}

/** A response waiting for delivery, with what the channel needs of its request. */
export interface PendingDelivery {
  readonly response: StoredResponse;
  readonly counterpartyId: string;
  readonly channel: string;
  readonly requestMetadata: Record<string, unknown>;
}

/**
 * The responses of several messages with their requests' routing facts, in one query,
 * by message id; a message without a response is left out. The bodies in `knownBodies`
 * (the caller has them already: a response never changes once stored) are not read.
 */
export async function getPendingDeliveries(
  sql: Sql,
  messageIds: readonly string[],
  knownBodies: ReadonlyMap<string, string> = new Map(),
): Promise<Map<string, PendingDelivery>> {
  if (messageIds.length === 0) return new Map();
  const { rows } = await sql.query<Omit<ResponseRow, 'body'> & { body: string | null; counterparty_id: string; channel: string; metadata: Record<string, unknown> }>(
    `SELECT r.message_id, r.document_type, r.file_name, CASE WHEN r.message_id = ANY($2::text[]) THEN NULL ELSE r.body END AS body,
            r.created_at, r.delivered_at, m.counterparty_id, m.channel, m.metadata
       FROM responses r JOIN messages m ON m.id = r.message_id WHERE r.message_id = ANY($1::text[])`,
    [messageIds, [...knownBodies.keys()]],
  );
  return new Map(rows.flatMap((row): [string, PendingDelivery][] => {
    const body = row.body ?? knownBodies.get(row.message_id);
    // Delivered long ago, its body archived by retention: nothing to deliver.
    if (body === undefined && row.delivered_at !== null) return [];
    if (body === undefined) throw new Error(`the response of ${row.message_id} was neither read nor known`);
    return [[row.message_id, { response: toResponse({ ...row, body }), counterpartyId: row.counterparty_id, channel: row.channel, requestMetadata: row.metadata }]];
  }));
}

/** Successful deliveries of several responses in one statement: the attempts, and each response's delivered_at. */
export async function recordDeliveries(sql: Sql, delivered: readonly { messageId: string; channel: string; target: string | null }[]): Promise<void> {
  if (delivered.length === 0) return;
  await sql.query(
    `WITH attempt AS (
       INSERT INTO deliveries (message_id, channel, target, outcome)
       SELECT message_id, channel, target, 'delivered' FROM unnest($1::text[], $2::text[], $3::text[]) AS d(message_id, channel, target)
       RETURNING message_id)
     UPDATE responses r SET delivered_at = now() FROM attempt
      WHERE r.message_id = attempt.message_id AND r.delivered_at IS NULL`,
    [delivered.map((d) => d.messageId), delivered.map((d) => d.channel), delivered.map((d) => d.target)],
  );
}

export async function recordDelivery(
  sql: Sql,
  attempt: { messageId: string; channel: string; target: string | null; outcome: 'delivered' | 'failed'; error?: string },
): Promise<void> {
  // One statement: the attempt, and on success the response's delivered_at.
  await sql.query(
    `WITH attempt AS (
       INSERT INTO deliveries (message_id, channel, target, outcome, error) VALUES ($1, $2, $3, $4, $5) RETURNING message_id)
     UPDATE responses r SET delivered_at = now() FROM attempt
      WHERE $4 = 'delivered' AND r.message_id = attempt.message_id AND r.delivered_at IS NULL`,
    [attempt.messageId, attempt.channel, attempt.target, attempt.outcome, attempt.error ?? null],
  );
}

export async function listDeliveries(sql: Sql, messageId: string) {
  const { rows } = await sql.query<{ channel: string; target: string | null; outcome: string; error: string | null; at: Date }>(
    'SELECT channel, target, outcome, error, at FROM deliveries WHERE message_id = $1 ORDER BY id',
    [messageId],
  );
  return rows;
}
