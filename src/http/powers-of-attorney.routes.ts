import type { FastifyInstance } from 'fastify';
import { isIsoDate } from '../core/calendar-date.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { isValidOrganisationNumber, isValidPersonalIdentityNumber } from '../core/identifiers.ts';
import { grantPowerOfAttorney, listPowersOfAttorney, revokePowerOfAttorney, type NewPowerOfAttorney } from '../ledger/powers-of-attorney.repository.ts';
import type { HttpServerOptions } from './server.ts';
import { staffUserOf } from './staff-user.ts';

/**
 * Staff keep the register of powers of attorney: list (by customer or holder), grant,
 * revoke. Each change is audited under the staff user who made it. The access policy
 * of the REST API reads the register at every request, so a change holds at once.
 */
export async function registerPowerOfAttorneyRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;

  app.get<{ Querystring: { customer?: string; holder?: string } }>('/api/powers-of-attorney', async (request) => {
    return listPowersOfAttorney(deps.db, { customerId: request.query.customer, holderOrganisationNumber: request.query.holder });
  });

  app.post<{ Body: unknown }>('/api/powers-of-attorney', async (request, reply) => {
    const power = readNewPower(request.body);
    const granted = await grantPowerOfAttorney(deps.db, power, staffUserOf(request), deps.clock());
    if (!granted) throw new GatewayError('REQUEST_INVALID', `holderOrganisationNumber ${power.holderOrganisationNumber} is not a registered advisor firm.`);
    return reply.code(201).header('location', `/api/powers-of-attorney/${granted.id}`).send(granted);
  });

  app.post<{ Params: { id: string } }>('/api/powers-of-attorney/:id/revoke', async (request) => {
    const revoked = await revokePowerOfAttorney(deps.db, request.params.id, staffUserOf(request), deps.clock());
    if (!revoked) throw new GatewayError('RESOURCE_NOT_FOUND', `No power of attorney ${request.params.id} in force to revoke.`);
    return revoked;
  });
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
