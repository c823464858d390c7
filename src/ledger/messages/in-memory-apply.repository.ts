import type { Sql } from '../database.ts';
import type { ApplicableMessage, MessageStatus } from './messages.repository.ts';

/**
 * The message store as the apply loop of a worker process sees it (pipeline/apply-loop.ts):
 * documents it validated in memory are still `received` in the store, so before it
 * applies them it reads their statuses, the validated backlog of their keys and the
 * older messages of their senders that are not validated yet.
 */
/** A validated message of a locked key, with its place in arrival order. */
export type BacklogMessage = ApplicableMessage & { readonly seq: number };

/** What the message store says about documents a worker holds validated in memory, before it applies them. */
export interface InMemoryApplyState {
  /** The keys whose advisory lock this transaction took (the others another transaction holds). */
  readonly locked: ReadonlySet<string>;
  /** The status of each of the documents (absent: not in the store). */
  readonly statusOf: ReadonlyMap<string, MessageStatus>;
  /** Other messages of the keys, validated and waiting in the store, oldest first. */
  readonly backlog: readonly BacklogMessage[];
  /**
   * Other messages still `received` (not validated yet) of the senders of the documents
   * and of the backlog, older than the newest of them, oldest first, that may belong to
   * one of the keys: their key as intake read it is one of them, or intake could not read it (null).
   */
  readonly received: readonly { readonly id: string; readonly seq: number; readonly counterpartyId: string; readonly orderingKey: string | null }[];
}

/**
 * Takes the advisory locks of the documents' keys that are free and reads, in the same
 * statement, what must be known before applying documents validated in memory (still
 * `received` in the store): their statuses, the locked keys' validated backlog (applied
 * before them, in arrival order) and the older unvalidated messages of the same
 * senders that may belong to the same keys.
 */
export async function readInMemoryApplyState(
  sql: Sql,
  documents: { readonly ids: readonly string[]; readonly counterpartyIds: readonly string[]; readonly newestSeq: number },
  keys: readonly string[],
): Promise<InMemoryApplyState> {
  const { rows } = await sql.query<{
    kind: 'locked' | 'ours' | 'backlog' | 'received'; id: string; seq: string; counterparty_id: string; channel: string | null; external_id: string | null;
    message_type: string | null; ordering_key: string | null; metadata: Record<string, unknown> | null; status: MessageStatus;
  }>(
    `WITH locked AS MATERIALIZED (
       SELECT key FROM unnest($2::text[]) AS k(key) WHERE pg_try_advisory_xact_lock(hashtextextended(key, 0))),
     backlog AS (
       SELECT id, seq, counterparty_id, channel, external_id, message_type, ordering_key, metadata FROM messages
        WHERE ordering_key IN (SELECT key FROM locked) AND status = 'validated' AND NOT (id = ANY($1::text[]))),
     bound AS (SELECT greatest($4::bigint, (SELECT max(seq) FROM backlog)) AS seq),
     senders AS (SELECT unnest($3::text[]) AS counterparty_id UNION SELECT counterparty_id FROM backlog)
     SELECT 'locked' AS kind, key AS id, NULL::bigint AS seq, NULL AS counterparty_id, NULL AS channel, NULL AS external_id, NULL AS message_type,
            NULL AS ordering_key, NULL::jsonb AS metadata, NULL AS status
       FROM locked
     UNION ALL
     SELECT 'ours', id, seq, counterparty_id, NULL, NULL, NULL, NULL, NULL, status FROM messages WHERE id = ANY($1::text[])
     UNION ALL
     SELECT 'backlog', id, seq, counterparty_id, channel, external_id, message_type, ordering_key, metadata, 'validated' FROM backlog
     UNION ALL
     SELECT 'received', m.id, m.seq, m.counterparty_id, NULL, NULL, NULL, m.ordering_key, NULL, 'received'
       FROM messages m, bound
      WHERE m.status = 'received' AND m.counterparty_id IN (SELECT counterparty_id FROM senders) AND m.seq < bound.seq
        AND (m.ordering_key IS NULL OR m.ordering_key = ANY($2::text[]))
        AND NOT (m.id = ANY($1::text[]))`,
    [documents.ids, keys, documents.counterpartyIds, documents.newestSeq],
  );
  const locked = new Set<string>();
  const statusOf = new Map<string, MessageStatus>();
  const backlog: BacklogMessage[] = [];
  const received: InMemoryApplyState['received'][number][] = [];
  for (const row of rows) {
    if (row.kind === 'locked') locked.add(row.id);
    else if (row.kind === 'ours') statusOf.set(row.id, row.status);
    else if (row.kind === 'received') received.push({ id: row.id, seq: Number(row.seq), counterpartyId: row.counterparty_id, orderingKey: row.ordering_key });
    else {
      backlog.push({
        id: row.id, seq: Number(row.seq), counterpartyId: row.counterparty_id, channel: row.channel ?? '', externalId: row.external_id ?? '',
        messageType: row.message_type ?? '', orderingKey: row.ordering_key ?? '', metadata: row.metadata ?? {},
      });
    }
  }
  backlog.sort((a, b) => a.seq - b.seq);
  received.sort((a, b) => a.seq - b.seq);
  return { locked, statusOf, backlog, received };
}
