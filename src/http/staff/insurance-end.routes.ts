import type { FastifyInstance } from 'fastify';
import { addDays, isIsoDate, stockholmDate } from '../../core/calendar-date.ts';
import { readBeneficiary } from '../../core/death-benefit.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import { INSURANCE_END_CAUSES, type EndOutcome, type InsuranceEnd, type InsuranceEndCause } from '../../ledger/plan/insurance-end.repository.ts';
import { recordEndWithLeaflet } from '../../requests/transfer-leaflet-out.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { staffUserOf } from './staff-user.ts';

/**
 * Staff record that an insurance has ended when no flow of the gateway records it: the
 * insured's death, a move to another insurer (a Transfer moves within the insurer and
 * ends nothing), and a surrender (a withdrawal request never empties the account: its
 * largest amount leaves what the debit runs have yet to take). A payout ends itself
 * (payout-run.ts).
 * POST /api/insurances/<number>/end `{"cause": "death", "date": "2026-10-15"}` — the
 * date is the last day in force. The end is audited under the staff user (ended_by,
 * end_recorded_at); from it on the debit runs charge only to that day and the payout
 * run makes no more orders. An end is recorded once: a second is refused with
 * INSURANCE_ALREADY_ENDED. A death of the insured of a capital insurance with
 * repayment protection and no payout registered records its death benefit in the same
 * transaction (the answer's `deathBenefit`: the custody value the next payout run sells
 * and pays out in full, and the insurer's 1 %), with its beneficiary when the body names
 * one (`"beneficiary": {"name": "…", "account": "50001234560"}`; otherwise recorded later,
 * death-benefits.routes.ts); any other end orders nothing more. A move to another
 * insurer that names it (`"receivingInsurer": "<counterparty id>"`, a counterparty of role
 * `insurer`) sends that insurer the insurance's transfer leaflet, recorded with the end
 * (requests/transfer-leaflet-out.ts; the answer's `transferLeaflet`).
 */
export async function registerInsuranceEndRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  app.post<{ Params: { number: string }; Body: unknown }>('/api/insurances/:number/end', async (request, reply) => {
    const now = deps.clock();
    const { cause, date, beneficiary, receivingInsurer } = readInsuranceEnd(request.body, stockholmDate(now));
    const insuranceNumber = request.params.number;
    const outcome = await recordEndWithLeaflet(deps, { insuranceNumber, endDate: date, cause, endedBy: staffUserOf(request), beneficiary, receivingInsurer }, now);
    return reply.code(201).send(endedOrThrow(insuranceNumber, outcome));
  });
}

/** The end recorded, or the refusal as the error the staff API and the CLI answer with. */
export function endedOrThrow<Ended extends InsuranceEnd>(insuranceNumber: string, outcome: EndOutcome<Ended>): Ended {
  if ('unknown' in outcome) throw new GatewayError('RESOURCE_NOT_FOUND', `No insurance ${insuranceNumber}.`);
  if ('beforeStart' in outcome) throw new GatewayError('REQUEST_INVALID', `date: on or after the insurance's start, ${outcome.beforeStart}`);
  if ('alreadyEnded' in outcome) {
    const { endDate, cause, endedBy } = outcome.alreadyEnded;
    throw new GatewayError('INSURANCE_ALREADY_ENDED', `Insurance ${insuranceNumber} ended ${endDate} (${cause}), recorded by ${endedBy}.`);
  }
  return outcome.ended;
}

/**
 * The body of an end, checked: every problem named at once. The date may not lie after
 * `today`. A death may name the beneficiary of its death benefit, `beneficiary: { name,
 * account }` (readBeneficiary): an account the bank rules refuse is BANK_ACCOUNT_INVALID.
 */
export function readInsuranceEnd(
  body: unknown, today: string,
): { cause: InsuranceEndCause; date: string; beneficiary?: { name: string; account: string }; receivingInsurer?: string } {
  const value = (body ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  const cause = value.cause;
  const date = value.date;
  if (typeof cause !== 'string' || !(INSURANCE_END_CAUSES as readonly string[]).includes(cause)) problems.push(`cause: one of ${INSURANCE_END_CAUSES.join(', ')}`);
  if (typeof date !== 'string' || !isIsoDate(date) || addDays(date, 0) !== date) problems.push('date: the last day in force, YYYY-MM-DD');
  else if (date > today) problems.push(`date: not after today (${today}): an end is recorded once it has happened`);
  const reading = value.beneficiary === undefined ? undefined : readBeneficiary(value.beneficiary);
  if (reading && cause !== 'death') problems.push('beneficiary: only a death has one');
  const receivingInsurer = value.receivingInsurer;
  if (receivingInsurer !== undefined && (typeof receivingInsurer !== 'string' || receivingInsurer === '')) problems.push('receivingInsurer: the counterparty id of the insurer it moves to');
  else if (receivingInsurer !== undefined && cause !== 'transferred-out') problems.push('receivingInsurer: only a move to another insurer (transferred-out) has one');
  else if (reading && !reading.ok && reading.code === 'REQUEST_INVALID') problems.push(reading.problem);
  if (problems.length > 0) throw new GatewayError('REQUEST_INVALID', problems.join('; '));
  if (reading && !reading.ok) throw new GatewayError(reading.code, reading.problem);
  const beneficiary = reading?.ok ? { name: reading.beneficiary.name, account: reading.beneficiary.account.digits } : undefined;
  return {
    cause: cause as InsuranceEndCause, date: date as string, ...(beneficiary ? { beneficiary } : {}),
    ...(typeof receivingInsurer === 'string' ? { receivingInsurer } : {}),
  };
}
