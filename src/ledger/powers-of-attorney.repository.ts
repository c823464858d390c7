import type { Database, Sql } from './database.ts';
import type { PowerOfAttorney } from '../core/access.policy.ts';

/**
 * The register of powers of attorney: which advisor firm may read (information) or act
 * (intermediation) for which customer, from when to when. Staff keep it (CLI, staff
 * API); rows are never deleted — a revoked power keeps its row with who revoked it —
 * and every change is written to `power_of_attorney_changes` in the same transaction.
 */

export interface PowerOfAttorneyRow {
  readonly id: string;
  readonly holderOrganisationNumber: string;
  readonly customerId: string;
  readonly kind: 'information' | 'intermediation';
  readonly validFrom: string;
  readonly validTo: string | null;
  readonly createdAt: string;
  readonly createdBy: string;
  readonly revokedAt: string | null;
  readonly revokedBy: string | null;
}

export interface NewPowerOfAttorney {
  readonly holderOrganisationNumber: string;
  readonly customerId: string;
  readonly kind: 'information' | 'intermediation';
  readonly validFrom: string;
  readonly validTo: string | null;
}

const COLUMNS = `id::text AS id, holder_organisation_number AS "holderOrganisationNumber", customer_id AS "customerId", kind,
  valid_from::text AS "validFrom", valid_to::text AS "validTo", created_at AS "createdAt", created_by AS "createdBy",
  revoked_at AS "revokedAt", revoked_by AS "revokedBy"`;

export async function listPowersOfAttorney(db: Sql, filter: { customerId?: string; holderOrganisationNumber?: string }): Promise<PowerOfAttorneyRow[]> {
  const { rows } = await db.query<PowerOfAttorneyRow>(
    `SELECT ${COLUMNS} FROM powers_of_attorney
      WHERE ($1::text IS NULL OR customer_id = $1) AND ($2::text IS NULL OR holder_organisation_number = $2)
      ORDER BY customer_id, valid_from, id`,
    [filter.customerId ?? null, filter.holderOrganisationNumber ?? null],
  );
  return rows.map(withIsoTimes);
}

/** Registers a power of attorney; undefined when the holder is not a known advisor firm. */
export async function grantPowerOfAttorney(db: Database, power: NewPowerOfAttorney, by: string, at: Date): Promise<PowerOfAttorneyRow | undefined> {
  return db.transaction(async (tx) => {
    const { rows: firms } = await tx.query('SELECT 1 FROM advisor_firms WHERE organisation_number = $1', [power.holderOrganisationNumber]);
    if (firms.length === 0) return undefined;
    const { rows } = await tx.query<PowerOfAttorneyRow>(
      `INSERT INTO powers_of_attorney (holder_organisation_number, customer_id, kind, valid_from, valid_to, created_at, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [power.holderOrganisationNumber, power.customerId, power.kind, power.validFrom, power.validTo, at.toISOString(), by],
    );
    const row = rows[0]!;
    await audit(tx, row.id, 'granted', by, at, power);
    return withIsoTimes(row);
  });
}

/**
 * Revokes a power of attorney from now on, the reason (when given) kept in its audit
 * row; undefined when there is none with that id or it is already revoked.
 */
export async function revokePowerOfAttorney(db: Database, id: string, by: string, at: Date, reason?: string): Promise<PowerOfAttorneyRow | undefined> {
  if (!/^\d{1,18}$/.test(id)) return undefined;
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<PowerOfAttorneyRow>(
      `UPDATE powers_of_attorney SET revoked_at = $2, revoked_by = $3 WHERE id = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
      [id, at.toISOString(), by],
    );
    const row = rows[0];
    if (!row) return undefined;
    await audit(tx, row.id, 'revoked', by, at, reason === undefined ? {} : { reason });
    return withIsoTimes(row);
  });
}

/** What the access policy needs to decide on a customer: its powers of attorney and the custodians of its insurances. */
export async function customerAccessFacts(db: Sql, customerId: string): Promise<{ powers: PowerOfAttorney[]; custodianIds: string[] }> {
  const [powers, custodians] = await Promise.all([
    db.query<PowerOfAttorney>(
      `SELECT holder_organisation_number AS "holderOrganisationNumber", kind, valid_from::text AS "validFrom", valid_to::text AS "validTo", revoked_at IS NOT NULL AS revoked
         FROM powers_of_attorney WHERE customer_id = $1`,
      [customerId],
    ),
    db.query<{ custodianId: string }>(
      `SELECT DISTINCT a.custodian_id AS "custodianId"
         FROM insurances i JOIN custody_accounts a ON a.account_number = i.custody_account
        WHERE i.policyholder = $1`,
      [customerId],
    ),
  ]);
  return { powers: powers.rows, custodianIds: custodians.rows.map((row) => row.custodianId) };
}

async function audit(tx: Sql, id: string, change: 'granted' | 'revoked', by: string, at: Date, details: object): Promise<void> {
  await tx.query(
    'INSERT INTO power_of_attorney_changes (power_of_attorney_id, change, changed_at, changed_by, details) VALUES ($1, $2, $3, $4, $5)',
    [id, change, at.toISOString(), by, JSON.stringify(details)],
  );
}

/** pg gives timestamps as Date, PGlite too; the API speaks ISO strings. */
function withIsoTimes(row: PowerOfAttorneyRow): PowerOfAttorneyRow {
  const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : (value as string | null));
  return { ...row, createdAt: iso(row.createdAt)!, revokedAt: iso(row.revokedAt) };
}
