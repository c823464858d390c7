import type { FastifyInstance } from 'fastify';
import { periodText, readPayoutRequest } from '../../core/payout-start.ts';
import type { Database } from '../../ledger/database.ts';
import { findPayoutRequest, type PayoutRequestRecord } from '../../ledger/advice/payout-requests.repository.ts';
import { makePayoutRequest } from '../../requests/payout-request.ts';
import { callerOf, notAvailable } from './api-auth.ts';
import { accessGate } from './customer-access.ts';
import { sendProblem } from './problem-details.ts';

/**
 * Payout requests over the REST API: the insured starts the payout of an insurance whose
 * payout can begin — POST /Insurance/{insuranceNumber}/payoutrequest with the period, the
 * first month and the account — and signs it with BankID through its sign case (GET
 * /SignCase/{id}, Sign, Collect); the last signature registers the payout. GET
 * /Insurance/payoutrequest/{id} gives its status and history.
 *
 * A payout request is the insured's: an advisor firm acts with an intermediation power
 * of attorney from the insured, a custodian on the insurances it holds (an information
 * power reads), decided in the statement that finds the insurance or the request; anyone
 * else is answered as for an insurance or request that does not exist.
 * The request is checked as a staff registration is (src/requests/payout-start-check.ts)
 * and saved with its sign case in one transaction holding the insurance's row; a refused
 * request saves nothing and names every problem.
 */
export interface PayoutRequestRouteOptions {
  readonly db: Database;
  readonly clock: () => Date;
}

const problem = { $ref: 'Problem#' } as const;
const PROBLEM_PATHS = { insuranceNumber: '$params.insuranceNumber', period: '$.period', firstMonth: '$.firstMonth', account: '$.accountNumber' } as const;

export async function registerPayoutRequestRoutes(app: FastifyInstance, options: PayoutRequestRouteOptions): Promise<void> {
  const { db, clock } = options;

  app.post('/Insurance/:insuranceNumber/payoutrequest', {
    schema: {
      tags: ['payouts'],
      summary: "Start the payout of an insurance whose payout can begin: a period the product offers, the first month, an account validated as the insured's → the request and its sign case",
      params: { type: 'object', required: ['insuranceNumber'], properties: { insuranceNumber: { type: 'string', minLength: 1, maxLength: 64 } } },
      body: {
        type: 'object', additionalProperties: false, required: ['period', 'firstMonth', 'accountNumber'],
        properties: {
          period: { type: 'string', pattern: '^(\\d{1,3}[ym]|life-long)$', description: 'The payout period: years as "10y" or months as "36m", one the product offers (GET /Product)', examples: ['10y'] },
          firstMonth: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: "The month of the first payout (paid by its 22nd): not before payout can begin, and one whose payout run has not been made", examples: ['2027-01'] },
          accountNumber: { type: 'string', pattern: '^\\d{1,20}$', description: "The account paid to, registered and validated as the insured's (POST /Customer/{account}/WithdrawalAccount): clearing number and account number, digits only" },
        },
      },
      response: { 201: { $ref: 'PayoutRequest#' }, 400: problem, 401: problem, 404: problem, 409: problem, 422: problem },
    },
  }, async (request, reply) => {
    const { insuranceNumber } = request.params as { insuranceNumber: string };
    const body = request.body as { period: string; firstMonth: string; accountNumber: string };
    const read = readPayoutRequest({ period: body.period, firstMonth: body.firstMonth, withdrawalAccount: body.accountNumber });
    if ('problems' in read) return sendProblem(reply, 'REQUEST_INVALID', read.problems.join('; '));
    const caller = callerOf(request);
    const now = clock();
    const outcome = await makePayoutRequest(db, { insuranceNumber, request: read, requestedBy: `client:${caller.clientId}`, now }, accessGate(caller, now, 'act'));
    if (!outcome.made) {
      if ('notFound' in outcome) throw notAvailable();
      const [first] = outcome.problems;
      return sendProblem(reply, first!.code, first!.message, outcome.problems.map((p) => ({ path: PROBLEM_PATHS[p.field], code: p.code, message: p.message })));
    }
    const created = await findPayoutRequest(db, outcome.requestId);
    return reply.code(201).header('location', `/Insurance/payoutrequest/${outcome.requestId}`).send(payoutRequestView(created!));
  });

  app.get('/Insurance/payoutrequest/:id', {
    schema: {
      tags: ['payouts'], summary: 'A payout request: its status, sign case and history',
      params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } },
      response: { 200: { $ref: 'PayoutRequest#' }, 401: problem, 404: problem },
    },
  }, async (request) => {
    const found = await findPayoutRequest(db, (request.params as { id: string }).id, accessGate(callerOf(request), clock(), 'read'));
    if (!found) throw notAvailable();
    return payoutRequestView(found);
  });
}

export function payoutRequestView(request: PayoutRequestRecord) {
  return {
    requestId: request.requestId, signCaseId: request.signCaseId, insuranceNumber: request.insuranceNumber, insured: request.insuredPin, customerId: request.policyholder,
    period: periodText(request.months), months: request.months, firstMonth: request.firstMonth, accountNumber: request.accountNumber, bankName: request.bankName,
    status: request.status, requestedAt: request.requestedAt, history: request.history,
  };
}
