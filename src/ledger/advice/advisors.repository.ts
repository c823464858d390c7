import type { Sql } from '../database.ts';

/** Advisors (insurance intermediaries), the firm each acts for and its office. */
export interface AdvisorRow {
  readonly advisorCode: string;
  readonly advisorName: string;
  readonly advisorPersonalNumber: string;
  readonly advisorIsActive: boolean;
  readonly advisorOrganisationNumber: string;
  readonly advisorOrganisationName: string;
  readonly advisorOfficeCode: string | null;
  readonly advisorOfficeName: string | null;
}

export async function findAdvisor(db: Sql, advisorCode: string): Promise<AdvisorRow | undefined> {
  const { rows } = await db.query<AdvisorRow>(
    `SELECT a.advisor_code AS "advisorCode", a.name AS "advisorName", a.personal_identity_number AS "advisorPersonalNumber",
            a.active AS "advisorIsActive", f.organisation_number AS "advisorOrganisationNumber", f.name AS "advisorOrganisationName",
            o.office_code AS "advisorOfficeCode", o.name AS "advisorOfficeName"
       FROM advisors a
       JOIN advisor_firms f ON f.organisation_number = a.organisation_number
       LEFT JOIN advisor_offices o ON o.office_code = a.office_code
      WHERE a.advisor_code = $1`,
    [advisorCode],
  );
  return rows[0];
}
