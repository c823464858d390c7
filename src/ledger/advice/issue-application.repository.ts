import type { Sql } from '../database.ts';
import { coverageTypesOf, type InsuranceApplicationInput } from '../../core/insurance-application.rules.ts';
import { insertCoverages } from '../plan/insurance-coverages.repository.ts';
import { drawInsuranceNumbers } from '../plan/insurance-purchase.repository.ts';
import { insertAllocations, insertFees, insertPremiums } from '../plan/plan.repository.ts';

/**
 * Issuing an approved individual insurance application: the insurance, its custody
 * account at the chosen custodian, its first premium, its charges (the product's
 * standard ones), the coverages applied for (whose risk premiums the debit runs then
 * charge) and its distribution plan, all from the day of issue and all written
 * in the caller's transaction with the application's status — an application is
 * issued entirely or not at all. The rows carry the application id where a received
 * document's rows carry its message id. From then on the plan-administration messages,
 * the custodian's reports and the debit runs work on the insurance like any other.
 *
 * The custody account is numbered after the insurance (INS-200007 → DEPA-200007): the
 * insurer opens it and tells the custodian its number.
 */
export async function issueInsurance(tx: Sql, applicationId: string, input: InsuranceApplicationInput, day: string): Promise<string> {
  const [insuranceNumber] = await drawInsuranceNumbers(tx, 1);
  const account = `DEPA-${insuranceNumber!.slice('INS-'.length)}`;
  await tx.query('INSERT INTO persons (personal_identity_number) VALUES ($1) ON CONFLICT DO NOTHING', [input.insured.id]);
  await tx.query('INSERT INTO custody_accounts (account_number, custodian_id, opened_on) VALUES ($1, $2, $3)', [account, input.custodianId, day]);
  await tx.query(
    `INSERT INTO insurances (insurance_number, agreement_number, insured_pin, product_code, start_date, policyholder, custody_account, created_by_message, insured_email)
     VALUES ($1, NULL, $2, $3, $4, $5, $6, $7, $8)`,
    [insuranceNumber, input.insured.id, input.productId, day, input.policyholder.id, account, applicationId, insuredEmailOf(input)],
  );
  if (input.premium.monthly) {
    await insertPremiums(tx, applicationId, [{ insuranceNumber: insuranceNumber!, effectiveDate: day, monthlyAmount: input.premium.monthly, currency: 'SEK' }]);
  }
  await insertCoverages(tx, applicationId, coverageTypesOf(input.coverages).map((type) => ({ insuranceNumber: insuranceNumber!, type, fromDate: day })));
  const { rows } = await tx.query<{ fixed: string; capital: string }>(
    'SELECT standard_fixed_charge::text AS fixed, standard_capital_charge::text AS capital FROM products WHERE code = $1',
    [input.productId],
  );
  const charges = rows[0]!;
  await insertFees(tx, applicationId, [
    { insuranceNumber: insuranceNumber!, feeType: 'FixedCharge', value: charges.fixed, effectiveDate: day },
    { insuranceNumber: insuranceNumber!, feeType: 'CapitalCharge', value: charges.capital, effectiveDate: day },
  ]);
  await insertAllocations(tx, applicationId, [{
    insuranceNumber: insuranceNumber!, purpose: 'DistributionPlan', effectiveDate: day, lines: input.funds.map((fund) => ({ isin: fund.isin, percent: String(fund.percent) })),
  }]);
  await tx.query('UPDATE applications SET insurance_number = $2 WHERE application_id = $1', [applicationId, insuranceNumber]);
  return insuranceNumber!;
}

/** Where the insured can be mailed (the notice that payout can begin): their own address, or the policyholder's when the policyholder is the insured. */
function insuredEmailOf(input: InsuranceApplicationInput): string | null {
  return input.insured.email ?? (input.policyholder.id === input.insured.id ? input.policyholder.email ?? null : null);
}
