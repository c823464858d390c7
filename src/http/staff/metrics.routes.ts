import type { FastifyInstance } from 'fastify';
import type { HttpServerOptions } from '../server-options.ts';

/**
 * GET /metrics: the process's metrics in the Prometheus text format
 * (src/observability/gateway-metrics.ts), for the insurer's Prometheus. Behind staff
 * authentication like the staff API: the scraper signs in with HTTP Basic as a staff
 * user of its own (role `viewer`: it only reads), which Prometheus' `basic_auth`
 * supports; a signed-in console session may look too. The figures name counterparties
 * and their traffic, so they are not public.
 */
export async function registerMetricsRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { metrics } = options.deps;
  if (!metrics) return;
  app.get('/metrics', async (_request, reply) => reply.type(metrics.contentType).send(await metrics.render()));
}
