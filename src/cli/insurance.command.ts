import type { Command } from 'commander';
import { stockholmDate } from '../core/calendar-date.ts';
import { insuranceOrThrow } from '../http/staff/insurance-view.routes.ts';
import type { InsuranceView } from '../ledger/plan/insurance-view.repository.ts';
import { printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { table } from './output.ts';

/**
 * `depot-gateway insurance <number> [--json]`: any one insurance as staff see it, as GET
 * /api/insurances/<number> answers — policyholder, insured, product, coverages, custody
 * account and custodian, status and end, payout, death benefit, withdrawals, payout
 * orders and debit lines. Through the running gateway's staff API when one answers,
 * otherwise in-process. No such insurance exits 1 with RESOURCE_NOT_FOUND.
 */
export function registerInsuranceCommand(program: Command): void {
  program
    .command('insurance')
    .description('any one insurance: holder, insured, product, custody, status and end, payout, withdrawals and debit lines')
    .argument('<number>', 'the insurance number, e.g. INS-100006')
    .option('--json', 'the insurance as JSON')
    .action(async (number: string, options: { json?: boolean }) => {
      const view = await throughGatewayOrStore(
        program.opts<GlobalOptions>(),
        (gateway) => insuranceOrThrow(gateway.deps.db, number, stockholmDate(gateway.deps.clock()), gateway.config),
        (client) => client.request<InsuranceView>(`/api/insurances/${encodeURIComponent(number)}`),
      );
      if (options.json) printJson(view);
      else process.stdout.write(formatInsurance(view));
    });
}

/** Plain text for a terminal: the facts first, then each history as a table. */
export function formatInsurance(view: InsuranceView): string {
  const { product, custody, payout, end, deathBenefit } = view;
  const named = (id: string | null, name: string | null) => [id ?? '-', name ?? ''].join(' ').trim();
  const facts: [string, string][] = [
    ['product', `${product.code} ${product.name} (${product.kind})`],
    ['started', `${view.startDate}, ${view.agreementNumber ? `under agreement ${view.agreementNumber}` : 'individual (no agreement)'}${view.createdBy ? `, made by ${view.createdBy}` : ''}`],
    ['policyholder', named(view.policyholder.id, view.policyholder.name)],
    ['insured', named(view.insured.personalIdentityNumber, view.insured.name)],
    ['premium', `${view.premium.monthlyAmount ? `${view.premium.monthlyAmount} a month` : 'none'}${view.premium.paidUpFrom ? `, paid-up from ${view.premium.paidUpFrom}` : ''}`],
    ['coverages', view.coverages.map((coverage) => `${coverage.type} from ${coverage.from}`).join(', ') || 'none'],
    ['custody', custody
      ? `${custody.accountNumber} at ${named(custody.custodianId, custody.custodianName ? `(${custody.custodianName})` : null)}` +
        `${custody.latestValue ? `, value ${custody.latestValue.totalValue} SEK on ${custody.latestValue.asOf}` : ', no value reported'}`
      : 'none'],
    ['payout', `can begin ${payout.canBegin}${payout.registered
      ? `; from ${payout.registered.startMonth} ${payout.registered.months ? `over ${payout.registered.months} months` : `at ${payout.registered.monthlyAmount} a month`}` +
        ` to ${payout.registered.account ?? '(no account)'}, ${payout.registered.status}, registered by ${payout.registered.registeredBy ?? '-'}`
      : '; not started'}`],
    ...(end ? [['ended', `${end.lastDay} (${end.cause}), its last day in force; recorded by ${end.recordedBy}`] as [string, string]] : []),
    ...(deathBenefit
      ? [['death benefit', `death ${deathBenefit.deathDate}, custody value ${deathBenefit.custodyValue ?? '(not yet valued)'}, insurer's 1 % ${deathBenefit.insurerAmount ?? '-'}` +
          `${deathBenefit.beneficiaryName ? `, to ${deathBenefit.beneficiaryName} ${deathBenefit.beneficiaryAccount ?? ''}` : ''}${deathBenefit.orderedIn ? `, ordered in ${deathBenefit.orderedIn}` : ', not yet ordered'}`] as [string, string]]
      : []),
  ];
  const sections: [string, string[], string[][]][] = [
    ['payout orders', ['MONTH', 'INSTALLMENT', 'AMOUNT', 'SELL BY', 'PAY BY', 'FINAL', 'RUN'],
      payout.orders.map((o) => [o.month, String(o.installment), o.amount, o.sellBy, o.payBy, o.final ? 'yes' : 'no', o.runKey])],
    ['withdrawals', ['REQUEST', 'STATUS', 'AMOUNT', 'TO ACCOUNT', 'REQUESTED', 'BY', 'DECISION', 'ORDERED IN'],
      view.withdrawals.map((w) => [w.requestId, w.status, w.amount, `${w.bankName} ${w.account}`, w.requestedAt, w.requestedBy, w.decision ?? '-', w.runKey ?? '-'])],
    ['debit lines', ['RUN', 'CUSTODIAN', 'ACCOUNT', 'CHARGE', 'BASIS', 'AMOUNT', 'FROM', 'TO'],
      view.debitLines.map((l) => [l.runKey, l.custodianId, l.accountNumber, l.charge, l.basis ?? '-', l.amount, l.periodFrom, l.periodTo])],
  ];
  const width = Math.max(...facts.map(([label]) => label.length));
  return [
    `${view.insuranceNumber}  ${view.status}`,
    ...facts.map(([label, text]) => `  ${label.padEnd(width)}  ${text}`),
    ...sections.flatMap(([title, heading, rows]) => ['', `${title}:`, rows.length === 0 ? '  (none)' : indent(table([heading, ...rows]))]),
    '',
  ].join('\n');
}

function indent(text: string): string {
  return text.trimEnd().split('\n').map((line) => `  ${line}`).join('\n');
}
