import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/gateway-error.ts';
import { periodText, readPayoutRequest } from '../../core/payout-start.ts';
import type { Database } from '../../ledger/database.ts';
import { findPayoutStartFacts } from '../../ledger/plan/payout-start.repository.ts';
import { closeOpenRequest } from '../../requests/payout-request.ts';
import { checkPayoutStart } from '../../requests/payout-start-check.ts';
import { schedulePayout } from '../../calendar/payout-run.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { staffUserOf } from './staff-user.ts';

/**
 * Staff register the payout an insured person started (on a paper form or in the
 * e-service) once payout can begin:
 * POST /api/insurances/<number>/payout `{"period": "10y", "firstMonth": "2035-02", "withdrawalAccount": "50001234567"}`.
 * The period (`10y`, `36m`) is one the product offers (5, 10 and 20 years unless it says otherwise); the first month's payout day may not
 * fall before the day payout can begin, nor have passed, nor its payout run have been
 * made; the account (clearing number and account number, digits only) is registered in
 * advance and validated as the insured's (src/requests/payout-start-check.ts). Recorded
 * once, under the staff user and time (payouts.registered_by, created_at), and an open
 * payout request of the insured is closed; from the first month on, the monthly payout
 * run (src/calendar/payout-run.ts) orders a sell order and a payout until it is paid out.
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
    const checked = await checkPayoutStart(tx, facts, read, now);
    if (!checked.ok) {
      const [first] = checked.problems;
      throw new GatewayError(first.code, first.field === 'account' ? `withdrawalAccount: ${first.message}` : first.message, { details: { insuranceNumber } });
    }
    const { months, firstMonth, account } = checked.accepted;
    await schedulePayout(tx, {
      insuranceNumber, startMonth: firstMonth, terms: { months },
      registration: { withdrawalAccount: account.digits, registeredBy: by },
    }, now);
    await closeOpenRequest(tx, insuranceNumber, `A payout was registered by ${by}.`, by, now);
    return {
      insuranceNumber, canBegin: checked.canBegin, period: periodText(months), months, firstMonth, withdrawalAccount: account.digits, bankName: account.bankName,
      registeredBy: by, registeredAt: now.toISOString(),
    };
  });
}
