import type { FastifyInstance } from 'fastify';
import { readBeneficiary } from '../../core/death-benefit.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import type { Database } from '../../ledger/database.ts';
import { listDeathBenefits, recordBeneficiary, statusOf, type DeathBenefit, type DeathBenefitStatus } from '../../ledger/plan/death-benefits.repository.ts';
import { readApplicationLimit } from './application-review.routes.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { staffUserOf } from './staff-user.ts';

/**
 * Staff record who a death benefit is paid to, when the death was recorded without it
 * (POST /api/insurances/<number>/end takes it too):
 * POST /api/insurances/<number>/death-benefit/beneficiary `{"name": "Eva Svensson", "account": "50001234560"}`.
 * The account is a Swedish bank account by the bank rules, whose IBAN the insurer can
 * pay its 1 % to (BANK_ACCOUNT_INVALID otherwise); it is recorded under the staff user
 * and time, and may be corrected until a payout run has ordered the benefit
 * (DEATH_BENEFIT_ALREADY_ORDERED after). Until it is recorded the benefit waits: no run
 * orders it.
 *
 * GET /api/death-benefits (`?waiting=true`: those not yet paid by both the custodian's
 * order and the insurer's payment order; `limit`, 1–1000, default 100) lists every death
 * benefit, newest first, with its status.
 */
export async function registerDeathBenefitRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  app.post<{ Params: { number: string }; Body: unknown }>('/api/insurances/:number/death-benefit/beneficiary', async (request) => {
    return recordBeneficiaryOf(deps.db, request.params.number, request.body, staffUserOf(request), deps.clock());
  });
  app.get<{ Querystring: { waiting?: string; limit?: string } }>('/api/death-benefits', async (request) => {
    const deathBenefits = await listDeathBenefits(deps.db, { waiting: request.query.waiting === 'true' || request.query.waiting === '', limit: readApplicationLimit(request.query.limit) });
    return { deathBenefits };
  });
}

/** Checks and records a beneficiary in one transaction; every refusal is a GatewayError with its code. */
export async function recordBeneficiaryOf(
  db: Database, insuranceNumber: string, body: unknown, by: string, now: Date,
): Promise<DeathBenefit & { status: DeathBenefitStatus }> {
  const reading = readBeneficiary(body, 'body');
  if (!reading.ok) throw new GatewayError(reading.code, reading.problem);
  const { name, account } = reading.beneficiary;
  const outcome = await db.transaction((tx) => recordBeneficiary(tx, insuranceNumber, { name, account: account.digits }, by, now));
  if ('noBenefit' in outcome) throw new GatewayError('RESOURCE_NOT_FOUND', `No death benefit of ${insuranceNumber}: one is recorded with the death of the insured of a capital insurance with repayment protection.`);
  if ('ordered' in outcome) {
    const { order, beneficiary } = outcome.ordered;
    throw new GatewayError('DEATH_BENEFIT_ALREADY_ORDERED',
      `The death benefit of ${insuranceNumber} was ordered by payout run ${order?.runKey ?? ''}${beneficiary ? `, paid to ${beneficiary.account}` : ''}.`);
  }
  return { ...outcome.recorded, status: statusOf(outcome.recorded) };
}
