import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/config.schema.ts';
import type { GatewayMetrics } from '../../observability/gateway-metrics.ts';
import { LoginThrottle } from '../login-throttle.ts';
import { answerErrors } from '../answer-errors.ts';
import { logRequests, quietRequestLogging } from '../request-log.ts';
import { requireStaff } from './staff-auth.ts';
import { trustedProxies } from '../trusted-proxies.ts';

/**
 * The metrics listener of a process without the api role (`worker`, `watch`), on
 * `metricsPort`: GET /metrics with that process's own counters and stage times, behind
 * the staff users' HTTP Basic (Prometheus' `basic_auth`), refused alike
 * (401 STAFF_AUTHENTICATION_REQUIRED) and throttled on wrong passwords like the api port.
 * Nothing else is served here: the console and the staff API stay on the api process.
 */
export async function buildMetricsServer(config: Readonly<GatewayConfig>, metrics: GatewayMetrics, log: Logger): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: log.child({ listener: 'metrics' }) as FastifyBaseLogger, logController: quietRequestLogging(), ...trustedProxies(config) });
  app.setErrorHandler(answerErrors(log));
  // Scrapes at debug; refusals at info, failures and slow answers at warn.
  logRequests(app, log.child({ listener: 'metrics' }));
  await app.register(async (staff) => {
    await requireStaff(staff, config.staff.users, new LoginThrottle(config.loginFailuresPerMinute));
    staff.get('/metrics', async (_request, reply) => reply.type(metrics.contentType).send(await metrics.render()));
  });
  return app;
}
