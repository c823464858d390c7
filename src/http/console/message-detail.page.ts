import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../../core/gateway-error.ts';
import { getRawDocument, listDuplicatesOf, type RawDocument } from '../../ledger/messages/console-messages.repository.ts';
import { DocumentStore } from '../../ledger/messages/document-store.ts';
import { listDocumentKeys } from '../../ledger/messages/document-keys.repository.ts';
import { listLedgerChanges, type LedgerTableChanges } from '../../ledger/messages/ledger-changes.repository.ts';
import { getMessage, listEvents, type StoredMessage } from '../../ledger/messages/messages.repository.ts';
import { getResponse, listDeliveries } from '../../ledger/messages/responses.repository.ts';
import { appendStaffAudit } from '../../ledger/staff/staff-audit.repository.ts';
import { replayMessage } from '../../pipeline/replay.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html, type Html } from './html.ts';
import { insuranceLink } from './insurance-link.ts';
import { formatTime, notice, page } from './layout.ts';
import { highlightXml, prettyPrintXml } from './xml-view.ts';

/**
 * One message in full, for the person looking into it: what it is and how it ended,
 * what it is about (its document keys, personal identity numbers unmasked — which is
 * why every view is written to the audit log), the raw document as received (shown
 * indented and highlighted, and downloadable byte for byte), the response, the status
 * history, every delivery attempt, the duplicate chain and the ledger rows the
 * document wrote (per table, at most LEDGER_ROWS_SHOWN of each). An operator can replay a dead message
 * here, giving the reason; the replay and its reason go to the audit log, and so does
 * a refused one.
 */
const MAX_SHOWN_BYTES = 1024 * 1024;
const MAX_REASON_LENGTH = 1000;
const LEDGER_ROWS_SHOWN = 20;

export function registerMessageDetailPage(app: FastifyInstance, options: HttpServerOptions): void {
  const { deps } = options;

  app.get<{ Params: { id: string }; Querystring: { replayed?: string } }>('/console/messages/:id', async (request, reply) => {
    const message = await findMessage(options, request.params.id);
    await appendStaffAudit(deps.db, { at: new Date(), username: request.staff!.username, action: 'view-detail', subject: message.id, reason: null, outcome: 'done' });
    return detailPage(options, request, reply, message, request.query.replayed === '1' ? { done: ['Replayed: the message is back in its stage.'] } : {});
  });

  app.get<{ Params: { id: string } }>('/console/messages/:id/raw', async (request, reply) => {
    const message = await findMessage(options, request.params.id);
    const raw = await getRawDocument(deps.db, message.id);
    if (!raw || (!raw.raw && !raw.rawLocation)) throw new GatewayError('MESSAGE_NOT_FOUND', `${message.id} has no bytes recorded.`);
    const fileName = typeof raw.metadata.fileName === 'string' ? raw.metadata.fileName : message.externalId;
    // A large report or an archived document is streamed from the document store.
    const bytes = raw.raw ? Buffer.from(raw.raw) : Readable.from(deps.documents.read(raw.rawLocation!));
    return reply.type('application/octet-stream').header('content-disposition', `attachment; filename="${downloadName(fileName, message.id)}"`).send(bytes);
  });

  app.get<{ Params: { id: string } }>('/console/messages/:id/response', async (request, reply) => {
    const response = await getResponse(deps.db, request.params.id, deps.documents);
    if (!response) throw new GatewayError('MESSAGE_NOT_FOUND', `${request.params.id} has no response yet.`);
    return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${downloadName(response.fileName, request.params.id)}"`).send(response.body);
  });

  app.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/messages/:id/replay', async (request, reply) => {
    const staff = request.staff!;
    const message = await findMessage(options, request.params.id);
    if (staff.role !== 'operator') throw new GatewayError('STAFF_ROLE_FORBIDDEN', `${staff.username} is a ${staff.role}.`);
    const reason = (request.body?.reason ?? '').trim();
    if (reason === '' || reason.length > MAX_REASON_LENGTH) {
      return detailPage(options, request, reply.code(400), message, { errors: [`Give the reason for the replay (up to ${MAX_REASON_LENGTH} characters).`] });
    }
    const audit = (outcome: string) => appendStaffAudit(deps.db, { at: new Date(), username: staff.username, action: 'replay', subject: message.id, reason, outcome });
    try {
      await replayMessage(deps.db, deps.scheduler, message.id);
    } catch (error) {
      if (!isGatewayError(error) || error.code !== 'MESSAGE_NOT_REPLAYABLE') throw error;
      await audit(`refused: ${error.message}`);
      return detailPage(options, request, reply.code(409), message, { errors: [error.message] });
    }
    await audit('done');
    request.log.info({ messageId: message.id, username: staff.username }, 'console: message replayed');
    return reply.redirect(`/console/messages/${encodeURIComponent(message.id)}?replayed=1`, 303);
  });
}

async function findMessage(options: HttpServerOptions, id: string): Promise<StoredMessage> {
  const message = await getMessage(options.deps.db, id);
  if (!message) throw new GatewayError('MESSAGE_NOT_FOUND', id);
  return message;
}

async function detailPage(
  options: HttpServerOptions, request: FastifyRequest, reply: FastifyReply, message: StoredMessage,
  notices: { errors?: readonly string[]; done?: readonly string[] },
): Promise<FastifyReply> {
  const { db } = options.deps;
  const [current, keys, stored, response, events, deliveries, duplicates, ledger] = await Promise.all([
    getMessage(db, message.id), listDocumentKeys(db, message.id), getRawDocument(db, message.id), getResponse(db, message.id, options.deps.documents),
    listEvents(db, message.id), listDeliveries(db, message.id), listDuplicatesOf(db, message.id), listLedgerChanges(db, message.id, LEDGER_ROWS_SHOWN),
  ]);
  const raw = stored && await withArchivedBytes(options, stored);
  const shown = current ?? message;
  const staff = request.staff!;
  const body = html`${notice('error', notices.errors ?? [])}${notice('done', notices.done ?? [])}
<table id="summary">
  ${row('Message id', shown.id)}${row('Counterparty', shown.counterpartyId)}${row('Channel', shown.channel)}
  ${row('External id', shown.externalId)}${typeof raw?.metadata.fileName === 'string' ? row('File name', raw.metadata.fileName) : ''}${row('Type', shown.messageType ?? '')}
  <tr><th>Status</th><td id="status" class="status-${shown.status}">${shown.status}${shown.deadStage ? ` (in ${shown.deadStage})` : ''}</td></tr>
  ${row('Outcome', shown.outcome ?? '')}${row('Error code', shown.errorCode ?? '')}
  ${row('Received', formatTime(shown.receivedAt))}${row('Size', `${shown.sizeBytes} bytes`)}${row('SHA-256', shown.sha256)}
  ${shown.duplicateOf ? html`<tr><th>Duplicate of</th><td><a href="/console/messages/${shown.duplicateOf}">${shown.duplicateOf}</a></td></tr>` : ''}
  ${duplicates.length > 0 ? html`<tr><th>Its duplicates</th><td>${duplicates.map((duplicate) => html`<a href="/console/messages/${duplicate.id}">${duplicate.id}</a> `)}</td></tr>` : ''}
</table>
${shown.status === 'dead' && staff.role === 'operator' ? replayForm(shown.id, staff.csrfToken ?? '') : ''}
<h2>What it is about</h2>
${keys.length === 0 ? html`<p>No document keys recorded (not applied, or applied before the console existed).</p>`
    : html`<table id="keys"><tr><th>Kind</th><th>Value</th></tr>${keys.map((key) => html`<tr><td>${key.kind}</td><td>${key.kind === 'insurance' ? insuranceLink(key.value) : key.value}</td></tr>`)}</table>`}
<h2>Document as received</h2>
${raw?.raw ? html`<p><a id="download-raw" href="/console/messages/${shown.id}/raw">Download as received</a>${archiveNote(raw)}</p>
<pre id="raw">${highlightXml(prettyPrintXml(rawText(raw.raw)))}</pre>` : html`<p>Kept in the document store: ${raw?.rawLocation ?? ''} · <a id="download-raw" href="/console/messages/${shown.id}/raw">Download as received</a></p>`}
<h2>Response</h2>
${response ? html`<p>${response.documentType}, ${response.fileName}, created ${formatTime(response.createdAt)}${response.deliveredAt ? `, delivered ${formatTime(response.deliveredAt)}` : ', not delivered yet'}
 · <a id="download-response" href="/console/messages/${shown.id}/response">Download</a></p>
<pre id="response">${response.body}</pre>` : html`<p>No response yet.</p>`}
<h2>Status history</h2>
<table id="history"><tr><th>At</th><th>Status</th><th>Reason</th></tr>${events.map((event) => html`<tr><td>${formatTime(event.at)}</td><td>${event.status}</td><td>${event.reason ?? ''}</td></tr>`)}</table>
<h2>Deliveries</h2>
${deliveries.length === 0 ? html`<p>No delivery attempts.</p>` : html`<table id="deliveries"><tr><th>At</th><th>Channel</th><th>Target</th><th>Outcome</th><th>Error</th></tr>
${deliveries.map((delivery) => html`<tr><td>${formatTime(new Date(delivery.at))}</td><td>${delivery.channel}</td><td>${delivery.target ?? ''}</td><td>${delivery.outcome}</td><td>${delivery.error ?? ''}</td></tr>`)}</table>`}
<h2>Ledger changes</h2>
${ledgerChanges(ledger)}
<p><a href="/console/audit?subject=${shown.id}">This message in the audit log</a></p>`;
  return reply.type('text/html; charset=utf-8').send(page(`Message ${shown.id}`, staff, body));
}

function replayForm(id: string, csrfToken: string): Html {
  return html`<form method="post" action="/console/messages/${id}/replay" id="replay">
  <input type="hidden" name="_csrf" value="${csrfToken}">
  <label>Reason for the replay<br><textarea name="reason" rows="2" cols="60" maxlength="${MAX_REASON_LENGTH}" required></textarea></label><br>
  <button type="submit">Replay this dead message</button>
</form>`;
}

/** The rows the document wrote, a table per ledger table, with how many there are in all. */
function ledgerChanges(tables: readonly LedgerTableChanges[]): Html {
  if (tables.length === 0) return html`<p id="ledger-none">No ledger rows carry this message's id.</p>`;
  return html`${tables.map(({ table, total, rows }) => {
    const columns = [...new Set(rows.flatMap((entry) => Object.keys(entry)))];
    return html`<h3>${table} (${total} ${total === 1 ? 'row' : 'rows'}${total > rows.length ? `, the first ${rows.length} shown` : ''})</h3>
<table class="ledger" data-table="${table}" data-total="${total}"><tr>${columns.map((column) => html`<th>${column}</th>`)}</tr>
${rows.map((entry) => html`<tr>${columns.map((column) => html`<td>${cellText(entry[column])}</td>`)}</tr>`)}</table>`;
  })}`;
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function row(label: string, value: string): Html {
  return html`<tr><th>${label}</th><td>${value}</td></tr>`;
}

/** The received bytes as text for the page (shown escaped; the first megabyte of a large one). */
/**
 * An archived document (retention moved its bytes to an archive file of the document
 * store) is read back to be shown like one in its row; a large report stays in the
 * store, downloadable.
 */
async function withArchivedBytes(options: HttpServerOptions, stored: RawDocument): Promise<RawDocument> {
  if (stored.raw || !stored.rawLocation || !DocumentStore.archiveOf(stored.rawLocation)) return stored;
  const parts: Buffer[] = [];
  for await (const chunk of options.deps.documents.read(stored.rawLocation)) parts.push(Buffer.from(chunk));
  return { ...stored, raw: Buffer.concat(parts) };
}

function archiveNote(raw: RawDocument): Html | string {
  if (!raw.rawLocation) return '';
  return raw.maskedAt
    ? html` · from the archive, personal identity numbers masked ${formatTime(raw.maskedAt)}`
    : html` · from the archive`;
}

function rawText(raw: Uint8Array): string {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(raw.subarray(0, MAX_SHOWN_BYTES));
  return raw.length > MAX_SHOWN_BYTES ? `${text}\n… (${raw.length - MAX_SHOWN_BYTES} more bytes: download the document)` : text;
}

/** A file name safe inside a Content-Disposition header. */
function downloadName(name: string, fallback: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  return /^[\w.@:+-]{1,200}$/.test(base) ? base : `${fallback}.xml`;
}
