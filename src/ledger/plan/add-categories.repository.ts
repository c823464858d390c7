import type { AgreementCategory } from '../../core/employment-change.rules.ts';
import type { Sql } from '../database.ts';

/**
 * Ledger queries of the agreement's categories (benefit groups): AddCategories writes
 * them, ChangeCategory reads them to place employees in one. A category is one
 * agreement_categories row with its premium rule and the day it is valid from.
 */

/** Every category of the agreement, by code. */
export async function findAgreementCategories(sql: Sql, agreementNumber: string): Promise<Map<string, AgreementCategory>> {
  const { rows } = await sql.query<{ code: string; name: string; valid_from: string }>(
    'SELECT code, name, valid_from::text AS valid_from FROM agreement_categories WHERE agreement_number = $1',
    [agreementNumber],
  );
  return new Map(rows.map((row) => [row.code, { code: row.code, name: row.name, validFrom: row.valid_from }]));
}

/**
 * A category's premium rule: a percent of the monthly salary (with a higher percent
 * above the cap of 7.5 income base amounts when given), or a fixed monthly amount in
 * SEK. Exactly one of premiumPercent and fixedMonthlyPremium is set.
 */
export interface NewCategory {
  readonly code: string;
  readonly name: string;
  readonly validFrom: string;
  readonly premiumPercent: string | null;
  readonly premiumPercentAboveCap: string | null;
  readonly fixedMonthlyPremium: string | null;
}

/** Records the categories in one statement, in the document's order. */
export async function insertAgreementCategories(sql: Sql, agreementNumber: string, messageId: string, categories: readonly NewCategory[]): Promise<void> {
  if (categories.length === 0) return;
  await sql.query(
    `INSERT INTO agreement_categories
            (agreement_number, code, name, premium_percent, premium_percent_above_cap, fixed_monthly_premium, valid_from, message_id)
     SELECT $7, c.code, c.name, c.premium_percent, c.above_cap, c.fixed_monthly, c.valid_from, $8
       FROM unnest($1::text[], $2::text[], $3::numeric[], $4::numeric[], $5::numeric[], $6::date[]) WITH ORDINALITY
            AS c(code, name, premium_percent, above_cap, fixed_monthly, valid_from, ordinality)
      ORDER BY c.ordinality`,
    [
      categories.map((c) => c.code), categories.map((c) => c.name), categories.map((c) => c.premiumPercent),
      categories.map((c) => c.premiumPercentAboveCap), categories.map((c) => c.fixedMonthlyPremium), categories.map((c) => c.validFrom),
      agreementNumber, messageId,
    ],
  );
}
