import type { AccountPeriod, NormalisedCosts } from '../../core/cost-and-charges.rules.ts';
import type { Sql } from '../database.ts';

/**
 * Ledger queries of the CostAndCharges report: which of the reported custody accounts
 * the sending custodian holds (one query for the whole report), and the write of the
 * accepted accounts' costs (one statement).
 *
 * custody_costs keeps one row per account and year: a re-sent report for the same
 * account and year replaces the row, and the row names the message that wrote it
 * last. Another custodian's account is simply not found, so a report can neither
 * read nor overwrite what it does not hold.
 */

/** The accounts among `accountNumbers` that `custodianId` (a counterparty id) holds, with their open periods. */
export async function findCustodianAccounts(sql: Sql, custodianId: string, accountNumbers: readonly string[]): Promise<Map<string, AccountPeriod>> {
  const { rows } = await sql.query<{ account_number: string; opened_on: string; closed_on: string | null }>(
    `SELECT account_number, opened_on::text AS opened_on, closed_on::text AS closed_on
       FROM custody_accounts
      WHERE custodian_id = $1 AND account_number = ANY($2::text[])`,
    [custodianId, [...new Set(accountNumbers)]],
  );
  return new Map(rows.map((row) => [row.account_number, { openedOn: row.opened_on, closedOn: row.closed_on }]));
}

/** One account's accepted costs for the report's year. */
export interface AccountCostRow extends NormalisedCosts {
  readonly accountNumber: string;
}

/** Records the accounts' costs for `year` in one statement, replacing an earlier report's row of the same account and year. */
export async function upsertCustodyCosts(sql: Sql, messageId: string, year: number, rows: readonly AccountCostRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO custody_costs (account_number, year, investment_services, third_party_payments, investment_product_cost, refund, total_costs, message_id)
     SELECT c.account_number, $1, c.investment_services, c.third_party_payments, c.investment_product_cost, c.refund, c.total_costs, $2
       FROM unnest($3::text[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[], $8::numeric[])
         AS c(account_number, investment_services, third_party_payments, investment_product_cost, refund, total_costs)
     ON CONFLICT (account_number, year) DO UPDATE SET
       investment_services = EXCLUDED.investment_services,
       third_party_payments = EXCLUDED.third_party_payments,
       investment_product_cost = EXCLUDED.investment_product_cost,
       refund = EXCLUDED.refund,
       total_costs = EXCLUDED.total_costs,
       message_id = EXCLUDED.message_id`,
    [
      year,
      messageId,
      rows.map((r) => r.accountNumber),
      rows.map((r) => r.investmentServices),
      rows.map((r) => r.thirdPartyPayments),
      rows.map((r) => r.investmentProductCost),
      rows.map((r) => r.refund),
      rows.map((r) => r.totalCosts),
    ],
  );
}
