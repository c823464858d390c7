import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/gateway-error.ts';
import { findPaymentOrder, listPaymentOrders } from '../../ledger/custody/payment-orders.repository.ts';
import { readApplicationLimit } from './application-review.routes.ts';
import type { HttpServerOptions } from '../server-options.ts';

/**
 * The insurer's payment orders for its finance staff (read-only, behind staff auth):
 * GET /api/payment-orders (`limit`, 1–1000, default 100) lists them newest first, with
 * what each pays; GET /api/payment-orders/<id> answers the pain.001 file itself, byte
 * for byte as made, to be uploaded to the insurer's bank (the gateway sends it nowhere).
 */
export async function registerPaymentOrderRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  app.get<{ Querystring: { limit?: string } }>('/api/payment-orders', async (request) => {
    return { paymentOrders: await listPaymentOrders(deps.db, readApplicationLimit(request.query.limit)) };
  });
  app.get<{ Params: { id: string } }>('/api/payment-orders/:id', async (request, reply) => {
    const order = await findPaymentOrder(deps.db, request.params.id);
    if (!order) throw new GatewayError('RESOURCE_NOT_FOUND', `No payment order ${request.params.id}.`);
    return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${order.fileName}"`).send(order.body);
  });
}
