import type { FastifyInstance } from 'fastify';
import { isIsoDate } from '../../core/calendar-date.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import { isValidOrganisationNumber, isValidPersonalIdentityNumber } from '../../core/identifiers.ts';
import {
  companySigningRegister, registerCompanySignatory, revokeCompanySignatory, setCompanySigningRule, type NewCompanySignatory,
} from '../../ledger/advice/company-signatories.repository.ts';
import { readRevokeReason } from './powers-of-attorney.routes.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { staffUserOf } from './staff-user.ts';

/**
 * Staff keep the register of an organisation policyholder's company signatories: list
 * (with the signing rule), register, revoke, and set how many must sign together. Each
 * change is audited under the staff user who made it. A withdrawal request of the
 * organisation reads the register when it is made: its sign case lists the signatories
 * in force that day.
 */
export async function registerCompanySignatoryRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps } = options;
  type Org = { Params: { orgnr: string } };

  app.get<Org>('/api/organisations/:orgnr/signatories', async (request) => companySigningRegister(deps.db, readOrganisationNumber(request.params.orgnr)));

  app.post<Org & { Body: unknown }>('/api/organisations/:orgnr/signatories', async (request, reply) => {
    const signatory = readNewSignatory(readOrganisationNumber(request.params.orgnr), request.body);
    const registered = await registerCompanySignatory(deps.db, signatory, staffUserOf(request), deps.clock());
    return reply.code(201).send(registered);
  });

  app.post<{ Params: { orgnr: string; id: string }; Body: unknown }>('/api/organisations/:orgnr/signatories/:id/revoke', async (request) => {
    const reason = readRevokeReason(request.body);
    const orgnr = readOrganisationNumber(request.params.orgnr);
    const revoked = await revokeCompanySignatory(deps.db, orgnr, request.params.id, staffUserOf(request), deps.clock(), reason);
    if (!revoked) throw new GatewayError('RESOURCE_NOT_FOUND', notRevocableSignatory(orgnr, request.params.id));
    return revoked;
  });

  app.put<Org & { Body: unknown }>('/api/organisations/:orgnr/signing-rule', async (request) => {
    const orgnr = readOrganisationNumber(request.params.orgnr);
    await setCompanySigningRule(deps.db, orgnr, readRequiredSignatures(request.body), staffUserOf(request), deps.clock());
    return companySigningRegister(deps.db, orgnr);
  });
}

export function readOrganisationNumber(value: string): string {
  if (!isValidOrganisationNumber(value)) throw new GatewayError('REQUEST_INVALID', `${value}: an organisation number (10 digits)`);
  return value;
}

export function notRevocableSignatory(organisationNumber: string, id: string): string {
  return `No company signatory ${id} of ${organisationNumber} in force to revoke.`;
}

/** `{"requiredSignatures": n}`: how many must sign together, 1 (each alone) to 20. */
export function readRequiredSignatures(body: unknown): number {
  const value = (body as { requiredSignatures?: unknown } | null | undefined)?.requiredSignatures;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 20) throw new GatewayError('REQUEST_INVALID', 'requiredSignatures: a whole number 1 (each alone) to 20');
  return value;
}

/** The body of a registration, checked: every problem named at once. */
export function readNewSignatory(organisationNumber: string, body: unknown): NewCompanySignatory {
  const value = (body ?? {}) as Record<string, unknown>;
  const text = (key: string) => (typeof value[key] === 'string' ? (value[key] as string).trim() : undefined);
  const problems: string[] = [];
  const personalNumber = text('personalNumber');
  const name = text('name');
  const validFrom = text('validFrom');
  const validTo = value.validTo === undefined || value.validTo === null ? null : text('validTo');
  if (!personalNumber || !isValidPersonalIdentityNumber(personalNumber)) problems.push('personalNumber: a personnummer (12 digits)');
  if (!name) problems.push('name: the signatory\'s name');
  if (!validFrom || !isIsoDate(validFrom)) problems.push('validFrom: a date YYYY-MM-DD');
  if (validTo === undefined || (validTo !== null && !isIsoDate(validTo))) problems.push('validTo: a date YYYY-MM-DD, or left out');
  else if (validTo !== null && validFrom && validTo < validFrom) problems.push('validTo: on or after validFrom');
  if (problems.length > 0) throw new GatewayError('REQUEST_INVALID', problems.join('; '));
  return { organisationNumber, personalNumber: personalNumber!, name: name!, validFrom: validFrom!, validTo: validTo ?? null };
}
