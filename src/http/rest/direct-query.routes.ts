import type { FastifyInstance } from 'fastify';
import { isValidOrganisationNumber, isValidPersonalIdentityNumber } from '../../core/identifiers.ts';
import type { Database } from '../../ledger/database.ts';
import type { KnownParties } from '../../ledger/plan/insurance-view.repository.ts';
import { engagementResponseXml } from '../../messages/engagement-response.document.ts';
import { answerDirectQuery } from '../../ledger/advice/direct-query.ts';
import { callerOf, notAvailable } from './api-auth.ts';
import { sendProblem } from './problem-details.ts';

/**
 * The direct query (Direktfrågan): GET /DirectQuery/{customerId} answers an advisor firm
 * holding a valid information or intermediation power of attorney on the customer with
 * the customer's engagement — every insurance as policyholder or insured
 * (src/ledger/plan/engagement.repository.ts) — as JSON, or as the EngagementResponse XML
 * document with Accept: application/xml. A custodian, a firm without such a power and a
 * customer the ledger does not know get the same 404 (src/core/direct-query.policy.ts).
 *
 * Every query answered is recorded (who, for whom, under which power, in which form) in
 * the transaction that reads its answer: no answer leaves without its record. The
 * customer's identifier is in the path, which the log masks (src/core/log-masking.ts).
 */
export interface DirectQueryRouteOptions {
  readonly db: Database;
  readonly clock: () => Date;
  /** The custodians' names, from the configuration. */
  readonly parties: KnownParties;
}

const problem = { $ref: 'Problem#' } as const;

export async function registerDirectQueryRoutes(app: FastifyInstance, options: DirectQueryRouteOptions): Promise<void> {
  const { db, clock, parties } = options;
  app.get('/DirectQuery/:customerId', {
    schema: {
      tags: ['direct query'],
      summary: "The customer's engagement (Direktfrågan): every insurance as policyholder or insured. JSON, or the EngagementResponse XML document (schemas/EngagementResponse.xsd) with Accept: application/xml. Needs a valid information or intermediation power of attorney on the customer",
      params: {
        type: 'object', required: ['customerId'],
        properties: { customerId: { type: 'string', pattern: '^(\\d{12}|\\d{10})$', description: 'Personnummer (12 digits) or organisation number (10 digits)' } },
      },
      response: {
        200: {
          description: "The customer's engagement",
          content: {
            'application/json': { schema: { $ref: 'Engagement#' } },
            'application/xml': { schema: { type: 'string', description: 'An EngagementResponse document (schemas/EngagementResponse.xsd)' } },
          },
        },
        400: problem, 401: problem, 404: problem, 422: problem,
      },
    },
  }, async (request, reply) => {
    const { customerId } = request.params as { customerId: string };
    const invalid = customerId.length === 12 ? !isValidPersonalIdentityNumber(customerId) : !isValidOrganisationNumber(customerId);
    if (invalid) {
      const code = customerId.length === 12 ? 'PERSONAL_IDENTITY_NUMBER_INVALID' : 'ORGANISATION_NUMBER_INVALID';
      return sendProblem(reply, code, 'The customerId fails its check digit or date.', [{ path: '$params.customerId', code, message: 'fails its check digit or date' }]);
    }
    const now = clock();
    const answeredAs = prefersXml(request.headers.accept) ? 'xml' : 'json';
    const answer = await answerDirectQuery(db, callerOf(request), customerId, answeredAs, now, parties);
    if (!answer) throw notAvailable();
    if (answeredAs === 'xml') {
      const xml = engagementResponseXml({ messageId: `DQ-${answer.queryId}`, createdAt: now, advisorFirm: answer.firm, powerKind: answer.power.kind, engagement: answer.engagement });
      return reply.type('application/xml; charset=utf-8').send(xml);
    }
    const { engagement } = answer;
    return reply.type('application/json').send({ queryId: answer.queryId, customerId, asOf: engagement.asOf, powerOfAttorney: answer.power.kind, insurances: engagement.insurances });
  });
}

/** Whether the Accept header ranks XML (application/xml or text/xml) above JSON (by q, then by order); no header: JSON. */
export function prefersXml(accept: string | undefined): boolean {
  const ranked = (accept ?? '').split(',').map((part, index) => {
    const [type = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = Number(parameters.find((parameter) => parameter.startsWith('q='))?.slice(2) ?? '1');
    return { type, q: Number.isFinite(q) ? q : 0, index };
  }).filter((entry) => entry.q > 0 && ['application/xml', 'text/xml', 'application/json', 'application/*', '*/*'].includes(entry.type));
  ranked.sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked[0]?.type === 'application/xml' || ranked[0]?.type === 'text/xml';
}
