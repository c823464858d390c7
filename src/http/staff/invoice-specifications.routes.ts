import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/gateway-error.ts';
import { requireYearMonth } from '../../core/payout-plan.ts';
import { findInvoiceSpecification, listInvoiceSpecifications } from '../../ledger/plan/invoice-specifications.repository.ts';
import { listOutgoingDeliveries } from '../../ledger/messages/outgoing-documents.repository.ts';
import {
  invoiceSpecificationDepsFrom, makeInvoiceSpecifications, sendInvoiceSpecificationAgain,
} from '../../calendar/invoice-specification.job.ts';
import { readApplicationLimit } from './application-review.routes.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { staffUserOf } from './staff-user.ts';

/**
 * The monthly invoice specifications for staff (docs/invoice-specification.md):
 * - GET /api/invoice-specifications (`agreement`, `month`, `limit` 1–1000, default 100):
 *   newest month first, with totals and delivery;
 * - GET /api/invoice-specifications/<id>: the InvoiceSpecification document as recorded,
 *   byte for byte; `/pdf` its PDF; `/deliveries` every attempt to deliver it;
 * - POST /api/invoice-specifications `{"month": "2026-11"}`: the month's specifications
 *   not made yet, made now as the calendar makes them (201 when it made some, 200 when
 *   not) and handed to the deliver stage;
 * - POST /api/invoice-specifications/<id>/send-again `{"reason": "…"}`: the recorded
 *   document delivered once more, the same bytes (202); audited as `send-again`.
 */
export async function registerInvoiceSpecificationRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  const specificationDeps = invoiceSpecificationDepsFrom(options.config, deps.scheduler, options.log);
  const find = async (id: string) => {
    const found = await findInvoiceSpecification(deps.db, id);
    if (!found) throw new GatewayError('RESOURCE_NOT_FOUND', `No invoice specification ${id}.`);
    return found;
  };

  app.get<{ Querystring: { agreement?: string; month?: string; limit?: string } }>('/api/invoice-specifications', async (request) => {
    const { agreement, month } = request.query;
    return {
      invoiceSpecifications: await listInvoiceSpecifications(deps.db, {
        ...(agreement ? { agreementNumber: agreement } : {}), ...(month ? { month } : {}), limit: readApplicationLimit(request.query.limit),
      }),
    };
  });
  app.get<{ Params: { id: string } }>('/api/invoice-specifications/:id', async (request, reply) => {
    const spec = await find(request.params.id);
    return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${spec.fileName}"`).send(spec.body);
  });
  app.get<{ Params: { id: string } }>('/api/invoice-specifications/:id/pdf', async (request, reply) => {
    const spec = await find(request.params.id);
    return reply.type('application/pdf').header('content-disposition', `attachment; filename="${spec.documentId}.pdf"`).send(spec.pdf);
  });
  app.get<{ Params: { id: string } }>('/api/invoice-specifications/:id/deliveries', async (request) => {
    const spec = await find(request.params.id);
    return { deliveries: await listOutgoingDeliveries(deps.db, spec.documentId) };
  });
  app.post<{ Body: unknown }>('/api/invoice-specifications', async (request, reply) => {
    const month = (request.body as { month?: unknown } | undefined)?.month;
    if (typeof month !== 'string') throw new GatewayError('REQUEST_INVALID', 'Give the month as {"month": "YYYY-MM"}.');
    try {
      requireYearMonth(month);
    } catch {
      throw new GatewayError('REQUEST_INVALID', `Not a month YYYY-MM: ${month}.`);
    }
    const made = await makeInvoiceSpecifications(deps.db, specificationDeps, month, deps.clock());
    return reply.code(made.created.length > 0 ? 201 : 200).send(made);
  });
  app.post<{ Params: { id: string }; Body: unknown }>('/api/invoice-specifications/:id/send-again', async (request, reply) => {
    const reason = (request.body as { reason?: unknown } | undefined)?.reason;
    const username = request.staff?.username ?? staffUserOf(request).slice('staff:'.length);
    await sendInvoiceSpecificationAgain(deps.db, specificationDeps, request.params.id, { username, reason: typeof reason === 'string' && reason.trim() !== '' ? reason.trim() : null }, deps.clock());
    return reply.code(202).send({ documentId: request.params.id, status: 'handed to delivery' });
  });
}
