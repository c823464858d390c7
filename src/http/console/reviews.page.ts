import type { FastifyInstance } from 'fastify';
import { maskPersonalIdentityNumbers } from '../../core/identifiers.ts';
import type { StoredWithdrawalStatus } from '../../core/withdrawal-request.rules.ts';
import { listApplications, type ApplicationStatus, type ApplicationSummary } from '../../ledger/advice/applications.repository.ts';
import { listWithdrawalRequests, type WithdrawalSummary } from '../../ledger/advice/withdrawal-requests.repository.ts';
import { APPLICATION_STATUSES } from '../staff/application-review.routes.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { WITHDRAWAL_STATUSES } from '../staff/withdrawal-review.routes.ts';
import { html } from './html.ts';
import { insuranceLink } from './insurance-link.ts';
import { choices, formatTime, listTable, notice, page, type Column } from './layout.ts';

/**
 * What waits for a person's decision, from the same listings as the staff API: the
 * applications (by status, those under review first) and the withdrawal requests (by
 * status), oldest first. Read-only here — decisions are taken through the staff API
 * and the CLI. The customer (a personnummer for a private policyholder) is masked.
 */
const LIST_LIMIT = 1000;

export function registerReviewPages(app: FastifyInstance, options: HttpServerOptions): void {
  const { db } = options.deps;

  app.get<{ Querystring: { status?: string } }>('/console/applications', async (request, reply) => {
    const asked = request.query.status ?? 'under-review';
    const status = APPLICATION_STATUSES.find((known) => known === asked);
    const bad = asked !== '' && !status;
    const applications = bad ? [] : await listApplications(db, { status: status as ApplicationStatus | undefined }, LIST_LIMIT);
    const body = html`${choices('/console/applications', `status=${asked}`, [...APPLICATION_STATUSES.map((known) => [known, `status=${known}`] as const), ['all', 'status=']])}
${notice('error', bad ? [`Status "${asked}" is not known; one of ${APPLICATION_STATUSES.join(', ')}.`] : [])}
${listTable('applications', applications, APPLICATION_COLUMNS, 'No applications with this status.')}${more(applications.length)}`;
    return reply.type('text/html; charset=utf-8').send(page('Applications', request.staff, body));
  });

  app.get<{ Querystring: { status?: string } }>('/console/withdrawal-requests', async (request, reply) => {
    const asked = request.query.status ?? '';
    const status = WITHDRAWAL_STATUSES.find((known) => known === asked);
    const bad = asked !== '' && !status;
    const requests = bad ? [] : await listWithdrawalRequests(db, status as StoredWithdrawalStatus | undefined, LIST_LIMIT);
    const body = html`${choices('/console/withdrawal-requests', asked === '' ? '' : `status=${asked}`, [['all', ''], ...WITHDRAWAL_STATUSES.map((known) => [known, `status=${known}`] as const)])}
${notice('error', bad ? [`Status "${asked}" is not known; one of ${WITHDRAWAL_STATUSES.join(', ')}.`] : [])}
${listTable('withdrawal-requests', requests, WITHDRAWAL_COLUMNS, status ? `No withdrawal requests with status ${status}.` : 'No withdrawal requests.')}${more(requests.length)}`;
    return reply.type('text/html; charset=utf-8').send(page('Withdrawal requests', request.staff, body));
  });
}

function more(shown: number) {
  return shown >= LIST_LIMIT ? html`<p>The oldest ${LIST_LIMIT} shown.</p>` : html``;
}

const APPLICATION_COLUMNS: readonly Column<ApplicationSummary>[] = [
  ['Application', (application) => application.applicationId], ['Kind', (application) => application.kind],
  ['Status', (application) => application.status], ['Submitted', (application) => formatTime(application.submittedAt)],
  ['Customer', (application) => maskPersonalIdentityNumbers(application.customerId)], ['Product', (application) => `${application.productName} (${application.productId})`],
  ['Firm / advisor', (application) => `${application.firmOrganisationNumber} / ${application.advisorCode}`],
  ['Issued as', (application) => (application.insuranceId ? insuranceLink(application.insuranceId) : application.agreementId ?? '')],
];

const WITHDRAWAL_COLUMNS: readonly Column<WithdrawalSummary>[] = [
  ['Request', (request) => request.requestId], ['Status', (request) => request.status], ['Requested', (request) => `${formatTime(request.requestedAt)} by ${request.requestedBy}`],
  ['Insurance', (request) => insuranceLink(request.insuranceNumber)], ['Customer', (request) => maskPersonalIdentityNumbers(request.customerId)],
  ['Custodian', (request) => request.custodianId], ['Amount (SEK)', (request) => request.amount], ['To account', (request) => `${request.bankName} ${request.accountNumber}`],
  ['Decision', (request) => request.decision ?? ''], ['Order', (request) => request.documentId ?? ''],
];
