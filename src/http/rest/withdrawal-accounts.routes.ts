import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ulid } from 'ulid';
import { parseBankAccount, type BankAccount } from '../../core/bank-account.ts';
import { isValidOrganisationNumber, isValidPersonalIdentityNumber } from '../../core/identifiers.ts';
import { validationDayOf, validationRunAt } from '../../core/withdrawal-account.rules.ts';
import type { Database } from '../../ledger/database.ts';
import { customerAccessFacts } from '../../ledger/advice/powers-of-attorney.repository.ts';
import { registerWithdrawalAccount, registrationsOfAccount, type WithdrawalAccountRow } from '../../ledger/advice/withdrawal-accounts.repository.ts';
import { callerOf, notAvailable } from './api-auth.ts';
import { accessGate } from './customer-access.ts';
import { sendProblem } from './problem-details.ts';

/**
 * Withdrawal accounts over the REST API: register an account for a policyholder's
 * withdrawals (POST /Customer/{customerNumber}/WithdrawalAccount) and read its
 * registrations (GET). `customerNumber` is, as the specification has it, the bank
 * account itself — clearing number and account number, digits only, a Swedbank
 * clearing number without its fifth check digit — checked with the maintained bank
 * rules before anything else (docs/rest.md). The policyholder is named in the body.
 *
 * A registration is `pending` until the 13:00 run of its validation day (before 07:00
 * on a banking day: that day; later: the next banking day) checks it against the
 * policyholder (withdrawal-account-validation.job.ts). Access is the customer's: a firm
 * with a power of attorney valid today (to register one, an intermediation power), or a
 * custodian holding one of the customer's custody accounts; anyone else gets the 404 of
 * an account never registered.
 */
export interface WithdrawalAccountRouteOptions {
  readonly db: Database;
  readonly clock: () => Date;
}

const problem = { $ref: 'Problem#' } as const;
const accountParam = {
  type: 'object', required: ['customerNumber'],
  properties: { customerNumber: { type: 'string', pattern: '^\\d{1,20}$', description: 'The bank account: 4-digit clearing number (Swedbank without its fifth check digit) and account number, digits only', examples: ['50001234560'] } },
} as const;

export async function registerWithdrawalAccountRoutes(app: FastifyInstance, options: WithdrawalAccountRouteOptions): Promise<void> {
  const { db, clock } = options;

  app.post('/Customer/:customerNumber/WithdrawalAccount', {
    schema: {
      tags: ['withdrawals'], summary: "Register a bank account for a policyholder's withdrawals; validated at 13:00 on its validation day", params: accountParam,
      body: { type: 'object', additionalProperties: false, required: ['customerId'], properties: { customerId: { type: 'string', pattern: '^(\\d{10}|\\d{12})$', description: "The policyholder: personnummer (12 digits) or organisationsnummer (10 digits)" } } },
      response: { 200: { $ref: 'WithdrawalAccount#' }, 202: { $ref: 'WithdrawalAccount#' }, 400: problem, 401: problem, 404: problem, 422: problem },
    },
  }, async (request, reply) => {
    const account = accountOf(request, reply);
    if (!account) return reply;
    const { customerId } = request.body as { customerId: string };
    const idProblem = customerIdProblem(customerId);
    if (idProblem) return sendProblem(reply, idProblem.code, idProblem.message, [{ path: '$.customerId', ...idProblem }]);
    const caller = callerOf(request);
    const now = clock();
    if (!accessGate(caller, now, 'act')(await customerAccessFacts(db, customerId))) throw notAvailable();
    const { row, created } = await registerWithdrawalAccount(db, {
      registrationId: `WA-${ulid(now.getTime())}`, customerId, account, registeredAt: now, registeredBy: `client:${caller.clientId}`, validationDay: validationDayOf(now),
    });
    return reply.code(created ? 202 : 200).send(registrationView(row));
  });

  app.get('/Customer/:customerNumber/WithdrawalAccount', {
    schema: {
      tags: ['withdrawals'], summary: 'The registrations of a bank account: validated, pending (with when they are validated) and refused (with why)', params: accountParam,
      response: { 200: { type: 'array', items: { $ref: 'WithdrawalAccount#' } }, 400: problem, 401: problem, 404: problem, 422: problem },
    },
  }, async (request, reply) => {
    const account = accountOf(request, reply);
    if (!account) return reply;
    const visible = await registrationsOfAccount(db, account.digits, accessGate(callerOf(request), clock(), 'read'));
    if (visible.length === 0) throw notAvailable();
    return visible.map(registrationView);
  });
}

/** The account in the path, or undefined once a 422 saying what is wrong with it has been sent. */
function accountOf(request: FastifyRequest, reply: FastifyReply): BankAccount | undefined {
  const { customerNumber } = request.params as { customerNumber: string };
  const reading = parseBankAccount(customerNumber);
  if (reading.ok) return reading.account;
  void sendProblem(reply, 'BANK_ACCOUNT_INVALID', reading.problem, [{ path: '$params.customerNumber', code: 'BANK_ACCOUNT_INVALID', message: reading.problem }]);
  return undefined;
}

function customerIdProblem(customerId: string) {
  if (customerId.length === 12 && !isValidPersonalIdentityNumber(customerId)) {
    return { code: 'PERSONAL_IDENTITY_NUMBER_INVALID' as const, message: `${customerId} is not a personnummer: its date or check digit is wrong` };
  }
  if (customerId.length === 10 && !isValidOrganisationNumber(customerId)) {
    return { code: 'ORGANISATION_NUMBER_INVALID' as const, message: `${customerId} is not an organisationsnummer: its form or check digit is wrong` };
  }
  return undefined;
}

export function registrationView(row: WithdrawalAccountRow) {
  return {
    registrationId: row.registrationId, customerId: row.customerId, accountNumber: row.accountNumber, bankName: row.bankName, status: row.status,
    registeredAt: row.registeredAt, validationAt: validationRunAt(row.validationDay).toISOString(), decidedAt: row.decidedAt, reason: row.refusalReason,
  };
}
