import type { Database, Sql } from '../database.ts';
import type { PowerOfAttorney } from '../../core/access.policy.ts';

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

/**
 * What the access policy needs to decide on a customer: its powers of attorney and the
 * custodians of its insurances — those it holds and those on its life (an employee's
 * occupational pension: the insured registers the account its payout goes to, and starts
 * the payout, through the custodian holding it).
 */
export interface CustomerAccessFacts {
  readonly powers: readonly PowerOfAttorney[];
  readonly custodianIds: readonly string[];
}

/**
 * Two columns, `"accessPowers"` and `"accessCustodianIds"`, holding the access facts of
 * the customer the SQL expression `customer` names (qualified by its table's alias: the
 * subqueries read tables with a `customer_id` of their own). A lookup of a customer's data puts
 * them in its own statement, so the access decision costs no query of its own: an object
 * the caller may not see and one that does not exist take the same work to refuse (one
 * statement each), and their answers cannot be told apart by their timing either.
 */
export function customerAccessColumns(customer: string): string {
  return `(SELECT json_agg(json_build_object('holderOrganisationNumber', poa.holder_organisation_number, 'kind', poa.kind, 'validFrom', poa.valid_from::text,
                                             'validTo', poa.valid_to::text, 'revoked', poa.revoked_at IS NOT NULL))
             FROM powers_of_attorney poa WHERE poa.customer_id = ${customer}) AS "accessPowers",
          ARRAY(SELECT DISTINCT ca.custodian_id FROM insurances ci JOIN custody_accounts ca ON ca.account_number = ci.custody_account
                 WHERE ci.policyholder = ${customer} OR ci.insured_pin = ${customer}) AS "accessCustodianIds"`;
}

/** The columns `customerAccessColumns` adds to a row. */
export interface CustomerAccessRow {
  readonly accessPowers: PowerOfAttorney[] | string | null;
  readonly accessCustodianIds: string[];
}

/** A row read with `customerAccessColumns`, without those columns. */
export function withoutAccessColumns<Row extends Partial<CustomerAccessRow>>(row: Row): Omit<Row, keyof CustomerAccessRow> {
  const rest: Record<string, unknown> = { ...row };
  delete rest.accessPowers;
  delete rest.accessCustodianIds;
  return rest as Omit<Row, keyof CustomerAccessRow>;
}

/** The access facts of a row read with `customerAccessColumns`. */
export function accessFactsOf(row: CustomerAccessRow): CustomerAccessFacts {
  const powers = typeof row.accessPowers === 'string' ? JSON.parse(row.accessPowers) as PowerOfAttorney[] : row.accessPowers;
  return { powers: powers ?? [], custodianIds: row.accessCustodianIds };
}

/**
 * Whether the caller of a lookup may reach an object of a customer — one held at
 * `custodianId` (an insurance, a request on it), or, without one, the customer's own
 * (a withdrawal account) — given the customer's access facts: the access policy's
 * decision, made by the caller (src/core/access.policy.ts) and asked by the repository
 * in the lookup itself.
 */
export type AccessGate = (facts: CustomerAccessFacts, custodianId?: string) => boolean;

/** The access facts of one customer, in one statement (the lookup when the customer itself is what is asked for). */
export async function customerAccessFacts(db: Sql, customerId: string): Promise<CustomerAccessFacts> {
  const { rows } = await db.query<CustomerAccessRow>(`SELECT ${customerAccessColumns('$1::text')}`, [customerId]);
  return accessFactsOf(rows[0]!);
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
