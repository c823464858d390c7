import type { RegisteredPower } from '../../core/direct-query.policy.ts';
import type { Sql } from '../database.ts';

/**
 * The direct queries' side of the ledger: the powers of attorney a query is decided on,
 * and the record of every query answered (migration 0043, `direct_queries`), which staff
 * list newest first.
 */

/**
 * Every power of attorney registered on a customer, revoked and expired ones included,
 * with its id: one statement, the same for a customer nobody holds a power on and for
 * one that does not exist, so a refusal costs what a miss costs.
 */
export async function powersOnCustomer(sql: Sql, customerId: string): Promise<RegisteredPower[]> {
  const { rows } = await sql.query<RegisteredPower>(
    `SELECT id::text AS id, holder_organisation_number AS "holderOrganisationNumber", kind, valid_from::text AS "validFrom",
            valid_to::text AS "validTo", revoked_at IS NOT NULL AS revoked
       FROM powers_of_attorney WHERE customer_id = $1`,
    [customerId],
  );
  return rows;
}

export interface DirectQueryRecord {
  readonly queriedAt: Date;
  readonly firmOrganisationNumber: string;
  readonly clientId: string;
  readonly customerId: string;
  readonly power: { readonly id: string; readonly kind: 'information' | 'intermediation' };
  readonly answeredAs: 'json' | 'xml';
  readonly insuranceCount: number;
}

/** Records one direct query; its id. */
export async function recordDirectQuery(sql: Sql, query: DirectQueryRecord): Promise<string> {
  const { rows } = await sql.query<{ id: string }>(
    `INSERT INTO direct_queries (queried_at, firm_organisation_number, client_id, customer_id, power_of_attorney_id, power_kind, answered_as, insurance_count)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id::text AS id`,
    [query.queriedAt.toISOString(), query.firmOrganisationNumber, query.clientId, query.customerId, query.power.id, query.power.kind, query.answeredAs, query.insuranceCount],
  );
  return rows[0]!.id;
}

export interface DirectQueryRow {
  readonly id: string;
  readonly queriedAt: string;
  readonly firmOrganisationNumber: string;
  readonly clientId: string;
  readonly customerId: string;
  readonly powerOfAttorneyId: string;
  readonly powerKind: 'information' | 'intermediation';
  readonly answeredAs: 'json' | 'xml';
  readonly insuranceCount: number;
}

export interface DirectQueryFilter {
  readonly customerId?: string;
  readonly firmOrganisationNumber?: string;
  /** At most this many, newest first (default 200). */
  readonly limit?: number;
}

/** The direct queries recorded, newest first. */
export async function listDirectQueries(sql: Sql, filter: DirectQueryFilter = {}): Promise<DirectQueryRow[]> {
  const { rows } = await sql.query<Omit<DirectQueryRow, 'queriedAt'> & { queriedAt: string | Date }>(
    `SELECT id::text AS id, queried_at AS "queriedAt", firm_organisation_number AS "firmOrganisationNumber", client_id AS "clientId",
            customer_id AS "customerId", power_of_attorney_id::text AS "powerOfAttorneyId", power_kind AS "powerKind",
            answered_as AS "answeredAs", insurance_count AS "insuranceCount"
       FROM direct_queries
      WHERE ($1::text IS NULL OR customer_id = $1) AND ($2::text IS NULL OR firm_organisation_number = $2)
      ORDER BY queried_at DESC, id DESC
      LIMIT $3`,
    [filter.customerId ?? null, filter.firmOrganisationNumber ?? null, filter.limit ?? 200],
  );
  return rows.map((row) => ({ ...row, queriedAt: row.queriedAt instanceof Date ? row.queriedAt.toISOString() : new Date(row.queriedAt).toISOString() }));
}
