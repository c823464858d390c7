import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { stockholmDate } from '../core/calendar-date.ts';
import type { Sql } from '../ledger/database.ts';
import { DocumentStore } from '../ledger/messages/document-store.ts';
import { maskPersonalIdentityNumbers } from '../core/identifiers.ts';
import type { CalendarJob } from './calendar.scheduler.ts';

/**
 * Retention of received documents' bytes: every night the bytes of finished messages
 * (applied, rejected, duplicate) received more than `keepBytesDays` ago, and the bodies
 * of their delivered responses, leave their rows for a compressed archive file of the
 * document store (`archive/<day>-<first seq>.gz`, one gzip member per document;
 * `raw_location` and `body_location` name the members, so the console, a replay and
 * the apply path read them back as any stored document). The message rows, their
 * status history and ledger effects stay. Dead messages keep their bytes (staff may
 * replay them); a large report is already a file of the store (its response is
 * archived all the same); a response not yet delivered stays for its delivery.
 *
 * Past `maskAfterDays` an archive file is written again with the personal identity
 * numbers of its documents masked to the date of birth (`maskPersonalIdentityNumbers`,
 * as in the logs), the locations move to the new file, and the unmasked file is
 * removed once the run has committed — a stop in between leaves it recorded as
 * replaced, and the next run removes it. A masked document's bytes no longer match the
 * sha256 recorded at intake; the file says it is masked (`message_archive_files`).
 *
 * Bounded and resumable: a run archives at most `maxPerRun` messages, in batches, oldest
 * first by `seq`, and records how far it came (`message_retention_runs.last_seq`), where
 * the next night's run goes on — so a first run on years of messages spreads over
 * nights instead of holding one transaction for hours; it masks at most `maxPerRun`
 * documents, a whole archive file at a time, oldest first. A period is a Stockholm day
 * and runs once; a night missed is covered by the next.
 *
 * The counterparties' archive folders (`<folder>/archive/<day>/`, copies of what the
 * message store holds) are kept as long as the bytes: day folders older than the cutoff
 * are removed once the run has committed.
 */
export const MESSAGE_RETENTION_JOB = 'message-retention';
/** 03:15 Stockholm: after the day's runs, before the custodians' morning reports. */
export const MESSAGE_RETENTION_PATTERNS = ['15 3 * * *'] as const;
/** Messages per archive file and per UPDATE. */
const BATCH = 2000;
const DAY_MS = 86_400_000;
const FINISHED = new Set(['applied', 'rejected', 'duplicate']);

export interface MessageRetentionDeps {
  readonly store: DocumentStore;
  /** How long a finished message keeps its bytes in its row (default 730 days). */
  readonly keepBytesDays: number;
  /** After how many days the archived documents' personal identity numbers are masked (default 3650). */
  readonly maskAfterDays: number;
  /** At most this many messages archived, and this many documents masked, per run. */
  readonly maxPerRun: number;
  /** The counterparties' folders, whose `archive/<day>` folders are pruned with the bytes. */
  readonly counterpartyFolders: readonly string[];
  readonly log: Logger;
}

export interface RetentionRun {
  readonly cutoff: Date;
  /** Messages whose bytes moved to the archive. */
  readonly archived: number;
  readonly bytes: number;
  /** Response bodies that moved with them. */
  readonly responses: number;
  readonly archiveFiles: number;
  readonly lastSeq: number;
  /** Documents (requests and responses) whose personal identity numbers were masked. */
  readonly masked: number;
  readonly maskedFiles: number;
  /** Archive files to remove once the run has committed: replaced by their masked copies. */
  readonly replaced: readonly string[];
}

export function messageRetentionJob(deps: MessageRetentionDeps): CalendarJob {
  return {
    name: MESSAGE_RETENTION_JOB,
    patterns: MESSAGE_RETENTION_PATTERNS,
    duePeriods: (now) => [stockholmDate(now)],
    async run({ sql, period, firedAt, afterCommit }) {
      const run = await runRetention(sql, deps, period, firedAt);
      const { replaced, ...figures } = run;
      if (run.archived + run.responses + run.masked > 0) {
        deps.log.info({ day: period, ...figures, cutoff: run.cutoff.toISOString() }, 'documents\' bytes moved to the archive');
      }
      afterCommit(async () => {
        await removeReplacedArchives(deps.store, replaced, deps.log);
        await pruneArchiveFolders(deps.counterpartyFolders, stockholmDate(run.cutoff), deps.log);
      });
    },
  };
}

/**
 * One run in the caller's transaction: archives what is due, masks what is old enough,
 * records it under `period`, and says what it did. The caller removes `replaced` (with
 * `removeReplacedArchives`) after its commit.
 */
export async function runRetention(sql: Sql, deps: Pick<MessageRetentionDeps, 'store' | 'keepBytesDays' | 'maskAfterDays' | 'maxPerRun'>, period: string, now: Date): Promise<RetentionRun> {
  const archived = await archiveMessageBytes(sql, deps, period, now);
  const masked = await maskArchiveFiles(sql, deps, period, now);
  await sql.query(
    `INSERT INTO message_retention_runs (period, ran_at, cutoff, archived, bytes, archive_files, last_seq, responses, masked, masked_files)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [period, now, archived.cutoff, archived.archived, archived.bytes, archived.archiveFiles, archived.lastSeq, archived.responses, masked.masked, masked.maskedFiles],
  );
  return { ...archived, ...masked };
}

interface ArchiveRow {
  id: string;
  seq: string | number;
  status: string;
  raw: Uint8Array | null;
  received_at: Date | string;
  response: string | null;
}

/** Moves the bytes of what is due to archive files, in the caller's transaction. */
async function archiveMessageBytes(sql: Sql, deps: Pick<MessageRetentionDeps, 'store' | 'keepBytesDays' | 'maxPerRun'>, period: string, now: Date) {
  const cutoff = new Date(now.getTime() - deps.keepBytesDays * DAY_MS);
  const { rows: [from] } = await sql.query<{ last_seq: string | number | null }>('SELECT max(last_seq) AS last_seq FROM message_retention_runs');
  let lastSeq = Number(from?.last_seq ?? 0);
  let archived = 0;
  let responses = 0;
  let bytes = 0;
  let archiveFiles = 0;
  for (;;) {
    const limit = Math.min(BATCH, deps.maxPerRun - archived);
    if (limit <= 0) break;
    // In seq order from where the last run stopped, up to the first message not yet old enough.
    const { rows } = await sql.query<ArchiveRow>(
      `SELECT m.id, m.seq, m.status, m.raw, m.received_at, r.body AS response
         FROM messages m LEFT JOIN responses r ON r.message_id = m.id AND r.body IS NOT NULL AND r.delivered_at IS NOT NULL
        WHERE m.seq > $1 ORDER BY m.seq LIMIT $2`,
      [lastSeq, limit],
    );
    // Up to the first message received after the cutoff: it and the ones numbered after it wait for a later run.
    const firstNew = rows.findIndex((row) => new Date(row.received_at) >= cutoff);
    const reachedNew = firstNew >= 0;
    const taken = reachedNew ? rows.slice(0, firstNew) : rows;
    const due = taken.filter((row) => FINISHED.has(row.status) && (row.raw !== null || row.response !== null));
    if (due.length > 0) {
      const members = due.flatMap((row) => [
        ...(row.raw !== null ? [{ messageId: row.id, bytes: row.raw }] : []),
        ...(row.response !== null ? [{ messageId: responseMember(row.id), bytes: Buffer.from(row.response, 'utf8') }] : []),
      ]);
      const locations = await deps.store.archive(`${period}-${due[0]!.seq}`, members);
      await moveLocations(sql, due.filter((row) => row.raw !== null).map((row) => row.id), due.filter((row) => row.response !== null).map((row) => row.id), locations);
      await recordArchiveFile(sql, locations, due, null);
      archived += due.filter((row) => row.raw !== null).length;
      responses += due.filter((row) => row.response !== null).length;
      bytes += members.reduce((sum, member) => sum + member.bytes.byteLength, 0);
      archiveFiles += 1;
    }
    if (taken.length > 0) lastSeq = Number(taken[taken.length - 1]!.seq);
    if (reachedNew || rows.length < limit) break;
  }
  return { cutoff, archived, responses, bytes, archiveFiles, lastSeq };
}

/** The key of a response's member in an archive call (a message's own is its id). */
const responseMember = (messageId: string) => `${messageId}#response`;

/** Points the rows at their members: the messages' bytes and the responses' bodies leave the rows. */
async function moveLocations(sql: Sql, raws: readonly string[], bodies: readonly string[], locations: ReadonlyMap<string, string>): Promise<void> {
  if (raws.length > 0) {
    await sql.query(
      `UPDATE messages m SET raw = NULL, raw_location = i.location
         FROM json_to_recordset($1::json) AS i(id text, location text) WHERE m.id = i.id`,
      [JSON.stringify(raws.map((id) => ({ id, location: locations.get(id) })))],
    );
  }
  if (bodies.length > 0) {
    await sql.query(
      `UPDATE responses r SET body = NULL, body_location = i.location
         FROM json_to_recordset($1::json) AS i(id text, location text) WHERE r.message_id = i.id`,
      [JSON.stringify(bodies.map((id) => ({ id, location: locations.get(responseMember(id)) })))],
    );
  }
}

async function recordArchiveFile(sql: Sql, locations: ReadonlyMap<string, string>, messages: readonly { seq: string | number; received_at: Date | string }[], maskedAt: Date | null): Promise<string> {
  const file = DocumentStore.archiveOf(locations.values().next().value!)!;
  const seqs = messages.map((row) => Number(row.seq));
  const receivedUntil = new Date(Math.max(...messages.map((row) => new Date(row.received_at).getTime())));
  await sql.query(
    'INSERT INTO message_archive_files (file, first_seq, last_seq, received_until, documents, masked_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [file, Math.min(...seqs), Math.max(...seqs), receivedUntil, locations.size, maskedAt],
  );
  return file;
}

/**
 * Writes archive files whose newest message was received more than `maskAfterDays` ago
 * again with their documents' personal identity numbers masked, oldest first, whole
 * files up to `maxPerRun` documents; the old files are recorded as replaced, to be
 * removed after the commit. Leftovers of a run stopped before its removals are
 * returned for removal too.
 */
async function maskArchiveFiles(sql: Sql, deps: Pick<MessageRetentionDeps, 'store' | 'maskAfterDays' | 'maxPerRun'>, period: string, now: Date) {
  const cutoff = new Date(now.getTime() - deps.maskAfterDays * DAY_MS);
  // Files an earlier run replaced, removed after its commit — or not, if it stopped first.
  const { rows: leftovers } = await sql.query<{ file: string }>('SELECT file FROM message_archive_files WHERE replaced_at IS NOT NULL');
  for (const { file } of leftovers) await deps.store.removeArchive(file);
  if (leftovers.length > 0) await sql.query('DELETE FROM message_archive_files WHERE replaced_at IS NOT NULL');
  const replaced: string[] = [];
  let masked = 0;
  let maskedFiles = 0;
  while (masked < deps.maxPerRun) {
    const { rows: [file] } = await sql.query<{ file: string; first_seq: string | number; last_seq: string | number }>(
      `SELECT file, first_seq, last_seq FROM message_archive_files
        WHERE masked_at IS NULL AND replaced_at IS NULL AND received_until < $1 ORDER BY received_until, file LIMIT 1`,
      [cutoff],
    );
    if (!file) break;
    const prefix = `${file.file}@`;
    const { rows } = await sql.query<{ id: string; seq: string | number; received_at: Date | string; raw_location: string | null; body_location: string | null }>(
      `SELECT m.id, m.seq, m.received_at,
              CASE WHEN starts_with(m.raw_location, $3) THEN m.raw_location END AS raw_location,
              CASE WHEN starts_with(r.body_location, $3) THEN r.body_location END AS body_location
         FROM messages m LEFT JOIN responses r ON r.message_id = m.id
        WHERE m.seq BETWEEN $1 AND $2 AND (starts_with(m.raw_location, $3) OR starts_with(r.body_location, $3))
        ORDER BY m.seq`,
      [file.first_seq, file.last_seq, prefix],
    );
    const wanted = rows.flatMap((row) => [
      ...(row.raw_location ? [{ key: row.id, location: row.raw_location }] : []),
      ...(row.body_location ? [{ key: responseMember(row.id), location: row.body_location }] : []),
    ]);
    const read = await deps.store.readMembers(wanted.map(({ location }) => location));
    const members = wanted.map(({ key }, index) => ({ messageId: key, bytes: maskBytes(read[index]!) }));
    if (members.length > 0) {
      const locations = await deps.store.archive(`${period}-masked-${file.first_seq}`, members);
      await moveLocations(sql, rows.filter((row) => row.raw_location).map((row) => row.id), rows.filter((row) => row.body_location).map((row) => row.id), locations);
      await recordArchiveFile(sql, locations, rows, now);
    }
    await sql.query('UPDATE message_archive_files SET replaced_at = $2 WHERE file = $1', [file.file, now]);
    replaced.push(file.file);
    masked += members.length;
    maskedFiles += 1;
  }
  return { masked, maskedFiles, replaced };
}

/**
 * A document's bytes with every personal identity number masked to its date of birth.
 * Read as latin1, one character a byte, so every other byte — whatever the document's
 * encoding — is written back as it was.
 */
export function maskBytes(bytes: Uint8Array): Buffer {
  return Buffer.from(maskPersonalIdentityNumbers(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')), 'latin1');
}

/** Removes archive files replaced by masked copies; what cannot be removed now the next run removes. */
export async function removeReplacedArchives(store: DocumentStore, files: readonly string[], log: Pick<Logger, 'info' | 'warn'>): Promise<void> {
  let removed = 0;
  for (const file of files) {
    try {
      await store.removeArchive(file);
      removed += 1;
    } catch (error) {
      log.warn({ file, err: (error as Error).message }, 'an archive file replaced by its masked copy could not be removed; the next run removes it');
    }
  }
  if (removed > 0) log.info({ files: removed }, 'archive files replaced by masked copies removed');
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
