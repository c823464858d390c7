import type { FastifyInstance } from 'fastify';
import { parseBankAccount } from '../../core/bank-account.ts';
import { stockholmDate } from '../../core/calendar-date.ts';
import type { YieldTaxRateTable } from '../../core/charges/yield-tax-rates.ts';
import { withdrawalBounds } from '../../core/withdrawal-information.rules.ts';
import type { Database } from '../../ledger/database.ts';
import { withdrawalFactsOf, type InsuranceWithdrawalFacts } from '../../ledger/advice/withdrawal-information.repository.ts';
import { registrationsOfAccount } from '../../ledger/advice/withdrawal-accounts.repository.ts';
import { callerOf, notAvailable } from './api-auth.ts';
import { accessGate } from './customer-access.ts';
import { sendProblem } from './problem-details.ts';

/**
 * What can be withdrawn: for the policyholder of a validated withdrawal account, the
 * insurances that allow a withdrawal today with the smallest and largest amount
 * (GET /Customer/{customerNumber}/WithdrawalInformation, customerNumber being the bank
 * account as for WithdrawalAccount), and for one insurance whether it allows one and
 * the bounds or why not (GET /Insurance/{insuranceNumber}/withdrawalInformation). The
 * rules are src/core/withdrawal-information.rules.ts; the facts come from the ledger
 * (the custodians' latest values, the charges and tax the debit runs have taken).
 *
 * Access is the customer's, and a custodian sees only the insurances held at it.
 */
export interface WithdrawalInformationRouteOptions {
  readonly db: Database;
  readonly clock: () => Date;
  readonly yieldTaxRates?: YieldTaxRateTable;
}

const problem = { $ref: 'Problem#' } as const;

export async function registerWithdrawalInformationRoutes(app: FastifyInstance, options: WithdrawalInformationRouteOptions): Promise<void> {
  const { db, clock } = options;

  app.get('/Customer/:customerNumber/WithdrawalInformation', {
    schema: {
      tags: ['withdrawals'], summary: "The insurances of the validated account's policyholder that allow a withdrawal today, with the smallest and largest amount",
      params: { type: 'object', required: ['customerNumber'], properties: { customerNumber: { type: 'string', pattern: '^\\d{1,20}$', description: 'The bank account, as for WithdrawalAccount' } } },
      response: { 200: { type: 'array', items: { $ref: 'WithdrawalInformation#' } }, 400: problem, 401: problem, 404: problem, 422: problem },
    },
  }, async (request, reply) => {
    const { customerNumber } = request.params as { customerNumber: string };
    const reading = parseBankAccount(customerNumber);
    if (!reading.ok) return sendProblem(reply, 'BANK_ACCOUNT_INVALID', reading.problem, [{ path: '$params.customerNumber', code: 'BANK_ACCOUNT_INVALID', message: reading.problem }]);
    const now = clock();
    const gate = accessGate(callerOf(request), now, 'read');
    const registrations = await registrationsOfAccount(db, reading.account.digits, gate);
    const visibleOwners = [...new Set(registrations.filter((row) => row.status === 'validated').map((row) => row.customerId))];
    if (visibleOwners.length === 0) throw notAvailable();
    const today = stockholmDate(now);
    const insurances = await withdrawalFactsOf(db, { policyholders: visibleOwners }, today, gate);
    return insurances.flatMap((insurance) => {
      const bounds = withdrawalBounds(insurance, today, options.yieldTaxRates);
      return bounds.allowed ? [informationView(insurance, bounds)] : [];
    });
  });

  app.get('/Insurance/:insuranceNumber/withdrawalInformation', {
    schema: {
      tags: ['withdrawals'], summary: 'Whether one insurance allows a withdrawal today: the smallest and largest amount, or why not',
      params: { type: 'object', required: ['insuranceNumber'], properties: { insuranceNumber: { type: 'string', minLength: 1, maxLength: 64 } } },
      response: { 200: { $ref: 'WithdrawalInformation#' }, 400: problem, 401: problem, 404: problem },
    },
  }, async (request) => {
    const { insuranceNumber } = request.params as { insuranceNumber: string };
    const now = clock();
    const today = stockholmDate(now);
    const [insurance] = await withdrawalFactsOf(db, { insuranceNumber }, today, accessGate(callerOf(request), now, 'read'));
    if (!insurance) throw notAvailable();
    return informationView(insurance, withdrawalBounds(insurance, today, options.yieldTaxRates));
  });
}

function informationView(insurance: InsuranceWithdrawalFacts, bounds: ReturnType<typeof withdrawalBounds>) {
  const base = { insuranceNumber: insurance.insuranceNumber, customerId: insurance.policyholder, productId: insurance.productId, taxCategory: insurance.kind };
  if (!bounds.allowed) return { ...base, withdrawalAllowed: false, reason: bounds.reason };
  const { minimum, maximum, value, valueAsOf, reservedForCharges, reservedForTax, requested } = bounds;
  return { ...base, withdrawalAllowed: true, minimum, maximum, value, valueAsOf, reservedForCharges, reservedForTax, requested };
}
