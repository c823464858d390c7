import type { IsoDate } from '../../core/calendar-date.ts';
import type { Sql } from '../database.ts';

/**
 * The insurer's payment orders (payment_orders, migration 0037): each pain.001 file made
 * for payments from the insurer's own account, stored with its bytes in the transaction
 * that decided the payments, for finance staff to list and download. Nothing here sends
 * a file anywhere: the insurer's finance uploads it to its bank.
 */

export const PAYMENT_ORDER_PURPOSES = ['death-benefit', 'advisor-commission'] as const;
export type PaymentOrderPurpose = (typeof PAYMENT_ORDER_PURPOSES)[number];

export interface PaymentOrderSummary {
  /** The file's GrpHdr/MsgId. */
  readonly paymentOrderId: string;
  readonly purpose: PaymentOrderPurpose;
  readonly runKey: string | null;
  readonly createdAt: Date;
  readonly requestedExecutionDate: IsoDate;
  readonly transactions: number;
  readonly controlSum: string;
  readonly fileName: string;
  /** What it pays: for `death-benefit`, the insurances whose benefit's 1 % it pays; for `advisor-commission`, the insurances whose advisor fees it pays on. */
  readonly insuranceNumbers: readonly string[];
}

const COLUMNS = `o.payment_order_id AS "paymentOrderId", o.purpose, o.run_key AS "runKey", o.created_at AS "createdAt",
  o.requested_execution_date::text AS "requestedExecutionDate", o.transactions, o.control_sum::text AS "controlSum", o.file_name AS "fileName",
  coalesce((SELECT array_agg(d.insurance_number ORDER BY d.insurance_number) FROM death_benefits d WHERE d.payment_order_id = o.payment_order_id),
           (SELECT array_agg(DISTINCT c.insurance_number ORDER BY c.insurance_number) FROM commission_lines c
              JOIN commission_statements s ON s.statement_id = c.statement_id WHERE s.payment_order_id = o.payment_order_id), '{}') AS "insuranceNumbers"`;

/** Stores a payment order made in the caller's transaction. */
export async function insertPaymentOrder(
  sql: Sql,
  order: Omit<PaymentOrderSummary, 'insuranceNumbers'> & { readonly body: string },
): Promise<void> {
  await sql.query(
    `INSERT INTO payment_orders (payment_order_id, purpose, run_key, created_at, requested_execution_date, transactions, control_sum, file_name, body)
     VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8, $9)`,
    [order.paymentOrderId, order.purpose, order.runKey, order.createdAt, order.requestedExecutionDate, order.transactions, order.controlSum, order.fileName,
      Buffer.from(order.body, 'utf8')],
  );
}

/** The payment orders, newest first. */
export async function listPaymentOrders(sql: Sql, limit: number): Promise<PaymentOrderSummary[]> {
  const { rows } = await sql.query<PaymentOrderSummary>(`SELECT ${COLUMNS} FROM payment_orders o ORDER BY o.created_at DESC, o.payment_order_id DESC LIMIT $1`, [limit]);
  return rows;
}

/** One payment order with its file's bytes, when there is one by that id. */
export async function findPaymentOrder(sql: Sql, paymentOrderId: string): Promise<(PaymentOrderSummary & { body: Buffer }) | undefined> {
  const { rows } = await sql.query<PaymentOrderSummary & { body: Buffer | Uint8Array }>(
    `SELECT ${COLUMNS}, o.body FROM payment_orders o WHERE o.payment_order_id = $1`, [paymentOrderId]);
  const row = rows[0];
  return row ? { ...row, body: Buffer.from(row.body) } : undefined;
}
