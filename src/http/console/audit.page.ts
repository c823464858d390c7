import type { FastifyInstance } from 'fastify';
import { maskPersonalIdentityNumbers } from '../../core/identifiers.ts';
import { listStaffAudit } from '../../ledger/staff/staff-audit.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { registerDirectQueriesPage } from './direct-queries.page.ts';
import { html } from './html.ts';
import { formatTime, notice, page } from './layout.ts';

/**
 * The audit log: every action staff took in the console, newest first, 100 a page,
 * optionally of one message (`subject`). Read-only by construction: the table takes
 * no UPDATE or DELETE. A personnummer typed into a reason is shown masked. Beside it,
 * the record of what advisor firms read: the direct queries (./direct-queries.page.ts).
 */
const AUDIT_PAGE = 100;

export function registerAuditPage(app: FastifyInstance, options: HttpServerOptions): void {
  app.get<{ Querystring: { before?: string; subject?: string } }>('/console/audit', async (request, reply) => {
    const { before, subject } = request.query;
    const beforeId = before === undefined || before === '' ? undefined : Number(before);
    const bad = beforeId !== undefined && !(Number.isSafeInteger(beforeId) && beforeId > 0);
    const entries = bad ? [] : await listStaffAudit(options.deps.db, { ...(beforeId ? { beforeId } : {}), ...(subject ? { subject } : {}), limit: AUDIT_PAGE + 1 });
    const shown = entries.slice(0, AUDIT_PAGE);
    const older = entries.length > AUDIT_PAGE ? `/console/audit?${new URLSearchParams({ ...(subject ? { subject } : {}), before: String(shown.at(-1)!.id) }).toString()}` : undefined;
    const body = html`${notice('error', bad ? [`"before" must be an entry number, not "${before}".`] : [])}
<p>What advisor firms read: <a href="/console/direct-queries">direct queries</a>.</p>
${subject ? html`<p>Entries about <a href="/console/messages/${subject}">${subject}</a> · <a href="/console/audit">all entries</a></p>` : ''}
${shown.length === 0 ? html`<p id="audit-none">${subject ? `No staff action about ${subject} is recorded.` : 'No staff action is recorded yet: replays, decisions and other changes made in the console, the staff API or the CLI through it are listed here.'}</p>` : html`<table id="audit"><tr><th>#</th><th>At</th><th>Who</th><th>Action</th><th>Subject</th><th>Reason</th><th>Outcome</th></tr>
${shown.map((entry) => html`<tr data-action="${entry.action}"><td>${entry.id}</td><td>${formatTime(entry.at)}</td><td>${entry.username}</td><td>${entry.action}</td>
<td><a href="/console/messages/${entry.subject}">${entry.subject}</a></td><td>${maskPersonalIdentityNumbers(entry.reason ?? '')}</td><td>${entry.outcome}</td></tr>`)}
</table>`}
${older ? html`<p><a href="${older}">Older entries →</a></p>` : ''}`;
    return reply.type('text/html; charset=utf-8').send(page('Audit log', request.staff, body));
  });
  registerDirectQueriesPage(app, options);
}
