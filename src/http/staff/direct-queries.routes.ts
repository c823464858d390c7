import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/gateway-error.ts';
import { listDirectQueries, type DirectQueryFilter } from '../../ledger/advice/direct-queries.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';

/**
 * The staff view of the record of direct queries: GET /api/direct-queries lists, newest
 * first, which advisor firm (and API client) asked for which customer's engagement, when,
 * under which power of attorney, in which form and how many insurances the answer
 * listed; `?customer=` and `?firm=` narrow it, `?limit=` (1–1000, default 200) bounds it.
 * Read-only; registered behind staff auth, which keeps customers' identifiers in full.
 */
export async function registerDirectQueriesRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  app.get<{ Querystring: { customer?: string; firm?: string; limit?: string } }>('/api/direct-queries', async (request) => {
    const queries = await listDirectQueries(deps.db, readDirectQueryFilter(request.query));
    return { queries };
  });
}

/** The list's filter from a query string (or the CLI's options); a limit other than 1–1000 is REQUEST_INVALID. */
export function readDirectQueryFilter(query: { customer?: string; firm?: string; limit?: string }): DirectQueryFilter {
  const { customer, firm, limit } = query;
  if (limit !== undefined && !/^(?:[1-9]\d{0,2}|1000)$/.test(limit)) throw new GatewayError('REQUEST_INVALID', 'limit is a whole number from 1 to 1000.');
  return { ...(customer ? { customerId: customer } : {}), ...(firm ? { firmOrganisationNumber: firm } : {}), ...(limit ? { limit: Number(limit) } : {}) };
}
