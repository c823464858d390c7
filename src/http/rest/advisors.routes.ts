import type { FastifyInstance } from 'fastify';
import { decideAccess } from '../../core/access.policy.ts';
import { stockholmDate } from '../../core/calendar-date.ts';
import type { Sql } from '../../ledger/database.ts';
import { findAdvisor } from '../../ledger/advice/advisors.repository.ts';
import { callerOf, notAvailable } from './api-auth.ts';

/**
 * GET /Advisor/{advisorcode}: an advisor of the calling firm. Another firm's advisor
 * answers exactly as an unknown code does.
 */
export async function registerAdvisorRoutes(app: FastifyInstance, { db, clock }: { readonly db: Sql; readonly clock: () => Date }): Promise<void> {
  app.get('/Advisor/:advisorcode', {
    schema: {
      tags: ['advisors'], summary: 'An advisor of your firm',
      params: { type: 'object', required: ['advisorcode'], properties: { advisorcode: { type: 'string', minLength: 1, maxLength: 64 } } },
      response: { 200: { $ref: 'Advisor#' }, 401: { $ref: 'Problem#' }, 404: { $ref: 'Problem#' } },
    },
  }, async (request) => {
    const { advisorcode } = request.params as { advisorcode: string };
    const advisor = await findAdvisor(db, advisorcode);
    const access = advisor && decideAccess(callerOf(request), { kind: 'advisor', organisationNumber: advisor.advisorOrganisationNumber }, stockholmDate(clock()));
    if (!advisor || !access?.allowed) throw notAvailable();
    return advisor;
  });
}
