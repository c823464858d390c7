import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { stockholmDate } from '../core/calendar-date.ts';
import type { Sql } from '../ledger/database.ts';
import type { DocumentStore } from '../ledger/messages/document-store.ts';
import type { CalendarJob } from './calendar.scheduler.ts';

/**
 * Retention of received documents' bytes: every night the bytes of finished messages
 * (applied, rejected, duplicate) received more than `keepBytesDays` ago leave their rows
 * for a compressed archive file of the document store (`archive/<day>-<first seq>.gz`,
 * one gzip member per document; `raw_location` names the member, so the console, a
 * replay and the apply path read them back as any stored document). The message rows,
 * their status history, responses and ledger effects stay. Dead messages keep their
 * bytes (staff may replay them); a large report is already a file of the store.
 *
 * Bounded and resumable: a run moves at most `maxPerRun` documents, in batches, oldest
 * first by `seq`, and records how far it came (`message_retention_runs.last_seq`), where
 * the next night's run goes on — so a first run on years of messages spreads over
 * nights instead of holding one transaction for hours. A period is a Stockholm day and
 * runs once; a night missed is covered by the next.
 *
 * The counterparties' archive folders (`<folder>/archive/<day>/`, copies of what the
 * message store holds) are kept as long: day folders older than the cutoff are removed
 * once the run has committed.
 */
export const MESSAGE_RETENTION_JOB = 'message-retention';
/** 03:15 Stockholm: after the day's runs, before the custodians' morning reports. */
export const MESSAGE_RETENTION_PATTERNS = ['15 3 * * *'] as const;
/** Documents per archive file and per UPDATE. */
const BATCH = 2000;
const DAY_MS = 86_400_000;

export interface MessageRetentionDeps {
  readonly store: DocumentStore;
  /** How long a finished message keeps its bytes in its row (default 730 days). */
  readonly keepBytesDays: number;
  /** At most this many documents per run. */
  readonly maxPerRun: number;
  /** The counterparties' folders, whose `archive/<day>` folders are pruned with the bytes. */
  readonly counterpartyFolders: readonly string[];
  readonly log: Logger;
}

export interface RetentionRun {
  readonly cutoff: Date;
  readonly archived: number;
  readonly bytes: number;
  readonly archiveFiles: number;
  readonly lastSeq: number;
}

export function messageRetentionJob(deps: MessageRetentionDeps): CalendarJob {
  return {
    name: MESSAGE_RETENTION_JOB,
    patterns: MESSAGE_RETENTION_PATTERNS,
    duePeriods: (now) => [stockholmDate(now)],
    async run({ sql, period, firedAt, afterCommit }) {
      const run = await archiveMessageBytes(sql, deps, period, firedAt);
      if (run.archived > 0) deps.log.info({ day: period, ...run, cutoff: run.cutoff.toISOString() }, 'documents\' bytes moved to the archive');
      afterCommit(() => pruneArchiveFolders(deps.counterpartyFolders, stockholmDate(run.cutoff), deps.log));
    },
  };
}

/** One run in the caller's transaction: moves what is due, records it under `period`, and says what it moved. */
export async function archiveMessageBytes(sql: Sql, deps: Pick<MessageRetentionDeps, 'store' | 'keepBytesDays' | 'maxPerRun'>, period: string, now: Date): Promise<RetentionRun> {
  const cutoff = new Date(now.getTime() - deps.keepBytesDays * DAY_MS);
  const { rows: [from] } = await sql.query<{ last_seq: string | number | null }>('SELECT max(last_seq) AS last_seq FROM message_retention_runs');
  let lastSeq = Number(from?.last_seq ?? 0);
  let archived = 0;
  let bytes = 0;
  let archiveFiles = 0;
  for (;;) {
    const limit = Math.min(BATCH, deps.maxPerRun - archived);
    if (limit <= 0) break;
    // In seq order from where the last run stopped, up to the first message not yet old enough.
    const { rows } = await sql.query<{ id: string; seq: string | number; status: string; raw: Uint8Array | null; received_at: Date | string }>(
      'SELECT id, seq, status, raw, received_at FROM messages WHERE seq > $1 ORDER BY seq LIMIT $2',
      [lastSeq, limit],
    );
    // Up to the first message received after the cutoff: it and the ones numbered after it wait for a later run.
    const firstNew = rows.findIndex((row) => new Date(row.received_at) >= cutoff);
    const reachedNew = firstNew >= 0;
    const taken = reachedNew ? rows.slice(0, firstNew) : rows;
    const due = taken.filter((row) => row.raw !== null && ['applied', 'rejected', 'duplicate'].includes(row.status));
    if (due.length > 0) {
      const documents = due.map((row) => ({ messageId: row.id, bytes: row.raw! }));
      const locations = await deps.store.archive(`${period}-${due[0]!.seq}`, documents);
      await sql.query(
        `UPDATE messages m SET raw = NULL, raw_location = i.location
           FROM json_to_recordset($1::json) AS i(id text, location text)
          WHERE m.id = i.id AND m.raw IS NOT NULL`,
        [JSON.stringify([...locations].map(([id, location]) => ({ id, location })))],
      );
      archived += due.length;
      bytes += documents.reduce((sum, document) => sum + document.bytes.byteLength, 0);
      archiveFiles += 1;
    }
    if (taken.length > 0) lastSeq = Number(taken[taken.length - 1]!.seq);
    if (reachedNew || rows.length < limit) break;
  }
  await sql.query(
    `INSERT INTO message_retention_runs (period, ran_at, cutoff, archived, bytes, archive_files, last_seq) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [period, now, cutoff, archived, bytes, archiveFiles, lastSeq],
  );
  return { cutoff, archived, bytes, archiveFiles, lastSeq };
}

/** Removes the counterparties' `archive/<day>` folders of days before `beforeDay`. */
export async function pruneArchiveFolders(folders: readonly string[], beforeDay: string, log: Pick<Logger, 'info' | 'warn'>): Promise<void> {
  for (const folder of folders) {
    const archive = join(folder, 'archive');
    const days = await readdir(archive).catch(() => [] as string[]);
    const old = days.filter((day) => /^\d{4}-\d{2}-\d{2}$/.test(day) && day < beforeDay);
    for (const day of old) await rm(join(archive, day), { recursive: true, force: true });
    if (old.length > 0) log.info({ folder: archive, days: old.length, first: old.sort()[0], last: old[old.length - 1] }, 'archive folders past retention removed');
  }
}
