import type { Sql } from './database.ts';

/**
 * Ledger queries for plan administration. Reads load the facts a whole document
 * needs in one query; writes add the accepted items' dated history rows in one
 * statement (unnest over arrays). Dates travel as YYYY-MM-DD, amounts as decimal strings.
 */
export interface AgreementFacts {
  readonly agreementNumber: string;
  readonly employerOrganisationNumber: string;
  readonly administrators: readonly string[];
}

export async function findAgreement(sql: Sql, agreementNumber: string): Promise<AgreementFacts | undefined> {
  const { rows } = await sql.query<{ employer_organisation_number: string; administrators: string[] | null }>(
    `SELECT a.employer_organisation_number,
            array_remove(array_agg(ad.organisation_number), NULL) AS administrators
       FROM agreements a LEFT JOIN agreement_administrators ad USING (agreement_number)
      WHERE a.agreement_number = $1 GROUP BY a.employer_organisation_number`,
    [agreementNumber],
  );
  const row = rows[0];
  if (!row) return undefined;
  return { agreementNumber, employerOrganisationNumber: row.employer_organisation_number, administrators: row.administrators ?? [] };
}

export interface InsuranceFacts {
  readonly insuranceNumber: string;
  readonly insuredPin: string;
  readonly productCode: string;
  readonly startDate: string;
  readonly minFixedCharge: string;
  readonly maxFixedCharge: string;
  readonly minCapitalCharge: string;
  readonly maxCapitalCharge: string;
}

/** The agreement's insurances among `insuranceNumbers`, by number, with their product's fee bounds. */
export async function findInsurances(sql: Sql, agreementNumber: string, insuranceNumbers: readonly string[]): Promise<Map<string, InsuranceFacts>> {
  const { rows } = await sql.query<{
    insurance_number: string; insured_pin: string; product_code: string; start_date: string; min_fixed_charge: string;
    max_fixed_charge: string; min_capital_charge: string; max_capital_charge: string;
  }>(
    `SELECT i.insurance_number, i.insured_pin, i.product_code, i.start_date::text AS start_date,
            p.min_fixed_charge::text AS min_fixed_charge, p.max_fixed_charge::text AS max_fixed_charge,
            p.min_capital_charge::text AS min_capital_charge, p.max_capital_charge::text AS max_capital_charge
       FROM insurances i JOIN products p ON p.code = i.product_code
      WHERE i.agreement_number = $1 AND i.insurance_number = ANY($2::text[])`,
    [agreementNumber, [...new Set(insuranceNumbers)]],
  );
  return new Map(
    rows.map((row) => [
      row.insurance_number,
      {
        insuranceNumber: row.insurance_number,
        insuredPin: row.insured_pin,
        productCode: row.product_code,
        startDate: row.start_date,
        minFixedCharge: row.min_fixed_charge,
        maxFixedCharge: row.max_fixed_charge,
        minCapitalCharge: row.min_capital_charge,
        maxCapitalCharge: row.max_capital_charge,
      },
    ]),
  );
}

export interface NewFee {
  readonly insuranceNumber: string;
  readonly feeType: string;
  readonly value: string;
  readonly effectiveDate: string;
}

export async function insertFees(sql: Sql, messageId: string, fees: readonly NewFee[]): Promise<void> {
  if (fees.length === 0) return;
  await sql.query(
    `INSERT INTO insurance_fees (insurance_number, fee_type, value, effective_date, message_id)
     SELECT f.insurance_number, f.fee_type, f.value, f.effective_date, $5
       FROM unnest($1::text[], $2::text[], $3::numeric[], $4::date[]) AS f(insurance_number, fee_type, value, effective_date)`,
    [fees.map((f) => f.insuranceNumber), fees.map((f) => f.feeType), fees.map((f) => f.value), fees.map((f) => f.effectiveDate), messageId],
  );
}

export interface EmploymentFacts {
  readonly id: string;
  readonly startDate: string;
  endDate: string | null;
}

/** The employments under the agreement of each person among `pins`, latest start first. */
export async function findEmployments(sql: Sql, agreementNumber: string, pins: readonly string[]): Promise<Map<string, EmploymentFacts[]>> {
  const { rows } = await sql.query<{ pin: string; id: string; start_date: string; end_date: string | null }>(
    `SELECT personal_identity_number AS pin, id::text AS id, start_date::text AS start_date, end_date::text AS end_date
       FROM employments WHERE agreement_number = $1 AND personal_identity_number = ANY($2::text[])
      ORDER BY start_date DESC`,
    [agreementNumber, [...new Set(pins)]],
  );
  const byPerson = new Map<string, EmploymentFacts[]>();
  for (const row of rows) {
    const list = byPerson.get(row.pin) ?? [];
    list.push({ id: row.id, startDate: row.start_date, endDate: row.end_date });
    byPerson.set(row.pin, list);
  }
  return byPerson;
}

export interface NewSalary {
  readonly employmentId: string;
  readonly effectiveDate: string;
  readonly annualSalary: string;
  readonly currency: string;
}

export async function insertSalaries(sql: Sql, messageId: string, salaries: readonly NewSalary[]): Promise<void> {
  if (salaries.length === 0) return;
  await sql.query(
    `INSERT INTO salaries (employment_id, effective_date, annual_salary, currency, message_id)
     SELECT s.employment_id, s.effective_date, s.annual_salary, s.currency, $5
       FROM unnest($1::bigint[], $2::date[], $3::numeric[], $4::text[]) AS s(employment_id, effective_date, annual_salary, currency)`,
    [salaries.map((s) => s.employmentId), salaries.map((s) => s.effectiveDate), salaries.map((s) => s.annualSalary), salaries.map((s) => s.currency), messageId],
  );
}

export interface EndedEmployment {
  readonly employmentId: string;
  readonly personalIdentityNumber: string;
  readonly endDate: string;
  readonly reason: string | null;
  readonly paidUpFrom: string;
}

/**
 * Ends the employments and makes each person's premium-paying insurances under the
 * agreement paid-up (fribrev) from the given day, skipping those already paid-up.
 */
export async function endEmployments(sql: Sql, agreementNumber: string, messageId: string, ended: readonly EndedEmployment[]): Promise<void> {
  if (ended.length === 0) return;
  await sql.query(
    `UPDATE employments e SET end_date = u.end_date, end_reason = u.reason, ended_by_message = $4
       FROM unnest($1::bigint[], $2::date[], $3::text[]) AS u(id, end_date, reason)
      WHERE e.id = u.id`,
    [ended.map((e) => e.employmentId), ended.map((e) => e.endDate), ended.map((e) => e.reason), messageId],
  );
  await sql.query(
    `INSERT INTO insurance_paid_up (insurance_number, paid_up_from, message_id)
     SELECT i.insurance_number, u.paid_up_from, $4
       FROM unnest($2::text[], $3::date[]) AS u(pin, paid_up_from)
       JOIN insurances i ON i.insured_pin = u.pin AND i.agreement_number = $1 AND i.premium_paying
      WHERE NOT EXISTS (SELECT 1 FROM insurance_paid_up p WHERE p.insurance_number = i.insurance_number)
      ORDER BY i.insurance_number`,
    [agreementNumber, ended.map((e) => e.personalIdentityNumber), ended.map((e) => e.paidUpFrom), messageId],
  );
}
