import type { FastifyInstance } from 'fastify';
import { stockholmDate } from '../../core/calendar-date.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import { findInsuranceView, type InsuranceView, type KnownParties } from '../../ledger/plan/insurance-view.repository.ts';
import type { Sql } from '../../ledger/database.ts';
import type { HttpServerOptions } from '../server-options.ts';

/**
 * The staff view of any one insurance: GET /api/insurances/:number — policyholder,
 * insured, product, coverages, custody account and custodian, status and end, payout
 * (when it can begin, the payout registered and its orders), death benefit, withdrawal
 * requests and every debit line (src/ledger/plan/insurance-view.repository.ts). Whatever
 * made the insurance: an employer's purchase under an agreement, or an application
 * through the REST API, which belongs to no agreement and so is not in the person
 * view. Read-only, behind staff auth; an unknown number is RESOURCE_NOT_FOUND.
 */
export async function registerInsuranceViewRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  app.get<{ Params: { number: string } }>('/api/insurances/:number', async (request) =>
    insuranceOrThrow(deps.db, request.params.number, stockholmDate(deps.clock()), options.config));
}

/** The view, or RESOURCE_NOT_FOUND: what the staff API, the console and the CLI in-process answer alike. */
export async function insuranceOrThrow(sql: Sql, insuranceNumber: string, today: string, parties: KnownParties): Promise<InsuranceView> {
  const view = await findInsuranceView(sql, insuranceNumber, today, parties);
  if (!view) throw new GatewayError('RESOURCE_NOT_FOUND', `No insurance ${insuranceNumber}.`);
  return view;
}
