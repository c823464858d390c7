import { isValidIsin } from '../../core/identifiers.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import type { Sql } from '../database.ts';

/** A fund the insurer offers, and the products it can be chosen in. */
export interface FundListing {
  readonly isin: string;
  readonly name: string;
  readonly productCodes: readonly string[];
}

/**
 * Loads funds into the catalogue (`funds`, `product_funds`), adding what is new and
 * leaving what is there. Every ISIN's check digit is verified first: one that fails is
 * ISIN_INVALID naming each bad ISIN, and nothing is loaded — a mistyped ISIN would
 * otherwise be offered to advisors and refused by every custodian.
 */
export async function loadFunds(sql: Sql, funds: readonly FundListing[]): Promise<void> {
  const invalid = funds.filter((fund) => !isValidIsin(fund.isin)).map((fund) => `${fund.isin} (${fund.name})`);
  if (invalid.length > 0) throw new GatewayError('ISIN_INVALID', `Not loaded; the check digit is wrong in ${invalid.join(', ')}.`);
  await sql.query(
    `INSERT INTO funds (isin, name) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`,
    [funds.map((fund) => fund.isin), funds.map((fund) => fund.name)],
  );
  const pairs = funds.flatMap((fund) => fund.productCodes.map((code) => [code, fund.isin] as const));
  await sql.query(
    `INSERT INTO product_funds (product_code, isin) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`,
    [pairs.map(([code]) => code), pairs.map(([, isin]) => isin)],
  );
}
