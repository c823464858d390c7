import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/gateway-error.ts';
import { findSwitch, listSwitches, type SwitchRecord } from '../../ledger/custody/custodian-switches.repository.ts';
import { closeCustodianSwitch, registerSwitchForCustomer } from '../../requests/custodian-switch.ts';
import { STAFF_REQUEST_CHANNELS, type StaffRequestChannel } from '../../requests/withdrawal-request.ts';
import { readApplicationLimit } from './application-review.routes.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { staffUserOf } from './staff-user.ts';

/**
 * Custodian switches through the staff API (docs/custodian-switch.md): the list (?open,
 * ?insurance), one switch with its history and the runs that waited for it, a switch
 * registered on the policyholder's behalf (from the insurer's e-service or a paper form:
 * the channel and its reference are kept in the `requested` event under the staff user,
 * the audit), and a switch given up (closed) with a reason. A registered switch gets the
 * policyholder's sign case as one made through the REST API.
 */
export async function registerCustodianSwitchReviewRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  const custodians = new Set(options.config.counterparties.filter((c) => c.role === 'custodian').map((c) => c.id));

  app.get<{ Querystring: { open?: string; insurance?: string; limit?: string } }>('/api/custodian-switches', async (request) => {
    const { open, insurance } = request.query;
    if (open !== undefined && open !== 'true' && open !== 'false') throw new GatewayError('REQUEST_INVALID', 'open is true or false.');
    const found = await listSwitches(deps.db, {
      ...(open === undefined ? {} : { open: open === 'true' }), ...(insurance ? { insuranceNumber: insurance } : {}), limit: readApplicationLimit(request.query.limit),
    });
    return found.map(staffView);
  });

  app.get<{ Params: { id: string } }>('/api/custodian-switches/:id', async (request) => {
    const found = await findSwitch(deps.db, request.params.id);
    if (!found) throw new GatewayError('RESOURCE_NOT_FOUND', `No custodian switch ${request.params.id}.`);
    return staffView(found);
  });

  app.post<{ Body: unknown }>('/api/custodian-switches', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const text = (name: string) => (typeof body[name] === 'string' ? body[name].trim() : '');
    const channel = text('channel') as StaffRequestChannel;
    if (!STAFF_REQUEST_CHANNELS.includes(channel)) throw new GatewayError('REQUEST_INVALID', `channel is one of ${STAFF_REQUEST_CHANNELS.join(', ')}.`);
    if (text('reference') === '' || text('insuranceNumber') === '' || text('toCustodian') === '') {
      throw new GatewayError('REQUEST_INVALID', 'Give insuranceNumber, toCustodian, channel and the reference of the e-service case or the paper form.');
    }
    const toAccount = text('toAccount');
    if (toAccount !== '' && !/^[A-Za-z0-9._:-]{1,34}$/.test(toAccount)) throw new GatewayError('REQUEST_INVALID', 'toAccount is 1 to 34 letters, digits or . _ : -');
    const switchId = await registerSwitchForCustomer(deps.db, custodians, {
      insuranceNumber: text('insuranceNumber'), toCustodian: text('toCustodian'), ...(toAccount ? { toAccount } : {}),
      requestedBy: staffUserOf(request), note: `${channel}: ${text('reference')}`, now: deps.clock(),
    });
    return reply.code(201).header('location', `/api/custodian-switches/${switchId}`).send(staffView((await findSwitch(deps.db, switchId))!));
  });

  app.post<{ Params: { id: string }; Body: unknown }>('/api/custodian-switches/:id/close', async (request) => {
    const reason = (request.body as { reason?: unknown } | null)?.reason;
    if (typeof reason !== 'string' || reason.trim() === '') throw new GatewayError('REQUEST_INVALID', 'Give the reason: {"reason": "…"}.');
    const closed = await closeCustodianSwitch(deps.db, request.params.id, reason.trim(), staffUserOf(request), deps.clock());
    if (!closed) throw new GatewayError('RESOURCE_NOT_FOUND', `No open custodian switch ${request.params.id}.`);
    return staffView((await findSwitch(deps.db, request.params.id))!);
  });
}

/** A switch as staff see it: everything, and whether it is flagged stalled since its last step. */
export function staffView(record: SwitchRecord) {
  return { ...record, stalled: isFlaggedStalled(record) };
}

export function isFlaggedStalled(record: Pick<SwitchRecord, 'status' | 'stalledNoticedAt' | 'lastStepAt'>): boolean {
  return ['requested', 'ordered', 'confirmed'].includes(record.status) && record.stalledNoticedAt !== null && record.stalledNoticedAt >= record.lastStepAt;
}
