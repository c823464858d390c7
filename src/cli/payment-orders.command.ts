import type { Command } from 'commander';
import { GatewayError } from '../core/gateway-error.ts';
import { readApplicationLimit } from '../http/staff/application-review.routes.ts';
import { findPaymentOrder, listPaymentOrders, type PaymentOrderSummary } from '../ledger/custody/payment-orders.repository.ts';
import { printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { table } from './output.ts';

/**
 * `depot-gateway payment-orders`: the insurer's payment orders (ISO 20022 pain.001 files
 * made by payout runs for the 1 % of death benefits), newest first, for its finance
 * staff; `payment-orders show <id> > file.xml` writes one file, byte for byte, to upload
 * to the insurer's bank. As GET /api/payment-orders and /api/payment-orders/<id>: through
 * the running gateway when one answers, otherwise in-process. An unknown id exits 1
 * (RESOURCE_NOT_FOUND).
 */
export function registerPaymentOrdersCommand(program: Command): void {
  const globals = () => program.opts<GlobalOptions>();
  const orders = program.command('payment-orders').description("the insurer's payment orders (pain.001 files) for its bank: list, and show one");
  orders
    .command('list', { isDefault: true })
    .description('payment orders, newest first')
    .option('--limit <n>', 'at most this many, 1–1000 (default 100)')
    .option('--json', 'JSON lines instead of a table')
    .action((options: { limit?: string; json?: boolean }) => runList(globals(), options));
  orders
    .command('show')
    .argument('<id>', 'the payment order id (its MsgId), e.g. PO-01JD8Z3Q4X5Y6Z7A8B9C0D1E2F')
    .description('print the pain.001 file as made, to upload to the bank')
    .action((id: string) => runShow(globals(), id));
}

async function runList(options: GlobalOptions, list: { limit?: string; json?: boolean }): Promise<void> {
  const limit = readApplicationLimit(list.limit ?? '100');
  const orders = await throughGatewayOrStore(
    options,
    (gateway) => listPaymentOrders(gateway.deps.db, limit),
    async (client) => (await client.request<{ paymentOrders: PaymentOrderSummary[] }>(`/api/payment-orders?limit=${limit}`)).paymentOrders,
  );
  if (list.json) {
    for (const order of orders) printJson(order);
    return;
  }
  const cells = orders.map((o) => [o.paymentOrderId, new Date(o.createdAt).toISOString(), o.purpose, o.runKey ?? '', o.requestedExecutionDate, String(o.transactions), o.controlSum, o.insuranceNumbers.join(' ')]);
  process.stdout.write(table([['ID', 'MADE', 'PAYS', 'RUN', 'PAY ON', 'PAYMENTS', 'TOTAL (SEK)', 'INSURANCES'], ...cells]));
}

async function runShow(options: GlobalOptions, id: string): Promise<void> {
  const body = await throughGatewayOrStore(
    options,
    async (gateway) => {
      const order = await findPaymentOrder(gateway.deps.db, id);
      if (!order) throw new GatewayError('RESOURCE_NOT_FOUND', `No payment order ${id}.`);
      return order.body;
    },
    (client) => client.requestBytes(`/api/payment-orders/${encodeURIComponent(id)}`),
  );
  process.stdout.write(body);
}
