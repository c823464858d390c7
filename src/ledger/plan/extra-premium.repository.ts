import { extraPremiumInvoiceNumber } from '../../core/premium.rules.ts';
import type { Sql } from '../database.ts';

/**
 * Ledger queries of ExtraPremium: the invoice numbers the gateway gives (drawn from
 * extra_premium_invoice_seq for the whole document in one query) and the write of the
 * accepted invoices, one extra_premiums row each.
 */

/**
 * Draws `count` invoice numbers (XP-000001, …) in ascending order. Numbers drawn for
 * items that end up rejected are simply not used: a sequence never gives a number
 * twice, even when the transaction rolls back.
 */
export async function drawInvoiceNumbers(sql: Sql, count: number): Promise<string[]> {
  if (count === 0) return [];
  const { rows } = await sql.query<{ n: string }>(
    `SELECT n::text AS n FROM (SELECT nextval('extra_premium_invoice_seq') AS n FROM generate_series(1, $1::int)) AS drawn ORDER BY drawn.n`,
    [count],
  );
  // Padded here, not with lpad, which would cut the millionth number to six digits.
  return rows.map((row) => extraPremiumInvoiceNumber(row.n));
}

export interface NewExtraPremium {
  readonly invoiceNumber: string;
  readonly insuranceNumber: string;
  /** In SEK, as a decimal string. */
  readonly amount: string;
  readonly currency: 'SEK';
  readonly dueDate: string;
}

/** Records the invoices in one statement, in the document's order. */
export async function insertExtraPremiums(sql: Sql, messageId: string, invoices: readonly NewExtraPremium[]): Promise<void> {
  if (invoices.length === 0) return;
  await sql.query(
    `INSERT INTO extra_premiums (invoice_number, insurance_number, amount, currency, due_date, message_id)
     SELECT x.invoice_number, x.insurance_number, x.amount, x.currency, x.due_date, $6
       FROM unnest($1::text[], $2::text[], $3::numeric[], $4::text[], $5::date[]) WITH ORDINALITY
            AS x(invoice_number, insurance_number, amount, currency, due_date, ordinality)
      ORDER BY x.ordinality`,
    [
      invoices.map((x) => x.invoiceNumber), invoices.map((x) => x.insuranceNumber), invoices.map((x) => x.amount),
      invoices.map((x) => x.currency), invoices.map((x) => x.dueDate), messageId,
    ],
  );
}
