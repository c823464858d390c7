import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../../core/gateway-error.ts';
import { listSwitches } from '../../ledger/custody/custodian-switches.repository.ts';
import { registerSwitchForCustomer } from '../../requests/custodian-switch.ts';
import { STAFF_REQUEST_CHANNELS, type StaffRequestChannel } from '../../requests/withdrawal-request.ts';
import { isFlaggedStalled, staffView } from '../staff/custodian-switch-review.routes.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html } from './html.ts';
import { formatTime, notice, page } from './layout.ts';

/**
 * The console's custodian switches (docs/custodian-switch.md): the open switches (or all,
 * ?all=true) with where each stands, STALLED when flagged for no step past
 * custodianSwitches.stallBankingDays, and a link to its sign case; an operator registers
 * a switch received through the e-service or on a paper form (the same rules and sign
 * case as the staff API; the staff user, channel and reference are kept in the switch's
 * `requested` event — its audit).
 */
export function registerCustodianSwitchesPage(app: FastifyInstance, options: HttpServerOptions): void {
  const { deps, config } = options;
  const custodians = config.counterparties.filter((c) => c.role === 'custodian').map((c) => c.id);

  async function listPage(request: FastifyRequest, reply: FastifyReply, all: boolean, notices: { errors?: string[]; done?: string[] } = {}) {
    const staff = request.staff!;
    const switches = (await listSwitches(deps.db, all ? { limit: 500 } : { open: true, limit: 500 })).map(staffView);
    const body = html`${notice('error', notices.errors ?? [])}${notice('done', notices.done ?? [])}
<p>${all ? html`All switches · <a href="/console/custodian-switches">only the open ones</a>` : html`Open switches · <a href="/console/custodian-switches?all=true">all</a>`}</p>
${switches.length === 0 ? html`<p id="no-switches">${all ? 'No custodian switches.' : 'No open custodian switches.'}</p>` : html`<table id="custodian-switches">
<tr><th>Switch</th><th>Status</th><th>Insurance</th><th>From</th><th>To</th><th>Requested</th><th>Last step</th><th>Sign case</th></tr>
${switches.map((s) => html`<tr data-switch="${s.switchId}"><td>${s.switchId}</td><td>${s.status}${s.stalled ? html` <strong class="stalled">STALLED</strong>` : ''}</td>
<td><a href="/console/insurances/${s.insuranceNumber}">${s.insuranceNumber}</a></td><td>${s.fromCustodian} ${s.fromAccount}</td><td>${s.toCustodian} ${s.toAccount ?? '–'}</td>
<td>${formatTime(s.requestedAt)}</td><td>${formatTime(s.lastStepAt)}</td><td>${s.signCaseId ? html`<a href="/console/sign-cases/${s.signCaseId}">${s.signCaseId}</a>` : '–'}</td></tr>`)}
</table>`}
${staff.role === 'operator' ? html`<h2>Register a switch</h2>
<form method="post" action="/console/custodian-switches" id="register-switch">
<input type="hidden" name="_csrf" value="${staff.csrfToken ?? ''}">
<label>Insurance <input name="insuranceNumber" required maxlength="20"></label>
<label>To custodian <select name="toCustodian">${custodians.map((c) => html`<option>${c}</option>`)}</select></label>
<label>New account (when open already) <input name="toAccount" maxlength="34"></label>
<label>Came by <select name="channel">${STAFF_REQUEST_CHANNELS.map((c) => html`<option>${c}</option>`)}</select></label>
<label>Reference <input name="reference" required maxlength="200"></label>
<button type="submit">Register</button></form>` : ''}`;
    return reply.type('text/html; charset=utf-8').send(page('Custodian switches', staff, body));
  }

  app.get<{ Querystring: { all?: string } }>('/console/custodian-switches', async (request, reply) => listPage(request, reply, request.query.all === 'true'));

  app.post<{ Body: Record<string, string | undefined> }>('/console/custodian-switches', async (request, reply) => {
    const staff = request.staff!;
    if (staff.role !== 'operator') throw new GatewayError('STAFF_ROLE_FORBIDDEN', `${staff.username} is a ${staff.role}.`);
    const field = (name: string) => (request.body?.[name] ?? '').trim();
    const channel = field('channel') as StaffRequestChannel;
    if (!STAFF_REQUEST_CHANNELS.includes(channel) || field('reference') === '' || field('insuranceNumber') === '') {
      return listPage(request, reply.code(400), false, { errors: ['Give the insurance, the channel and the reference of the e-service case or the paper form.'] });
    }
    try {
      const switchId = await registerSwitchForCustomer(deps.db, new Set(custodians), {
        insuranceNumber: field('insuranceNumber'), toCustodian: field('toCustodian'), toAccount: field('toAccount') || undefined,
        requestedBy: `staff:${staff.username}`, note: `${channel}: ${field('reference')}`, now: deps.clock(),
      });
      return listPage(request, reply.code(201), false, { done: [`Custodian switch ${switchId} registered; the policyholder signs it through its sign case.`] });
    } catch (error) {
      if (!isGatewayError(error)) throw error;
      return listPage(request, reply.code(error.httpStatus), false, { errors: [`${error.code}: ${error.message}`] });
    }
  });
}

/** How many open switches are flagged stalled: the overview's card. */
export async function countStalledSwitches(options: Pick<HttpServerOptions, 'deps'>): Promise<number> {
  return (await listSwitches(options.deps.db, { open: true, limit: 1000 })).filter(isFlaggedStalled).length;
}
