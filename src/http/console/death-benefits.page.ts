import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/gateway-error.ts';
import { listDeathBenefits, type DeathBenefit, type DeathBenefitStatus } from '../../ledger/plan/death-benefits.repository.ts';
import { findPaymentOrder, listPaymentOrders, type PaymentOrderSummary } from '../../ledger/custody/payment-orders.repository.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html } from './html.ts';
import { choices, formatTime, listTable, page, type Column } from './layout.ts';

/**
 * Death benefits and the insurer's payment orders, from the same listings as the staff
 * API and the CLI:
 * - /console/death-benefits (`?waiting=true`: not yet paid by both): each benefit with
 *   its status — waiting for the beneficiary's account, for the next payout run, for the
 *   insurer's payment order, or paid — the custody value and the insurer's 1 %, the
 *   beneficiary (who recorded it, when), the run that ordered it and its payment order;
 * - /console/payment-orders: the pain.001 files for the insurer's bank, newest first,
 *   each downloadable (/console/payment-orders/<id>/file) for finance staff to upload;
 *   the gateway sends them nowhere.
 */
const LIST_LIMIT = 1000;

const STATUS_TEXT: Readonly<Record<DeathBenefitStatus, string>> = {
  'awaiting-beneficiary': "waiting for the beneficiary's account",
  'awaiting-run': 'waiting for the next payout run',
  'awaiting-payment-order': "ordered at the custodian; the insurer's 1 % waits for its payment order",
  paid: 'ordered and in a payment order',
};

export function registerDeathBenefitPages(app: FastifyInstance, options: HttpServerOptions): void {
  const { db } = options.deps;

  app.get<{ Querystring: { waiting?: string } }>('/console/death-benefits', async (request, reply) => {
    const waiting = request.query.waiting === 'true';
    const benefits = await listDeathBenefits(db, { waiting, limit: LIST_LIMIT });
    const body = html`${choices('/console/death-benefits', waiting ? 'waiting=true' : '', [['All', ''], ['Not paid yet', 'waiting=true']])}
<p>The death benefit of repayment protection: the custodian sells the account and pays the custody value to the beneficiary's account; the insurer pays 1 % of it from its own account (a payment order). Record the beneficiary with <code>depot-gateway death-benefit</code> or <code>POST /api/insurances/&lt;number&gt;/death-benefit/beneficiary</code>.</p>
${listTable('death-benefits', benefits, BENEFIT_COLUMNS, waiting ? 'Every death benefit is paid.' : 'No death benefits.')}
${benefits.length >= LIST_LIMIT ? html`<p>The newest ${LIST_LIMIT} shown.</p>` : ''}`;
    return reply.type('text/html; charset=utf-8').send(page('Death benefits', request.staff, body));
  });

  app.get('/console/payment-orders', async (request, reply) => {
    const orders = await listPaymentOrders(db, LIST_LIMIT);
    const body = html`<p>The insurer's payment orders (ISO 20022 pain.001.001.03), newest first. Download a file and upload it to the insurer's bank: the gateway sends them nowhere.</p>
${listTable('payment-orders', orders, ORDER_COLUMNS, 'No payment orders made yet.')}
${orders.length >= LIST_LIMIT ? html`<p>The newest ${LIST_LIMIT} shown.</p>` : ''}`;
    return reply.type('text/html; charset=utf-8').send(page('Payment orders', request.staff, body));
  });

  app.get<{ Params: { id: string } }>('/console/payment-orders/:id/file', async (request, reply) => {
    const order = await findPaymentOrder(db, request.params.id);
    if (!order) throw new GatewayError('RESOURCE_NOT_FOUND', `No payment order ${request.params.id}.`);
    return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${order.fileName}"`).send(order.body);
  });
}

const BENEFIT_COLUMNS: readonly Column<DeathBenefit & { status: DeathBenefitStatus }>[] = [
  ['Insurance', (b) => b.insuranceNumber], ['Died', (b) => b.deathDate], ['Status', (b) => STATUS_TEXT[b.status]],
  ['Custody value (SEK)', (b) => (b.custodyValue === null ? 'not reported yet' : html`<span class="number">${b.custodyValue}</span>`)],
  ["Insurer's 1 % (SEK)", (b) => b.insurerAmount ?? ''],
  ['Beneficiary', (b) => (b.beneficiary ? `${b.beneficiary.name}, account ${b.beneficiary.account}` : 'not recorded')],
  ['Recorded by', (b) => (b.beneficiary ? `${b.beneficiary.recordedBy}, ${formatTime(b.beneficiary.recordedAt)}` : `death: ${b.recordedBy}, ${formatTime(b.recordedAt)}`)],
  ['Ordered', (b) => (b.order ? `run ${b.order.runKey}: sell by ${b.order.sellBy}, pay by ${b.order.payBy}` : '')],
  ['Payment order', (b) => (b.paymentOrderId ? html`<a href="/console/payment-orders/${b.paymentOrderId}/file">${b.paymentOrderId}</a>` : '')],
];

const ORDER_COLUMNS: readonly Column<PaymentOrderSummary>[] = [
  ['Payment order', (o) => html`<a href="/console/payment-orders/${o.paymentOrderId}/file">${o.paymentOrderId}</a>`],
  ['Made', (o) => formatTime(o.createdAt)], ['Pays', (o) => o.purpose], ['Run', (o) => o.runKey ?? ''], ['Pay on', (o) => o.requestedExecutionDate],
  ['Payments', (o) => html`<span class="number">${o.transactions}</span>`], ['Total (SEK)', (o) => html`<span class="number">${o.controlSum}</span>`],
  ['Insurances', (o) => o.insuranceNumbers.join(', ')], ['File', (o) => o.fileName],
];
