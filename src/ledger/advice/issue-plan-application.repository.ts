import type { IsoDate } from '../../core/calendar-date.ts';
import { planPremiums, type PlanApplicationInput } from '../../core/plan-application.rules.ts';
import type { Sql } from '../database.ts';
import { insertStandardCoverages } from '../plan/insurance-coverages.repository.ts';
import { insertAgreementCategories } from '../plan/add-categories.repository.ts';
import { drawInsuranceNumbers } from '../plan/insurance-purchase.repository.ts';
import { insertAllocations, insertFees, insertPremiums, insertSalaries } from '../plan/plan.repository.ts';

/**
 * Issuing an approved pension plan application: the agreement with the employer, its
 * categories (with their premium rules) and cost centers, and for each employee the
 * employment with its category, cost center and salary, and an insurance under the
 * agreement (the employer its policyholder) with its custody account at the chosen
 * custodian, its monthly premium by the category's rule, the product's standard
 * charges, its kind's standard coverages (standardCoverages: an occupational plan
 * names none) and the plan's distribution plan. All in the caller's transaction with the
 * application's status: a plan is issued entirely or not at all. The rows carry the
 * application id where a received document's rows carry its message id, so the
 * plan-administration messages, the custodian's reports and the debit runs then work
 * on them like on any other.
 *
 * Dates: the categories are valid from the day of issue. An employee is covered —
 * category, cost center, salary, insurance and premium — from the day of issue, or
 * from the employment's start when that is later; the employment itself keeps the
 * start date applied for.
 */
export interface PlanIssue {
  /** The day of issue (Stockholm). */
  readonly day: IsoDate;
  /** The day the application was submitted: its premiums are worked out with that year's income base amount, as the check showed them. */
  readonly submittedOn: IsoDate;
  readonly at: Date;
}

export async function issuePlan(tx: Sql, applicationId: string, input: PlanApplicationInput, issue: PlanIssue): Promise<{ agreementNumber: string; insuranceNumbers: string[] }> {
  const agreementNumber = await createAgreement(tx, applicationId, input, issue);
  const employees = input.employees;
  const premiums = planPremiums(input, issue.submittedOn);
  const coveredFrom = employees.map((employee) => (employee.employmentStart > issue.day ? employee.employmentStart : issue.day));
  const employmentIds = await insertEmployments(tx, applicationId, agreementNumber, input);
  await insertEmploymentHistory(tx, applicationId, employmentIds.map((id, index) => ({
    employmentId: id, category: employees[index]!.category, costCenter: employees[index]!.costCenter, effectiveDate: coveredFrom[index]!,
  })));
  await insertSalaries(tx, applicationId, employmentIds.map((id, index) => ({
    employmentId: id, effectiveDate: coveredFrom[index]!, annualSalary: employees[index]!.annualSalary, currency: 'SEK',
  })));

  const insuranceNumbers = await drawInsuranceNumbers(tx, employees.length);
  const accounts = insuranceNumbers.map((number) => `DEPA-${number.slice('INS-'.length)}`);
  await tx.query(
    `INSERT INTO custody_accounts (account_number, custodian_id, opened_on)
     SELECT account, $2, opened_on FROM unnest($1::text[], $3::date[]) AS a(account, opened_on)`,
    [accounts, input.custodianId, coveredFrom],
  );
  await tx.query(
    `INSERT INTO insurances (insurance_number, agreement_number, insured_pin, product_code, start_date, policyholder, custody_account, created_by_message)
     SELECT i.insurance_number, $5, i.pin, $6, i.start_date, $7, i.account, $8
       FROM unnest($1::text[], $2::text[], $3::date[], $4::text[]) WITH ORDINALITY AS i(insurance_number, pin, start_date, account, ordinality)
      ORDER BY i.ordinality`,
    [insuranceNumbers, employees.map((employee) => employee.personalIdentityNumber), coveredFrom, accounts,
      agreementNumber, input.productId, input.employer.organisationNumber, applicationId],
  );
  await insertPremiums(tx, applicationId, insuranceNumbers.map((number, index) => ({
    insuranceNumber: number, effectiveDate: coveredFrom[index]!, monthlyAmount: premiums[index]!.monthlyPremium, currency: 'SEK' as const,
  })));
  await insertStandardCoverages(tx, applicationId, insuranceNumbers);
  const { rows } = await tx.query<{ fixed: string; capital: string }>(
    'SELECT standard_fixed_charge::text AS fixed, standard_capital_charge::text AS capital FROM products WHERE code = $1',
    [input.productId],
  );
  const charges = rows[0]!;
  await insertFees(tx, applicationId, insuranceNumbers.flatMap((number, index) => [
    { insuranceNumber: number, feeType: 'FixedCharge', value: charges.fixed, effectiveDate: coveredFrom[index]! },
    { insuranceNumber: number, feeType: 'CapitalCharge', value: charges.capital, effectiveDate: coveredFrom[index]! },
  ]));
  await insertAllocations(tx, applicationId, insuranceNumbers.map((number, index) => ({
    insuranceNumber: number, purpose: 'DistributionPlan' as const, effectiveDate: coveredFrom[index]!,
    lines: input.funds.map((fund) => ({ isin: fund.isin, percent: String(fund.percent) })),
  })));
  await tx.query('UPDATE applications SET agreement_number = $2 WHERE application_id = $1', [applicationId, agreementNumber]);
  return { agreementNumber, insuranceNumbers };
}

/** The agreement (AGR-<agreement_number_seq>), named after the employer, with its categories and cost centers. */
async function createAgreement(tx: Sql, applicationId: string, input: PlanApplicationInput, issue: PlanIssue): Promise<string> {
  const { rows } = await tx.query<{ agreement_number: string }>(`SELECT 'AGR-' || nextval('agreement_number_seq') AS agreement_number`);
  const agreementNumber = rows[0]!.agreement_number;
  await tx.query(
    'INSERT INTO agreements (agreement_number, name, employer_organisation_number, created_at) VALUES ($1, $2, $3, $4)',
    [agreementNumber, `${input.employer.name} pension plan`, input.employer.organisationNumber, issue.at.toISOString()],
  );
  await insertAgreementCategories(tx, agreementNumber, applicationId, input.agreement.categories.map((category) => {
    const rule = category.premium;
    const percent = 'percentOfSalary' in rule;
    return {
      code: category.code, name: category.name, validFrom: issue.day,
      premiumPercent: percent ? rule.percentOfSalary : null,
      premiumPercentAboveCap: percent ? rule.percentAboveCap ?? null : null,
      fixedMonthlyPremium: percent ? null : rule.fixedMonthly,
    };
  }));
  const costCenters = input.agreement.costCenters;
  await tx.query(
    `INSERT INTO agreement_cost_centers (agreement_number, code, name, message_id)
     SELECT $3, c.code, c.name, $4 FROM unnest($1::text[], $2::text[]) AS c(code, name)`,
    [costCenters.map((c) => c.code), costCenters.map((c) => c.name), agreementNumber, applicationId],
  );
  return agreementNumber;
}

/** The persons (kept when known) and their employments from the start applied for; the employment ids in the order of `employees`. */
async function insertEmployments(tx: Sql, applicationId: string, agreementNumber: string, input: PlanApplicationInput): Promise<string[]> {
  const pins = input.employees.map((employee) => employee.personalIdentityNumber);
  await tx.query(
    `INSERT INTO persons (personal_identity_number, created_by_message) SELECT pin, $2 FROM unnest($1::text[]) AS p(pin) ON CONFLICT DO NOTHING`,
    [pins, applicationId],
  );
  const { rows } = await tx.query<{ id: string; pin: string }>(
    `INSERT INTO employments (agreement_number, personal_identity_number, start_date)
     SELECT $3, e.pin, e.start_date FROM unnest($1::text[], $2::date[]) AS e(pin, start_date)
     RETURNING id::text AS id, personal_identity_number AS pin`,
    [pins, input.employees.map((employee) => employee.employmentStart), agreementNumber],
  );
  const byPerson = new Map(rows.map((row) => [row.pin, row.id]));
  return pins.map((pin) => byPerson.get(pin)!);
}

async function insertEmploymentHistory(
  tx: Sql, applicationId: string, rows: readonly { employmentId: string; category: string; costCenter: string; effectiveDate: IsoDate }[],
): Promise<void> {
  const ids = rows.map((row) => row.employmentId);
  const dates = rows.map((row) => row.effectiveDate);
  await tx.query(
    `INSERT INTO employment_categories (employment_id, category_code, effective_date, message_id)
     SELECT e.id, e.code, e.effective_date, $4 FROM unnest($1::bigint[], $2::text[], $3::date[]) AS e(id, code, effective_date)`,
    [ids, rows.map((row) => row.category), dates, applicationId],
  );
  await tx.query(
    `INSERT INTO employment_cost_centers (employment_id, cost_center, effective_date, message_id)
     SELECT e.id, e.code, e.effective_date, $4 FROM unnest($1::bigint[], $2::text[], $3::date[]) AS e(id, code, effective_date)`,
    [ids, rows.map((row) => row.costCenter), dates, applicationId],
  );
}
