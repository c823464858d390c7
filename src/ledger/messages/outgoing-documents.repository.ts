import type { Sql } from '../database.ts';

/**
 * The delivery side of the documents the gateway starts itself (`outgoing_documents`,
 * written by a run in its transaction: debit-runs.repository.ts): which are still to be
 * delivered, and every attempt (`outgoing_deliveries`, migration 0016). A document's
 * bytes and file name never change once recorded, so every delivery sends the same file.
 */

/** A recorded document waiting for delivery. */
export interface PendingOutgoingDocument {
  readonly documentId: string;
  readonly counterpartyId: string;
  readonly documentType: string;
  readonly fileName: string;
  readonly body: string;
}

/** Those of `documentIds` recorded and not yet delivered, in one query. */
export async function undeliveredOutgoingDocuments(sql: Sql, documentIds: readonly string[]): Promise<PendingOutgoingDocument[]> {
  if (documentIds.length === 0) return [];
  const { rows } = await sql.query<PendingOutgoingDocument>(
    `SELECT document_id AS "documentId", counterparty_id AS "counterpartyId", document_type AS "documentType", file_name AS "fileName", body
       FROM outgoing_documents WHERE document_id = ANY($1::text[]) AND delivered_at IS NULL ORDER BY document_id`,
    [documentIds],
  );
  return rows;
}

/** Successful deliveries in one statement: the attempts, and each document's delivery (the first one stays). */
export async function recordOutgoingDeliveries(sql: Sql, delivered: readonly { documentId: string; channel: string; target: string }[]): Promise<void> {
  if (delivered.length === 0) return;
  await sql.query(
    `WITH attempt AS (
       INSERT INTO outgoing_deliveries (document_id, channel, target, outcome)
       SELECT document_id, channel, target, 'delivered' FROM unnest($1::text[], $2::text[], $3::text[]) AS d(document_id, channel, target)
       RETURNING document_id, target, at)
     UPDATE outgoing_documents o
        SET delivered_at = COALESCE(o.delivered_at, attempt.at), delivery_target = COALESCE(o.delivery_target, attempt.target),
            attempts = o.attempts + 1, last_error = NULL
       FROM attempt WHERE o.document_id = attempt.document_id`,
    [delivered.map((d) => d.documentId), delivered.map((d) => d.channel), delivered.map((d) => d.target)],
  );
}

/** A failed attempt: recorded, and kept on the document as its last error. */
export async function recordOutgoingFailure(sql: Sql, failure: { documentId: string; channel: string | null; error: string }): Promise<void> {
  await sql.query(
    `WITH attempt AS (
       INSERT INTO outgoing_deliveries (document_id, channel, outcome, error) VALUES ($1, $2, 'failed', $3) RETURNING document_id)
     UPDATE outgoing_documents o SET attempts = o.attempts + 1, last_error = $3 FROM attempt WHERE o.document_id = attempt.document_id`,
    [failure.documentId, failure.channel, failure.error],
  );
}

/** Where each of `documentIds` was delivered, for those delivered. */
export async function deliveryTargetsOf(sql: Sql, documentIds: readonly string[]): Promise<Map<string, string>> {
  if (documentIds.length === 0) return new Map();
  const { rows } = await sql.query<{ documentId: string; target: string }>(
    `SELECT document_id AS "documentId", delivery_target AS target FROM outgoing_documents
      WHERE document_id = ANY($1::text[]) AND delivered_at IS NOT NULL`,
    [documentIds],
  );
  return new Map(rows.map((row) => [row.documentId, row.target]));
}

/** Whether a document of that id is recorded, and when it was delivered (null: not yet). */
export async function outgoingDocumentDelivery(sql: Sql, documentId: string): Promise<{ deliveredAt: Date | null } | undefined> {
  const { rows } = await sql.query<{ delivered_at: Date | string | null }>('SELECT delivered_at FROM outgoing_documents WHERE document_id = $1', [documentId]);
  const row = rows[0];
  if (!row) return undefined;
  return { deliveredAt: row.delivered_at === null ? null : new Date(row.delivered_at) };
}

/** Documents recorded more than `olderThanMs` ago and still not delivered, oldest first (the reconciler's). */
export async function listStalledOutgoingDocuments(sql: Sql, olderThanMs: number, limit: number): Promise<string[]> {
  const { rows } = await sql.query<{ document_id: string }>(
    `SELECT document_id FROM outgoing_documents
      WHERE delivered_at IS NULL AND created_at < now() - make_interval(secs => $1::float8 / 1000)
      ORDER BY created_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((row) => row.document_id);
}

/** Every delivery attempt of a document, oldest first. */
export async function listOutgoingDeliveries(sql: Sql, documentId: string) {
  const { rows } = await sql.query<{ channel: string | null; target: string | null; outcome: string; error: string | null; at: Date }>(
    'SELECT channel, target, outcome, error, at FROM outgoing_deliveries WHERE document_id = $1 ORDER BY id',
    [documentId],
  );
  return rows;
}
