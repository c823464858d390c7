import type { FastifyInstance } from 'fastify';
import { archiveTotals, listRetentionRuns, type RetentionRunRow } from '../../ledger/messages/retention-runs.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html } from './html.ts';
import { formatTime, listTable, page, type Column } from './layout.ts';

/**
 * What retention did (docs/operations.md, "Retention"): the settings, what the archive
 * holds and how much of it is masked, and each night's run, newest first — messages
 * whose bytes moved to the archive, responses with them, bytes, files, documents
 * masked, and how far in the message store the run came.
 */
const SHOWN = 100;

const COLUMNS: readonly Column<RetentionRunRow>[] = [
  ['Night', (run) => run.period], ['Ran', (run) => formatTime(run.ranAt)], ['Received before', (run) => formatTime(run.cutoff)],
  ['Messages archived', (run) => html`<span class="number">${run.archived}</span>`],
  ['Responses archived', (run) => html`<span class="number">${run.responses}</span>`],
  ['Bytes', (run) => html`<span class="number">${megabytes(run.bytes)}</span>`], ['Archive files', (run) => run.archiveFiles],
  ['Documents masked', (run) => html`<span class="number">${run.masked}</span>`], ['Files masked', (run) => run.maskedFiles],
  ['Up to seq', (run) => run.lastSeq],
];

export function registerRetentionPage(app: FastifyInstance, options: HttpServerOptions): void {
  app.get('/console/retention', async (request, reply) => {
    const { db } = options.deps;
    const { retention } = options.config;
    const [runs, totals] = await Promise.all([listRetentionRuns(db, SHOWN), archiveTotals(db)]);
    const where = retention.archive.s3 ? `the bucket ${retention.archive.s3.bucket} (${retention.archive.s3.prefix}archive/)` : 'the data folder (documents/archive/)';
    const body = html`<p>A finished message's bytes, and its delivered response, move from the message store to a compressed archive file
${retention.keepBytesDays} days after it was received; its personal identity numbers are masked to the date of birth after ${retention.maskAfterDays} days.
At most ${retention.maxPerRun} messages archived and ${retention.maxPerRun} documents masked a night, at 03:15. The archive is kept in ${where}.</p>
<table id="archive">
  <tr><th>Archive files</th><td class="number">${totals.files}</td></tr>
  <tr><th>Documents in them (requests and responses)</th><td class="number">${totals.documents}</td></tr>
  <tr><th>Of which masked</th><td class="number">${totals.maskedDocuments} in ${totals.maskedFiles} files</td></tr>
  <tr><th>Oldest unmasked file's newest message</th><td>${totals.oldestUnmaskedUntil ? formatTime(totals.oldestUnmaskedUntil) : '—'}</td></tr>
</table>
<h2>Nightly runs</h2>
${listTable('retention-runs', runs, COLUMNS, 'No retention run yet: a worker runs it when it starts and every night.')}
${runs.length >= SHOWN ? html`<p>The newest ${SHOWN} shown.</p>` : ''}`;
    return reply.type('text/html; charset=utf-8').send(page('Retention', request.staff, body));
  });
}

function megabytes(bytes: number): string {
  return bytes < 1_048_576 ? `${bytes} B` : `${(bytes / 1_048_576).toFixed(1)} MB`;
}
