import type { FastifyInstance } from 'fastify';
import { stockholmDate } from '../../core/calendar-date.ts';
import { maskPersonalIdentityNumbers } from '../../core/identifiers.ts';
import type { InsuranceView } from '../../ledger/plan/insurance-view.repository.ts';
import { insuranceOrThrow } from '../staff/insurance-view.routes.ts';
import type { HttpServerOptions } from '../server-options.ts';
import { html, type Html } from './html.ts';
import { formatTime, listTable, page, type Column } from './layout.ts';

/**
 * One insurance as staff see it (/console/insurances/<number>), from the same one
 * statement as GET /api/insurances/<number>: who holds it and who is insured, product,
 * coverages, custody account and custodian, status and end, payout, death benefit, and
 * its withdrawals, payout orders and debit lines. Personal identity numbers are masked
 * as on the other list pages (the staff API and the CLI give them in full); the
 * documents that name the insurance or its account are a link to the message search.
 */
export function registerInsurancePage(app: FastifyInstance, options: HttpServerOptions): void {
  app.get<{ Params: { number: string } }>('/console/insurances/:number', async (request, reply) => {
    const view = await insuranceOrThrow(options.deps.db, request.params.number, stockholmDate(options.deps.clock()), options.config);
    return reply.type('text/html; charset=utf-8').send(page(`Insurance ${view.insuranceNumber}`, request.staff, insuranceBody(view)));
  });
}

function insuranceBody(view: InsuranceView): Html {
  const { custody, payout, end, deathBenefit } = view;
  const search = (key: 'insurance' | 'account', value: string) => `/console/messages?${new URLSearchParams({ [key]: value })}`;
  const facts: [string, Html | string][] = [
    ['Status', html`<strong data-status="${view.status}">${view.status}</strong>`],
    ['Product', `${view.product.code} ${view.product.name} (${view.product.kind})`],
    ['Started', `${view.startDate}, ${view.agreementNumber ? `under agreement ${view.agreementNumber}` : 'individual (no agreement)'}${view.createdBy ? `, made by ${view.createdBy}` : ''}`],
    ['Policyholder', masked(view.policyholder.id, view.policyholder.name)],
    ['Insured', masked(view.insured.personalIdentityNumber, view.insured.name)],
    ['Premium', `${view.premium.monthlyAmount ? `${view.premium.monthlyAmount} SEK a month` : 'none'}${view.premium.paidUpFrom ? `, paid-up from ${view.premium.paidUpFrom}` : ''}`],
    ['Coverages', view.coverages.map((coverage) => `${coverage.type} from ${coverage.from}`).join(', ') || 'none'],
    ['Custody account', custody
      ? html`<a href="${search('account', custody.accountNumber)}">${custody.accountNumber}</a> at ${custody.custodianId ?? '(unknown custodian)'}${custody.custodianName ? ` (${custody.custodianName})` : ''}${custody.latestValue ? `, value ${custody.latestValue.totalValue} SEK on ${custody.latestValue.asOf}` : ', no value reported yet'}`
      : 'none'],
    ['Ended', end ? html`<span data-end>${end.lastDay} (${end.cause}), its last day in force; recorded by ${end.recordedBy}${end.recordedAt ? ` at ${formatTime(end.recordedAt)}` : ''}</span>` : 'no'],
    ['Payout', `can begin ${payout.canBegin}${payout.registered
      ? `; from ${payout.registered.startMonth} ${payout.registered.months ? `over ${payout.registered.months} months` : `at ${payout.registered.monthlyAmount} SEK a month`}, to ${payout.registered.account ?? '(no account)'}, ${payout.registered.status}, registered by ${payout.registered.registeredBy ?? '-'} at ${formatTime(payout.registered.registeredAt)}`
      : '; not started'}`],
    ...(deathBenefit
      ? [['Death benefit', `death ${deathBenefit.deathDate}; custody value ${deathBenefit.custodyValue ?? '(not yet valued)'}, the insurer's 1 % ${deathBenefit.insurerAmount ?? '-'}${deathBenefit.beneficiaryName ? `; to ${deathBenefit.beneficiaryName}` : ''}; ${deathBenefit.orderedIn ? `ordered in ${deathBenefit.orderedIn}` : 'not yet ordered'}`] as [string, string]]
      : []),
  ];
  return html`<table id="insurance">${facts.map(([label, value]) => html`<tr><th>${label}</th><td>${value}</td></tr>`)}</table>
<p><a href="${search('insurance', view.insuranceNumber)}">Documents that name ${view.insuranceNumber}</a></p>
<h2>Withdrawals</h2>
${listTable('withdrawals', view.withdrawals, WITHDRAWAL_COLUMNS, 'No withdrawal requests.')}
<h2>Payout orders</h2>
${listTable('payout-orders', payout.orders, ORDER_COLUMNS, 'No payout orders.')}
<h2>Debit lines</h2>
${listTable('debit-lines', view.debitLines, LINE_COLUMNS, 'No debit lines.')}`;
}

/** A person's or organisation's number as the console shows it (a personnummer masked), with the name known. */
function masked(id: string | null, name: string | null): string {
  return [id ? maskPersonalIdentityNumbers(id) : '-', name ?? ''].join(' ').trim();
}

const WITHDRAWAL_COLUMNS: readonly Column<InsuranceView['withdrawals'][number]>[] = [
  ['Request', (w) => w.requestId], ['Status', (w) => w.status], ['Amount (SEK)', (w) => w.amount], ['To account', (w) => `${w.bankName} ${w.account}`],
  ['Requested', (w) => `${formatTime(w.requestedAt)} by ${w.requestedBy}`], ['Decision', (w) => (w.decision ? `${w.decision} by ${w.decidedBy ?? ''}` : '')],
  ['Ordered', (w) => (w.runKey ? `${w.orderedOn ?? ''} (${w.runKey})${w.deliveredAt ? `, sent ${formatTime(w.deliveredAt)}` : ''}` : '')],
];

const ORDER_COLUMNS: readonly Column<InsuranceView['payout']['orders'][number]>[] = [
  ['Month', (o) => o.month], ['Installment', (o) => o.installment], ['Amount (SEK)', (o) => o.amount], ['Sell by', (o) => o.sellBy], ['Pay by', (o) => o.payBy],
  ['Final', (o) => (o.final ? 'yes' : '')], ['Run', (o) => html`<a href="/console/runs?kind=payout">${o.runKey}</a>`],
];

const LINE_COLUMNS: readonly Column<InsuranceView['debitLines'][number]>[] = [
  ['Run', (l) => l.runKey], ['Custodian', (l) => l.custodianId], ['Account', (l) => l.accountNumber], ['Charge', (l) => l.charge], ['Basis', (l) => l.basis ?? ''],
  ['Amount (SEK)', (l) => l.amount], ['From', (l) => l.periodFrom], ['To', (l) => l.periodTo],
];
