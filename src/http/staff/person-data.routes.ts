import type { FastifyInstance } from 'fastify';
import { stockholmDate } from '../../core/calendar-date.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import { isValidPersonalIdentityNumber } from '../../core/identifiers.ts';
import type { Engagement } from '../../core/engagement.ts';
import { readEngagement } from '../../ledger/plan/engagement.repository.ts';
import { collectPersonData, holdsAnything, type PersonData } from '../../ledger/staff/person-data.repository.ts';
import { appendStaffAudit } from '../../ledger/staff/staff-audit.repository.ts';
import type { Database } from '../../ledger/database.ts';
import type { KnownParties } from '../../ledger/plan/insurance-view.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { staffUserOf } from './staff-user.ts';

/** What a subject-access export holds: the person's rows and documents, and their engagement as the direct query gives it. */
export interface PersonDataExport extends PersonData {
  readonly exportedAt: string;
  readonly exportedBy: string;
  readonly engagement: Engagement;
}

/**
 * GET /api/persons/{pin}/data (staff): everything the gateway holds on a person, for a
 * subject-access request (docs/operations.md, "Personal data"). Each export is recorded
 * in the staff audit log (`person-data-export`, the person's number as subject) in the
 * transaction that reads it; a person the gateway holds nothing on is PERSON_NOT_FOUND.
 */
export async function registerPersonDataRoutes(app: FastifyInstance, options: HttpServerOptions): Promise<void> {
  const { deps, config } = options;
  app.get<{ Params: { pin: string } }>('/api/persons/:pin/data', async (request) => {
    const username = request.staff?.username ?? staffUserOf(request).slice('staff:'.length);
    return exportPersonData(deps.db, request.params.pin, { username, now: deps.clock(), parties: config });
  });
}

/** The export, recorded in the audit log with it; the route's and the in-process CLI's. */
export async function exportPersonData(db: Database, pin: string, by: { readonly username: string; readonly now: Date; readonly parties: KnownParties }): Promise<PersonDataExport> {
  if (!/^\d{12}$/.test(pin) || !isValidPersonalIdentityNumber(pin)) {
    throw new GatewayError('PERSONAL_IDENTITY_NUMBER_INVALID', 'A personal identity number is 12 digits (YYYYMMDDNNNC) with a valid date and check digit.');
  }
  return db.transaction(async (tx) => {
    const data = await collectPersonData(tx, pin);
    if (!holdsAnything(data)) throw new GatewayError('PERSON_NOT_FOUND', 'The gateway holds nothing on this personal identity number: no ledger row names it and no applied document did.');
    const engagement = await readEngagement(tx, pin, stockholmDate(by.now), by.parties);
    await appendStaffAudit(tx, { at: by.now, username: by.username, action: 'person-data-export', subject: pin, reason: null, outcome: 'done' });
    return { ...data, exportedAt: by.now.toISOString(), exportedBy: by.username, engagement };
  });
}
