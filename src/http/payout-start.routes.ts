import type { FastifyInstance } from 'fastify';
import { stockholmDate } from '../core/calendar-date.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { checkPayoutRequest, payoutCanBegin, periodText, readPayoutRequest } from '../core/payout-start.ts';
import type { Database } from '../ledger/database.ts';
import { findPayoutStartFacts } from '../ledger/payout-start.repository.ts';
import { schedulePayout } from '../pipeline/payout-run.ts';
import type { HttpServerOptions } from './server.ts';
import { staffUserOf } from './staff-user.ts';

/**
 * Staff register the payout an insured person started (on a paper form or in the
 * e-service) once payout can begin:
 * POST /api/insurances/<number>/payout `{"period": "10y", "firstMonth": "2035-02", "withdrawalAccount": "50001234567"}`.
 * The period (`10y`, `36m`) is one the product offers (5, 10 and 20 years unless it says otherwise); the first month's payout day may not
 * fall before the day payout can begin; the account is a Swedish bank account (clearing
 * number and account number, digits only). Recorded once, under the staff user and
 * time (payouts.registered_by, created_at); from the first month on, the monthly payout
 * run (src/pipeline/payout-run.ts) orders a sell order and a payout until it is paid out.
 */
export async function registerPayoutStartRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  app.post<{ Params: { number: string }; Body: unknown }>('/api/insurances/:number/payout', async (request, reply) => {
    const registered = await registerPayout(deps.db, request.params.number, request.body, staffUserOf(request), deps.clock());
    return reply.code(201).send(registered);
  });
}

/** The payout as registered: what the API answers and the CLI prints. */
export interface RegisteredPayout {
  readonly insuranceNumber: string;
  readonly canBegin: string;
  /** The payout period as staff write it (`10y`) and in months. */
  readonly period: string;
  readonly months: number;
  readonly firstMonth: string;
  readonly withdrawalAccount: string;
  readonly bankName: string;
  readonly registeredBy: string;
  readonly registeredAt: string;
}

/** Checks and records a payout in one transaction; every refusal is a GatewayError with its code. */
export async function registerPayout(db: Database, insuranceNumber: string, body: unknown, by: string, now: Date): Promise<RegisteredPayout> {
  const read = readPayoutRequest(body);
  if ('problems' in read) throw new GatewayError('REQUEST_INVALID', read.problems.join('; '));
  return db.transaction(async (tx) => {
    await tx.query('SELECT 1 FROM insurances WHERE insurance_number = $1 FOR UPDATE', [insuranceNumber]);
    const facts = await findPayoutStartFacts(tx, insuranceNumber);
    if (!facts) throw new GatewayError('RESOURCE_NOT_FOUND', `No insurance ${insuranceNumber}.`);
    if (facts.endDate !== null) throw new GatewayError('INSURANCE_ALREADY_ENDED', `Insurance ${insuranceNumber} ended ${facts.endDate}.`);
    if (facts.inPayout) {
      const { rows } = await tx.query<{ startMonth: string; by: string | null }>('SELECT start_month AS "startMonth", registered_by AS by FROM payouts WHERE insurance_number = $1', [insuranceNumber]);
      throw new GatewayError('PAYOUT_ALREADY_REGISTERED', `Insurance ${insuranceNumber} is in payout from ${rows[0]?.startMonth}, registered by ${rows[0]?.by ?? 'the gateway'}.`);
    }
    const canBegin = payoutCanBegin(facts);
    const checked = checkPayoutRequest(read, { offeredMonths: facts.offeredMonths, canBegin, today: stockholmDate(now) });
    if ('refused' in checked) throw new GatewayError(checked.refused.code, checked.refused.message, { details: { insuranceNumber } });
    const { months, firstMonth, account } = checked.accepted;
    await schedulePayout(tx, {
      insuranceNumber, startMonth: firstMonth, terms: { months },
      registration: { withdrawalAccount: account.digits, registeredBy: by },
    }, now);
    return {
      insuranceNumber, canBegin, period: periodText(months), months, firstMonth, withdrawalAccount: account.digits, bankName: account.bankName,
      registeredBy: by, registeredAt: now.toISOString(),
    };
  });
}
