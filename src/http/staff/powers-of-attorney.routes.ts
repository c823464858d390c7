import type { FastifyInstance } from 'fastify';
import { isIsoDate } from '../../core/calendar-date.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import { isValidOrganisationNumber, isValidPersonalIdentityNumber } from '../../core/identifiers.ts';
import { grantPowerOfAttorney, listPowersOfAttorney, revokePowerOfAttorney, type NewPowerOfAttorney } from '../../ledger/advice/powers-of-attorney.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { staffUserOf } from './staff-user.ts';

/**
 * Staff keep the register of powers of attorney: list (by customer or holder), grant,
 * revoke (with a reason, if given). Each change is audited under the staff user who
 * made it. The access policy of the REST API reads the register at every request, so a
 * change holds at once.
 */
export async function registerPowerOfAttorneyRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;

  app.get<{ Querystring: { customer?: string; holder?: string } }>('/api/powers-of-attorney', async (request) => {
    return listPowersOfAttorney(deps.db, { customerId: request.query.customer, holderOrganisationNumber: request.query.holder });
  });

  app.post<{ Body: unknown }>('/api/powers-of-attorney', async (request, reply) => {
    const power = readNewPower(request.body);
    const granted = await grantPowerOfAttorney(deps.db, power, staffUserOf(request), deps.clock());
    if (!granted) throw new GatewayError('REQUEST_INVALID', notAnAdvisorFirm(power.holderOrganisationNumber));
    return reply.code(201).header('location', `/api/powers-of-attorney/${granted.id}`).send(granted);
  });

  app.post<{ Params: { id: string }; Body: unknown }>('/api/powers-of-attorney/:id/revoke', async (request) => {
    const reason = readRevokeReason(request.body);
    const revoked = await revokePowerOfAttorney(deps.db, request.params.id, staffUserOf(request), deps.clock(), reason);
    if (!revoked) throw new GatewayError('RESOURCE_NOT_FOUND', notRevocable(request.params.id));
    return revoked;
  });
}

/** The optional reason of a revocation (`{"reason": "…"}`, or no body): text, not blank. */
export function readRevokeReason(body: unknown): string | undefined {
  const reason = (body as { reason?: unknown } | null | undefined)?.reason;
  if (reason === undefined || reason === null) return undefined;
  if (typeof reason !== 'string' || reason.trim() === '') throw new GatewayError('REQUEST_INVALID', 'reason: text, or left out');
  return reason.trim();
}

/** Why a grant was refused although its values are well formed. */
export function notAnAdvisorFirm(holderOrganisationNumber: string): string {
  return `holderOrganisationNumber ${holderOrganisationNumber} is not a registered advisor firm.`;
}

/** Why a revocation found nothing to revoke. */
export function notRevocable(id: string): string {
  return `No power of attorney ${id} in force to revoke.`;
}

/** The body of a grant, checked: every problem named at once. */
export function readNewPower(body: unknown): NewPowerOfAttorney {
  const value = (body ?? {}) as Record<string, unknown>;
  const text = (key: string) => (typeof value[key] === 'string' ? (value[key] as string) : undefined);
  const problems: string[] = [];
  const holder = text('holderOrganisationNumber');
  const customer = text('customerId');
  const kind = text('kind');
  const validFrom = text('validFrom');
  const validTo = value.validTo === undefined || value.validTo === null ? null : text('validTo');
  if (!holder || !isValidOrganisationNumber(holder)) problems.push('holderOrganisationNumber: an organisation number (10 digits)');
  if (!customer || !(isValidPersonalIdentityNumber(customer) || isValidOrganisationNumber(customer))) problems.push('customerId: a personnummer (12 digits) or an organisation number (10 digits)');
  if (kind !== 'information' && kind !== 'intermediation') problems.push('kind: information or intermediation');
  if (!validFrom || !isIsoDate(validFrom)) problems.push('validFrom: a date YYYY-MM-DD');
  if (validTo === undefined || (validTo !== null && !isIsoDate(validTo))) problems.push('validTo: a date YYYY-MM-DD, or left out');
  else if (validTo !== null && validFrom && validTo < validFrom) problems.push('validTo: on or after validFrom');
  if (problems.length > 0) throw new GatewayError('REQUEST_INVALID', problems.join('; '));
  return { holderOrganisationNumber: holder!, customerId: customer!, kind: kind as NewPowerOfAttorney['kind'], validFrom: validFrom!, validTo: validTo ?? null };
}
