import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { Queue } from 'bullmq';
import type { HttpServerOptions, ServedRoute } from './server-options.ts';
import { STAGES } from '../pipeline/queues.ts';
import { CALENDAR_QUEUE } from '../calendar/calendar.scheduler.ts';
import { requireStaff } from './staff/staff-auth.ts';
import { LoginThrottle } from './login-throttle.ts';
import { trustedProxies } from './trusted-proxies.ts';
import { registerLedgerRoutes } from './staff/ledger.routes.ts';
import { registerInsuranceViewRoutes } from './staff/insurance-view.routes.ts';
import { registerRunRoutes } from './staff/runs.routes.ts';
import { registerMessageRoutes } from './staff/messages.routes.ts';
import { registerReportingRoutes } from './rest/reporting.routes.ts';
import { registerSsekRoutes, ssekHttpsOptions } from './ssek/ssek.routes.ts';
import { SsekDirectory } from '../channels/ssek/ssek-parties.ts';
import { registerInsuranceEndRoutes } from './staff/insurance-end.routes.ts';
import { registerTransferInRoutes } from './staff/transfer-in.routes.ts';
import { registerPayoutStartRoutes } from './staff/payout-start.routes.ts';
import { registerDeathBenefitRoutes } from './staff/death-benefits.routes.ts';
import { registerPaymentOrderRoutes } from './staff/payment-orders.routes.ts';
import { registerInvoiceSpecificationRoutes } from './staff/invoice-specifications.routes.ts';
import { registerCustodianReportRoutes } from './staff/custodian-reports.routes.ts';
import { registerPayoutNoticeRoutes } from './staff/payout-notices.routes.ts';
import { registerApplicationNoticeRoutes } from './staff/application-notices.routes.ts';
import { registerMailSetAsideRoutes } from './staff/mail-set-aside.routes.ts';
import { registerRestApi } from './rest/rest-api.ts';
import { createSigning, signingPageBaseUrl } from './signing-page/signing.ts';
import { registerSigningPage } from './signing-page/signing-page.routes.ts';
import { registerPowerOfAttorneyRoutes } from './staff/powers-of-attorney.routes.ts';
import { registerDirectQueriesRoutes } from './staff/direct-queries.routes.ts';
import { registerPersonDataRoutes } from './staff/person-data.routes.ts';
import { registerCompanySignatoryRoutes } from './staff/company-signatories.routes.ts';
import { registerApplicationReviewRoutes } from './staff/application-review.routes.ts';
import { registerWithdrawalReviewRoutes } from './staff/withdrawal-review.routes.ts';
import { registerCustodianSwitchReviewRoutes } from './staff/custodian-switch-review.routes.ts';
import { registerChannelHealthRoutes } from './staff/channel-health.routes.ts';
import { registerConsole } from './console/console.routes.ts';
import { StaffSessions } from './console/staff-sessions.ts';
import { keepQueueDashboardLocal } from './console/queue-dashboard.ts';
import { registerMetricsRoutes } from './staff/metrics.routes.ts';
import { answerErrors } from './answer-errors.ts';
import { REQUEST_SUMMARY_EVERY_MS, logRequests, quietRequestLogging } from './request-log.ts';

/**
 * The HTTP server on PORT (default 8080): health for orchestrators, and behind staff
 * credentials the queue dashboard (/admin/queues) and the message API (/api/messages).
 * Errors are GatewayErrors mapped to their registered HTTP status here, at the edge.
 */
export async function buildHttpServer(options: HttpServerOptions): Promise<FastifyInstance> {
  const { config, deps, queues } = options;
  const throttle = new LoginThrottle(config.loginFailuresPerMinute);
  const common = { loggerInstance: options.log.child({ role: 'api' }) as FastifyBaseLogger, logController: quietRequestLogging(), bodyLimit: config.limits.maxDocumentBytes, ...trustedProxies(config) };
  const https = ssekHttpsOptions(config);
  // With ssek.tls the port speaks HTTPS (client certificates for SSEK); routes see the same instance API either way.
  const app = (https ? Fastify({ ...common, https }) : Fastify(common)) as unknown as FastifyInstance;
  // Before any route: the hook sees every route registered after it, in every scope.
  const served: ServedRoute[] = [];
  app.decorate('servedRoutes', served);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) served.push({ method, url: route.url });
  });
  app.addContentTypeParser(['application/xml', 'text/xml', 'application/octet-stream'], { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.setErrorHandler(answerErrors(options.log));
  // Each request at debug (client errors at info, server errors and slow ones at warn), and a summary a minute.
  logRequests(app, options.log.child({ role: 'api' }), { summaryEveryMs: REQUEST_SUMMARY_EVERY_MS });

  app.get('/healthz', async () => ({ status: 'ok' }));
  // Unauthenticated, so it says up or down per dependency and nothing more: why a
  // dependency is down (addresses, user names, driver messages) goes to the log only.
  app.get('/readyz', async (request, reply) => {
    const [postgres, redis] = await Promise.all([
      probe('postgres', () => deps.db.query('SELECT 1'), request.log),
      queues ? probe('redis', () => queues.connection.ping(), request.log) : 'not used' as const,
    ]);
    const checks = { postgres, redis };
    const ready = Object.values(checks).every((value) => value !== 'down');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
  });

  await registerSsekRoutes(app, { config, deps, intake: options.intake, directory: options.ssekDirectory ?? new SsekDirectory(config) });

  await registerReportingRoutes(app, { config, deps, intake: options.intake, throttle });

  // One BankID signing for the REST API's Sign and Collect and the signing page (GET /sign/{id}?t=…).
  const signing = await createSigning(app, config, { db: deps.db, clock: deps.clock, scheduler: deps.scheduler, log: options.log });
  await registerRestApi(app, { config, db: deps.db, log: options.log, clock: deps.clock, signing, signingPageBaseUrl: () => signingPageBaseUrl(config, app) });
  await registerSigningPage(app, { db: deps.db, clock: deps.clock, signing, publicUrl: config.signingPage.publicUrl });

  const sessions = new StaffSessions(deps.db, config.staff);
  await registerConsole(app, { ...options, sessions, throttle });

  await app.register(async (staff) => {
    await requireStaff(staff, config.staff.users, throttle, sessions);
    await registerMessageRoutes(staff, options);
    await registerLedgerRoutes(staff, options);
    await registerInsuranceViewRoutes(staff, options);
    await registerRunRoutes(staff, options);
    await registerInsuranceEndRoutes(staff, options);
    await registerTransferInRoutes(staff, options);
    await registerPayoutStartRoutes(staff, options);
    await registerDeathBenefitRoutes(staff, options);
    await registerPaymentOrderRoutes(staff, options);
    await registerInvoiceSpecificationRoutes(staff, options);
    await registerCustodianReportRoutes(staff, options);
    await registerPayoutNoticeRoutes(staff, options);
    await registerChannelHealthRoutes(staff, options);
    await registerApplicationNoticeRoutes(staff, options);
    await registerMailSetAsideRoutes(staff, options);
    await registerPowerOfAttorneyRoutes(staff, options);
    await registerDirectQueriesRoutes(staff, options);
    await registerPersonDataRoutes(staff, options);
    await registerCompanySignatoryRoutes(staff, options);
    await registerApplicationReviewRoutes(staff, options);
    await registerWithdrawalReviewRoutes(staff, options);
    await registerCustodianSwitchReviewRoutes(staff, options);
    await registerMetricsRoutes(staff, options);
    if (queues) {
      const board = new FastifyAdapter();
      // The calendar queue (debit runs, report deadlines, payouts) beside the stages: staff see its runs and failures too.
      const calendar = new Queue(CALENDAR_QUEUE, { connection: queues.connection, prefix: config.queuePrefix });
      calendar.on('error', () => undefined);
      staff.addHook('onClose', () => calendar.close());
      createBullBoard({ queues: [...STAGES.map((stage) => new BullMQAdapter(queues.queues[stage])), new BullMQAdapter(calendar, { readOnlyMode: true })], serverAdapter: board });
      board.setBasePath('/admin/queues');
      keepQueueDashboardLocal(staff);
      await staff.register(board.registerPlugin(), { prefix: '/admin/queues' });
    }
  });
  return app;
}

/**
 * Up when the check answers within 2 s. A busy event loop (a burst of work on the
 * gateway's thread) can run the 2 s timer in the same turn in which the answer arrives;
 * the timeout is decided only after that turn's I/O (setImmediate runs after it), so an
 * answer that has arrived is never taken for a dependency that is down.
 */
async function probe(dependency: string, check: () => Promise<unknown>, log: FastifyBaseLogger): Promise<'up' | 'down'> {
  try {
    const timedOut = new Promise<never>((_resolve, reject) => {
      setTimeout(() => setImmediate(() => reject(new Error('timed out after 2 s'))), 2000).unref();
    });
    await Promise.race([check(), timedOut]);
    return 'up';
  } catch (error) {
    log.warn({ dependency, err: error }, 'readiness: dependency down');
    return 'down';
  }
}
