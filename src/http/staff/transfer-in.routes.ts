import type { FastifyInstance } from 'fastify';
import { addDays, isIsoDate, stockholmDate } from '../../core/calendar-date.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import { recordTransferMoney } from '../../ledger/plan/transfer-leaflets.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';

/**
 * Staff record that the money of a transfer in has arrived (docs/transfer-leaflet.md):
 * POST /api/insurances/<number>/transfer-money `{"date": "2026-11-25", "custodian":
 * "demo-custodian"}`. The insurance, registered from another insurer's leaflet and
 * awaiting its money, gets its custody account at that custodian (DEPA-<number>), opened
 * on that day, and from then on is in force like any other: the custodian's Holdings
 * value it, the debit runs charge it. Once only: a second is 409
 * TRANSFER_MONEY_ALREADY_RECORDED; an insurance that is no transfer in is 404.
 */
export async function registerTransferInRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  app.post<{ Params: { number: string }; Body: unknown }>('/api/insurances/:number/transfer-money', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const today = stockholmDate(deps.clock());
    const problems: string[] = [];
    const { date, custodian } = body;
    if (typeof date !== 'string' || !isIsoDate(date) || addDays(date, 0) !== date) problems.push('date: the day the money arrived, YYYY-MM-DD');
    else if (date > today) problems.push(`date: not after today (${today})`);
    const custodians = [...deps.counterparties.values()].filter((c) => c.role === 'custodian').map((c) => c.id);
    if (typeof custodian !== 'string' || !custodians.includes(custodian)) problems.push(`custodian: the custodian holding the money, one of ${custodians.join(', ')}`);
    if (problems.length > 0) throw new GatewayError('REQUEST_INVALID', problems.join('; '));
    const insuranceNumber = request.params.number;
    const outcome = await deps.db.transaction((tx) => recordTransferMoney(tx, { insuranceNumber, receivedOn: date as string, custodianId: custodian as string }));
    if ('notTransferIn' in outcome) throw new GatewayError('RESOURCE_NOT_FOUND', `No transfer in registers insurance ${insuranceNumber}.`);
    if ('alreadyReceived' in outcome) throw new GatewayError('TRANSFER_MONEY_ALREADY_RECORDED', `The money of ${insuranceNumber} was recorded as received on ${outcome.alreadyReceived}.`);
    return reply.code(201).send(outcome.received);
  });
}
