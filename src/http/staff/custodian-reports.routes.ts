import type { FastifyInstance } from 'fastify';
import { expectedCustodians, listAnnualCustodianReports, listCustodianReports } from '../../calendar/report-deadlines.job.ts';
import type { HttpServerOptions } from '../server-options.ts';

/**
 * The staff view of custodian report deadlines, for the console and
 * `depot-gateway reports`:
 *
 * - GET /api/custodian-reports?from=&to=&status= lists the daily Holdings and
 *   Transactions per custodian, kind and due day: the status (on_time, late, missing,
 *   pending), the deadline, when the report arrived and which message it was;
 * - GET /api/custodian-reports/annual?year=&status= lists the yearly CostAndCharges of
 *   one account year (default: the year before this one) the same way, per custodian.
 *
 * `status` may list several statuses separated by commas. Read-only; registered behind staff auth.
 */
export async function registerCustodianReportRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { config, deps } = options;
  const custodians = expectedCustodians(config.counterparties);
  app.get<{ Querystring: { from?: string; to?: string; status?: string } }>('/api/custodian-reports', async (request) => {
    const { from, to, status } = request.query;
    const reports = await listCustodianReports(deps.db, custodians, { from, to, statuses: status?.split(',').filter(Boolean) }, deps.clock());
    return { reports };
  });
  app.get<{ Querystring: { year?: string; status?: string } }>('/api/custodian-reports/annual', async (request) => {
    const { year, status } = request.query;
    const reports = await listAnnualCustodianReports(deps.db, { year, statuses: status?.split(',').filter(Boolean) }, deps.clock());
    return { reports };
  });
}
