import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseBankAccount } from '../../core/bank-account.ts';
import type { YieldTaxRateTable } from '../../core/charges/yield-tax-rates.ts';
import { renderWithdrawalReceipt, type WithdrawalReceipt } from '../../documents/withdrawal-receipt.ts';
import type { Database } from '../../ledger/database.ts';
import { findSignCase } from '../../ledger/advice/sign-cases.repository.ts';
import { findWithdrawalRequest, type WithdrawalRequestRecord } from '../../ledger/advice/withdrawal-requests.repository.ts';
import { makeWithdrawalRequest } from '../../requests/withdrawal-request.ts';
import { callerOf, notAvailable } from './api-auth.ts';
import { accessGate } from './customer-access.ts';
import { sendProblem } from './problem-details.ts';

/**
 * Withdrawal requests over the REST API: POST /Insurance/withdrawalrequest asks for a
 * withdrawal (the insurance, an amount within today's bounds, an account validated for
 * the policyholder) and answers the request id and its sign case; GET …/{id} gives the
 * status and history, GET …/{id}/receipt the receipt to show before signing (JSON, or
 * PDF when the client accepts application/pdf first).
 *
 * The request is checked and saved as every request is (src/requests/withdrawal-request.ts):
 * in one transaction holding the insurance's row; a refused request saves nothing.
 * Access is the policyholder's, as for the withdrawal information: a firm with a power
 * of attorney valid today, or the custodian holding the insurance.
 */
export interface WithdrawalRequestRouteOptions {
  readonly db: Database;
  readonly clock: () => Date;
  readonly yieldTaxRates?: YieldTaxRateTable;
}

const problem = { $ref: 'Problem#' } as const;
const idParam = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } } as const;

export async function registerWithdrawalRequestRoutes(app: FastifyInstance, options: WithdrawalRequestRouteOptions): Promise<void> {
  const { db, clock } = options;

  async function visibleRequest(request: FastifyRequest): Promise<WithdrawalRequestRecord> {
    const found = await findWithdrawalRequest(db, (request.params as { id: string }).id, accessGate(callerOf(request), clock(), 'read'));
    if (!found) throw notAvailable();
    return found;
  }

  app.post('/Insurance/withdrawalrequest', {
    schema: {
      tags: ['withdrawals'], summary: 'Request a withdrawal: the insurance, an amount within its bounds today, a validated account of the policyholder → the request and its sign case',
      body: {
        type: 'object', additionalProperties: false, required: ['insuranceNumber', 'amount', 'accountNumber'],
        properties: {
          insuranceNumber: { type: 'string', minLength: 1, maxLength: 64 },
          amount: { type: 'string', pattern: '^\\d{1,12}(\\.\\d{1,2})?$', description: 'SEK, a decimal string', examples: ['12500.00'] },
          accountNumber: { type: 'string', pattern: '^\\d{1,20}$', description: 'The validated withdrawal account: clearing number and account number, digits only' },
        },
      },
      response: { 201: { $ref: 'WithdrawalRequest#' }, 400: problem, 401: problem, 404: problem, 422: problem },
    },
  }, async (request, reply) => {
    const body = request.body as { insuranceNumber: string; amount: string; accountNumber: string };
    const caller = callerOf(request);
    const now = clock();
    const reading = parseBankAccount(body.accountNumber);
    if (!reading.ok) return sendProblem(reply, 'BANK_ACCOUNT_INVALID', reading.problem, [{ path: '$.accountNumber', code: 'BANK_ACCOUNT_INVALID', message: reading.problem }]);
    const outcome = await makeWithdrawalRequest(
      db, { insuranceNumber: body.insuranceNumber, amount: body.amount, account: reading.account, requestedBy: `client:${caller.clientId}`, now, yieldTaxRates: options.yieldTaxRates },
      accessGate(caller, now, 'act'),
    );
    if (!outcome.made) {
      if ('notFound' in outcome) throw notAvailable();
      const [first] = outcome.problems;
      return sendProblem(reply, first!.code, first!.message, outcome.problems);
    }
    const created = await findWithdrawalRequest(db, outcome.requestId);
    return reply.code(201).header('location', `/Insurance/withdrawalrequest/${outcome.requestId}`).send(requestView(created!));
  });

  app.get('/Insurance/withdrawalrequest/:id', {
    schema: { tags: ['withdrawals'], summary: 'A withdrawal request: its status and history', params: idParam, response: { 200: { $ref: 'WithdrawalRequest#' }, 401: problem, 404: problem } },
  }, async (request) => requestView(await visibleRequest(request)));

  app.get('/Insurance/withdrawalrequest/:id/receipt', {
    schema: {
      tags: ['withdrawals'], summary: 'The receipt to show before signing: JSON, or a PDF with Accept: application/pdf', params: idParam,
      response: { 401: problem, 404: problem },
    },
  }, async (request, reply) => {
    const withdrawal = await visibleRequest(request);
    const signCase = await findSignCase(db, withdrawal.signCaseId);
    const receipt: WithdrawalReceipt = {
      requestId: withdrawal.requestId, signCaseId: withdrawal.signCaseId, insuranceNumber: withdrawal.insuranceNumber, customerId: withdrawal.customerId,
      amount: withdrawal.amount, accountNumber: withdrawal.accountNumber, bankName: withdrawal.bankName, requestedAt: withdrawal.requestedAt, status: withdrawal.status,
      signatories: signCase!.signatories.map((s) => ({ role: s.role, personalNumber: s.personalNumber, signed: s.signedAt !== null })), textToSign: signCase!.visibleText,
    };
    if (prefersPdf(request.headers.accept)) {
      return reply.type('application/pdf').header('content-disposition', `inline; filename="${withdrawal.requestId}.pdf"`).send(await renderWithdrawalReceipt(receipt));
    }
    return reply.type('application/json').send(receipt);
  });
}

export function requestView(request: WithdrawalRequestRecord) {
  return {
    requestId: request.requestId, signCaseId: request.signCaseId, insuranceNumber: request.insuranceNumber, customerId: request.customerId,
    amount: request.amount, accountNumber: request.accountNumber, bankName: request.bankName, status: request.status,
    requestedAt: request.requestedAt, history: request.history,
  };
}

/** Whether the Accept header ranks application/pdf above JSON (by q, then by order); no header: JSON. */
export function prefersPdf(accept: string | undefined): boolean {
  const ranked = (accept ?? '').split(',').map((part, index) => {
    const [type = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = Number(parameters.find((parameter) => parameter.startsWith('q='))?.slice(2) ?? '1');
    return { type, q: Number.isFinite(q) ? q : 0, index };
  }).filter((entry) => entry.q > 0 && ['application/pdf', 'application/json', 'application/*', '*/*'].includes(entry.type));
  ranked.sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked[0]?.type === 'application/pdf';
}
