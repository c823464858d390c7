import type { Sql } from './database.ts';

/**
 * Ledger queries for plan administration. Reads return plain facts (dates as
 * YYYY-MM-DD, amounts as decimal strings); writes add dated history rows.
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
  readonly productCode: string;
  readonly startDate: string;
  readonly minFixedCharge: string;
  readonly maxFixedCharge: string;
  readonly minCapitalCharge: string;
  readonly maxCapitalCharge: string;
}

/** The insurance, if it belongs to this insured person under this agreement. */
export async function findInsurance(
  sql: Sql,
  key: { insuranceNumber: string; agreementNumber: string; personalIdentityNumber: string },
): Promise<InsuranceFacts | undefined> {
  const { rows } = await sql.query<{
    product_code: string; start_date: string; min_fixed_charge: string; max_fixed_charge: string;
    min_capital_charge: string; max_capital_charge: string;
  }>(
    `SELECT i.product_code, i.start_date::text AS start_date, p.min_fixed_charge::text AS min_fixed_charge,
            p.max_fixed_charge::text AS max_fixed_charge, p.min_capital_charge::text AS min_capital_charge,
            p.max_capital_charge::text AS max_capital_charge
       FROM insurances i JOIN products p ON p.code = i.product_code
      WHERE i.insurance_number = $1 AND i.agreement_number = $2 AND i.insured_pin = $3`,
    [key.insuranceNumber, key.agreementNumber, key.personalIdentityNumber],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    insuranceNumber: key.insuranceNumber,
    productCode: row.product_code,
    startDate: row.start_date,
    minFixedCharge: row.min_fixed_charge,
    maxFixedCharge: row.max_fixed_charge,
    minCapitalCharge: row.min_capital_charge,
    maxCapitalCharge: row.max_capital_charge,
  };
}

export async function insertFee(
  sql: Sql,
  fee: { insuranceNumber: string; feeType: string; value: string; effectiveDate: string; messageId: string },
): Promise<void> {
  await sql.query(
    'INSERT INTO insurance_fees (insurance_number, fee_type, value, effective_date, message_id) VALUES ($1, $2, $3, $4, $5)',
    [fee.insuranceNumber, fee.feeType, fee.value, fee.effectiveDate, fee.messageId],
  );
}

export interface EmploymentFacts {
  readonly id: string;
  readonly startDate: string;
  readonly endDate: string | null;
}

/** The person's employments under the agreement, latest start first. */
export async function findEmployments(sql: Sql, agreementNumber: string, personalIdentityNumber: string): Promise<EmploymentFacts[]> {
  const { rows } = await sql.query<{ id: string; start_date: string; end_date: string | null }>(
    `SELECT id::text AS id, start_date::text AS start_date, end_date::text AS end_date FROM employments
      WHERE agreement_number = $1 AND personal_identity_number = $2 ORDER BY start_date DESC`,
    [agreementNumber, personalIdentityNumber],
  );
  return rows.map((row) => ({ id: row.id, startDate: row.start_date, endDate: row.end_date }));
}

export async function insertSalary(
  sql: Sql,
  salary: { employmentId: string; effectiveDate: string; annualSalary: string; currency: string; messageId: string },
): Promise<void> {
  await sql.query(
    'INSERT INTO salaries (employment_id, effective_date, annual_salary, currency, message_id) VALUES ($1, $2, $3, $4, $5)',
    [salary.employmentId, salary.effectiveDate, salary.annualSalary, salary.currency, salary.messageId],
  );
}

export async function endEmployment(
  sql: Sql,
  end: { employmentId: string; endDate: string; reason: string | null; messageId: string },
): Promise<void> {
  await sql.query('UPDATE employments SET end_date = $2, end_reason = $3, ended_by_message = $4 WHERE id = $1', [
    end.employmentId, end.endDate, end.reason, end.messageId,
  ]);
}

/**
 * Makes the person's premium-paying insurances under the agreement paid-up from a
 * date, skipping those already paid-up. Returns the insurance numbers changed.
 */
export async function makeInsurancesPaidUp(
  sql: Sql,
  paidUp: { agreementNumber: string; personalIdentityNumber: string; paidUpFrom: string; messageId: string },
): Promise<string[]> {
  const { rows } = await sql.query<{ insurance_number: string }>(
    `INSERT INTO insurance_paid_up (insurance_number, paid_up_from, message_id)
     SELECT i.insurance_number, $3::date, $4 FROM insurances i
      WHERE i.agreement_number = $1 AND i.insured_pin = $2 AND i.premium_paying
        AND NOT EXISTS (SELECT 1 FROM insurance_paid_up p WHERE p.insurance_number = i.insurance_number)
     RETURNING insurance_number`,
    [paidUp.agreementNumber, paidUp.personalIdentityNumber, paidUp.paidUpFrom, paidUp.messageId],
  );
  return rows.map((row) => row.insurance_number).sort();
}
