import type { FastifyInstance } from 'fastify';
import { expectedCustodians, listCustodianReports } from '../pipeline/report-deadlines.job.ts';
import type { HttpServerOptions } from './server.ts';

/**
 * The staff view of custodian report deadlines, for the console and
 * `depot-gateway reports`: GET /api/custodian-reports?from=&to=&status= lists, per
 * custodian, kind and due day, the status (on_time, late, missing, pending), the
 * deadline, when the report arrived and which message it was. `status` may list
 * several statuses separated by commas. Read-only; registered behind staff auth.
 */
export async function registerCustodianReportRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { config, deps } = options;
  const custodians = expectedCustodians(config.counterparties);
  app.get<{ Querystring: { from?: string; to?: string; status?: string } }>('/api/custodian-reports', async (request) => {
    const { from, to, status } = request.query;
    const reports = await listCustodianReports(deps.db, custodians, { from, to, statuses: status?.split(',').filter(Boolean) }, deps.clock());
    return { reports };
  });
}
