import type { Sql } from '../database.ts';
import { insertStandardCoverages } from './insurance-coverages.repository.ts';
import { insertAllocations, insertFees, insertPaidUp, insertPremiums, type AgreementFacts } from './plan.repository.ts';

/**
 * Ledger queries of Insurancepurchase: the products bought and the numbers of the new
 * insurances are read in one query each; the purchased insurances are written with
 * one statement per table. Dates travel as YYYY-MM-DD, amounts as decimal strings.
 */
export interface ProductFacts {
  readonly code: string;
  readonly kind: 'P' | 'T' | 'K';
  readonly minMonthlyPremium: string;
  readonly maxMonthlyPremium: string;
  /** The ISINs selectable in the product. */
  readonly funds: ReadonlySet<string>;
}

/** The products among `codes` with their premium bounds and selectable funds, by code. */
export async function findProducts(sql: Sql, codes: readonly string[]): Promise<Map<string, ProductFacts>> {
  const { rows } = await sql.query<{ code: string; kind: 'P' | 'T' | 'K'; min_monthly_premium: string; max_monthly_premium: string; funds: string[] | null }>(
    `SELECT p.code, p.kind, p.min_monthly_premium::text AS min_monthly_premium, p.max_monthly_premium::text AS max_monthly_premium,
            array_remove(array_agg(f.isin ORDER BY f.isin), NULL) AS funds
       FROM products p LEFT JOIN product_funds f ON f.product_code = p.code
      WHERE p.code = ANY($1::text[])
      GROUP BY p.code, p.kind, p.min_monthly_premium, p.max_monthly_premium`,
    [[...new Set(codes)]],
  );
  return new Map(
    rows.map((row) => [
      row.code,
      { code: row.code, kind: row.kind, minMonthlyPremium: row.min_monthly_premium, maxMonthlyPremium: row.max_monthly_premium, funds: new Set(row.funds ?? []) },
    ]),
  );
}

/**
 * Draws `count` new insurance numbers (INS-200001, …) from insurance_number_seq in
 * ascending order. Numbers drawn for items that end up rejected are simply not used:
 * a sequence never gives a number twice, even when the transaction rolls back.
 */
export async function drawInsuranceNumbers(sql: Sql, count: number): Promise<string[]> {
  if (count === 0) return [];
  const { rows } = await sql.query<{ insurance_number: string }>(
    `SELECT 'INS-' || n AS insurance_number
       FROM (SELECT nextval('insurance_number_seq') AS n FROM generate_series(1, $1::int)) AS drawn
      ORDER BY n`,
    [count],
  );
  return rows.map((row) => row.insurance_number);
}

export interface PurchasedInsurance {
  readonly insuranceNumber: string;
  readonly personalIdentityNumber: string;
  readonly productCode: string;
  readonly startDate: string;
  readonly custodyAccount: string;
  readonly monthlyPremium: string;
  readonly fixedCharge: string;
  /** Set when the insurance was bought for an employment that has since ended. */
  readonly paidUpFrom: string | null;
  readonly allocation: readonly { readonly isin: string; readonly percent: string }[];
}

/**
 * Writes the purchased insurances with the employer as policyholder, then — so their
 * foreign keys hold — each one's standard coverages (standardCoverages: the document
 * names none), first premium, fixed charge and distribution plan,
 * all from its start date, and the paid-up row of those bought for an ended employment.
 */
export async function insertPurchasedInsurances(sql: Sql, agreement: AgreementFacts, messageId: string, purchases: readonly PurchasedInsurance[]): Promise<void> {
  if (purchases.length === 0) return;
  await insertInsurances(sql, agreement, messageId, purchases);
  await insertStandardCoverages(sql, messageId, purchases.map((p) => p.insuranceNumber));
  await insertPremiums(
    sql,
    messageId,
    purchases.map((p) => ({ insuranceNumber: p.insuranceNumber, effectiveDate: p.startDate, monthlyAmount: p.monthlyPremium, currency: 'SEK' })),
  );
  await insertFees(
    sql,
    messageId,
    purchases.map((p) => ({ insuranceNumber: p.insuranceNumber, feeType: 'FixedCharge', value: p.fixedCharge, effectiveDate: p.startDate })),
  );
  await insertPaidUp(
    sql,
    messageId,
    purchases.flatMap((p) => (p.paidUpFrom === null ? [] : [{ insuranceNumber: p.insuranceNumber, paidUpFrom: p.paidUpFrom }])),
  );
  await insertAllocations(
    sql,
    messageId,
    purchases.map((p) => ({ insuranceNumber: p.insuranceNumber, purpose: 'DistributionPlan', effectiveDate: p.startDate, lines: p.allocation })),
  );
}

async function insertInsurances(sql: Sql, agreement: AgreementFacts, messageId: string, purchases: readonly PurchasedInsurance[]): Promise<void> {
  await sql.query(
    `INSERT INTO insurances (insurance_number, agreement_number, insured_pin, product_code, start_date, policyholder, custody_account, created_by_message)
     SELECT p.insurance_number, $6, p.insured_pin, p.product_code, p.start_date, $7, p.custody_account, $8
       FROM unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::text[]) WITH ORDINALITY
            AS p(insurance_number, insured_pin, product_code, start_date, custody_account, ordinality)
      ORDER BY p.ordinality`,
    [
      purchases.map((p) => p.insuranceNumber), purchases.map((p) => p.personalIdentityNumber), purchases.map((p) => p.productCode),
      purchases.map((p) => p.startDate), purchases.map((p) => p.custodyAccount),
      agreement.agreementNumber, agreement.employerOrganisationNumber, messageId,
    ],
  );
}
