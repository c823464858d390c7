import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/gateway-error.ts';
import { personStateAsOf } from '../../core/person-history.ts';
import { stockholmDate } from '../../core/calendar-date.ts';
import { readPersonHistory } from '../../ledger/plan/person-history.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';

/**
 * Staff reads of the policy ledger: a person's plan history under an agreement and
 * the state it gives as of a date (today in Stockholm by default) — what operations
 * staff check when an employer asks "what do you have for this employee?".
 */
export async function registerLedgerRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  app.get<{ Params: { agreement: string; pin: string }; Querystring: { asOf?: string } }>(
    '/api/agreements/:agreement/persons/:pin',
    async (request) => {
      const { agreement, pin } = request.params;
      const asOf = request.query.asOf ?? stockholmDate(deps.clock());
      if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf)) throw new GatewayError('REQUEST_INVALID', `asOf must be a date YYYY-MM-DD, not "${asOf}".`);
      const history = await readPersonHistory(deps.db, agreement, pin);
      if (!history) throw new GatewayError('PERSON_NOT_FOUND', `${pin} under agreement ${agreement}`);
      return { state: personStateAsOf(history, asOf), history };
    },
  );
}
