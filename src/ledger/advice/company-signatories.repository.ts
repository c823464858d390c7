import type { Database, Sql } from '../database.ts';
import type { IsoDate } from '../../core/calendar-date.ts';

/**
 * The register of company signatories (migration 0028): who may sign for an
 * organisation policyholder, from when to when, and the organisation's signing rule (how
 * many must sign together). Staff keep it (staff API, CLI); rows are never deleted — a
 * revoked signatory keeps its row with who revoked it — and every change is written to
 * `company_signatory_changes` in the same transaction (who, when, what).
 */
export interface CompanySignatoryRow {
  readonly id: string;
  readonly organisationNumber: string;
  readonly personalNumber: string;
  readonly name: string;
  readonly validFrom: IsoDate;
  readonly validTo: IsoDate | null;
  readonly createdAt: string;
  readonly createdBy: string;
  readonly revokedAt: string | null;
  readonly revokedBy: string | null;
}

export interface NewCompanySignatory {
  readonly organisationNumber: string;
  readonly personalNumber: string;
  readonly name: string;
  readonly validFrom: IsoDate;
  readonly validTo: IsoDate | null;
}

export interface CompanySigningRegister {
  readonly organisationNumber: string;
  /** How many signatories in force must sign together; null until staff set it. */
  readonly requiredSignatures: number | null;
  readonly signatories: readonly CompanySignatoryRow[];
}

const COLUMNS = `id::text AS id, organisation_number AS "organisationNumber", personal_number AS "personalNumber", name,
  valid_from::text AS "validFrom", valid_to::text AS "validTo", created_at AS "createdAt", created_by AS "createdBy",
  revoked_at AS "revokedAt", revoked_by AS "revokedBy"`;

/** The organisation's signatories, revoked ones included, and its signing rule. */
export async function companySigningRegister(sql: Sql, organisationNumber: string): Promise<CompanySigningRegister> {
  const [signatories, rule] = await Promise.all([
    sql.query<CompanySignatoryRow>(`SELECT ${COLUMNS} FROM company_signatories WHERE organisation_number = $1 ORDER BY valid_from, id`, [organisationNumber]),
    sql.query<{ required: number }>('SELECT required_signatures AS required FROM company_signing_rules WHERE organisation_number = $1', [organisationNumber]),
  ]);
  return { organisationNumber, requiredSignatures: rule.rows[0]?.required ?? null, signatories: signatories.rows.map(withIsoTimes) };
}

export async function registerCompanySignatory(db: Database, signatory: NewCompanySignatory, by: string, at: Date): Promise<CompanySignatoryRow> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<CompanySignatoryRow>(
      `INSERT INTO company_signatories (organisation_number, personal_number, name, valid_from, valid_to, created_at, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [signatory.organisationNumber, signatory.personalNumber, signatory.name, signatory.validFrom, signatory.validTo, at.toISOString(), by],
    );
    await audit(tx, signatory.organisationNumber, 'registered', by, at, { id: rows[0]!.id, ...signatory });
    return withIsoTimes(rows[0]!);
  });
}

/** Revokes a signatory of the organisation from now on; undefined when there is none with that id or it is revoked already. */
export async function revokeCompanySignatory(db: Database, organisationNumber: string, id: string, by: string, at: Date, reason?: string): Promise<CompanySignatoryRow | undefined> {
  if (!/^\d{1,18}$/.test(id)) return undefined;
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<CompanySignatoryRow>(
      `UPDATE company_signatories SET revoked_at = $3, revoked_by = $4 WHERE organisation_number = $1 AND id = $2 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
      [organisationNumber, id, at.toISOString(), by],
    );
    const row = rows[0];
    if (!row) return undefined;
    await audit(tx, organisationNumber, 'revoked', by, at, { id, ...(reason === undefined ? {} : { reason }) });
    return withIsoTimes(row);
  });
}

/** Sets how many signatories in force must sign together for the organisation. */
export async function setCompanySigningRule(db: Database, organisationNumber: string, requiredSignatures: number, by: string, at: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO company_signing_rules (organisation_number, required_signatures, set_at, set_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (organisation_number) DO UPDATE SET required_signatures = EXCLUDED.required_signatures, set_at = EXCLUDED.set_at, set_by = EXCLUDED.set_by`,
      [organisationNumber, requiredSignatures, at.toISOString(), by],
    );
    await audit(tx, organisationNumber, 'rule-set', by, at, { requiredSignatures });
  });
}

async function audit(tx: Sql, organisationNumber: string, change: 'registered' | 'revoked' | 'rule-set', by: string, at: Date, details: object): Promise<void> {
  await tx.query(
    'INSERT INTO company_signatory_changes (organisation_number, change, changed_at, changed_by, details) VALUES ($1, $2, $3, $4, $5)',
    [organisationNumber, change, at.toISOString(), by, JSON.stringify(details)],
  );
}

function withIsoTimes(row: CompanySignatoryRow): CompanySignatoryRow {
  const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : (value as string | null));
  return { ...row, createdAt: iso(row.createdAt)!, revokedAt: iso(row.revokedAt) };
}
