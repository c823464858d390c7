import type { Engagement, EngagementInsurance } from '../core/engagement.ts';
import { CATALOGUE_NAMESPACE } from './catalogue-namespace.ts';
import { element } from './xml-writer.ts';

/**
 * Writes the EngagementResponse document (schemas/EngagementResponse.xsd): a customer's
 * engagement as a direct query answers it in XML, the same content as its JSON answer.
 * Pure string building in schema order; the same input gives the same bytes.
 */
export const ENGAGEMENT_RESPONSE = 'EngagementResponse';

export interface EngagementResponseInput {
  readonly messageId: string;
  readonly createdAt: Date;
  readonly advisorFirm: string;
  readonly powerKind: 'information' | 'intermediation';
  readonly engagement: Engagement;
}

export function engagementResponseXml(input: EngagementResponseInput): string {
  const { engagement } = input;
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n', `<${ENGAGEMENT_RESPONSE} xmlns="${CATALOGUE_NAMESPACE}">\n`, '  <Header>\n'];
  out.push(
    element('MessageId', input.messageId, '    '),
    element('CreatedAt', input.createdAt.toISOString(), '    '),
    element('AsOf', engagement.asOf, '    '),
    element('CustomerId', engagement.customerId, '    '),
    element('AdvisorFirm', input.advisorFirm, '    '),
    element('PowerOfAttorney', input.powerKind, '    '),
    '  </Header>\n',
  );
  for (const insurance of engagement.insurances) out.push(...insuranceXml(insurance));
  out.push(`</${ENGAGEMENT_RESPONSE}>\n`);
  return out.join('');
}

function insuranceXml(insurance: EngagementInsurance): string[] {
  const i = '    ';
  const ii = '      ';
  const iii = '        ';
  const out: string[] = ['  <Insurance>\n', element('InsuranceNumber', insurance.insuranceNumber, i)];
  for (const role of insurance.roles) out.push(element('Role', role, i));
  out.push(
    element('Policyholder', insurance.policyholder ?? undefined, i),
    element('Insured', insurance.insured, i),
    element('ProductCode', insurance.product.code, i),
    element('ProductName', insurance.product.name, i),
    element('InsuranceType', insurance.insuranceType, i),
    element('StartDate', insurance.startDate, i),
    element('Status', insurance.status, i),
  );
  if (insurance.end) out.push(`${i}<End>\n`, element('LastDay', insurance.end.lastDay, ii), element('Cause', insurance.end.cause, ii), `${i}</End>\n`);
  const { custody } = insurance;
  if (custody) {
    out.push(`${i}<Custody>\n`, element('AccountNumber', custody.accountNumber, ii), element('CustodianId', custody.custodianId ?? undefined, ii), element('CustodianName', custody.custodianName ?? undefined, ii));
    if (custody.latestValue) out.push(`${ii}<LatestValue>\n`, element('Value', custody.latestValue.totalValue, iii), element('AsOf', custody.latestValue.asOf, iii), `${ii}</LatestValue>\n`);
    out.push(`${i}</Custody>\n`);
  }
  out.push(`${i}<Premiums>\n`, element('MonthlyAmount', insurance.premiums.monthlyAmount ?? undefined, ii), element('PaidUpFrom', insurance.premiums.paidUpFrom ?? undefined, ii));
  for (const premium of insurance.premiums.history) out.push(`${ii}<Premium>\n`, element('From', premium.from, iii), element('MonthlyAmount', premium.monthlyAmount, iii), `${ii}</Premium>\n`);
  out.push(`${i}</Premiums>\n`);
  for (const coverage of insurance.coverages) out.push(`${i}<Coverage>\n`, element('Type', coverage.type, ii), element('From', coverage.from, ii), `${i}</Coverage>\n`);
  out.push(...payoutXml(insurance.payout));
  if (insurance.beneficiary) {
    out.push(`${i}<Beneficiary>\n`, element('Choice', insurance.beneficiary.choice, ii), ...insurance.beneficiary.names.map((name) => element('Name', name, ii)), `${i}</Beneficiary>\n`);
  }
  const { charges } = insurance;
  out.push(`${i}<Charges>\n`, element('From', charges.from, ii), element('To', charges.to, ii), element('Total', charges.total, ii));
  for (const line of charges.lines) {
    out.push(`${ii}<Charge>\n`, element('Type', line.charge, iii), element('Basis', line.basis ?? undefined, iii), element('Amount', line.amount, iii));
    out.push(element('PeriodFrom', line.periodFrom, iii), element('PeriodTo', line.periodTo, iii), `${ii}</Charge>\n`);
  }
  out.push(`${i}</Charges>\n`, '  </Insurance>\n');
  return out;
}

function payoutXml(payout: EngagementInsurance['payout']): string[] {
  const i = '    ';
  const ii = '      ';
  const iii = '        ';
  const out = [`${i}<Payout>\n`, element('CanBegin', payout.canBegin, ii)];
  if (payout.plan) {
    const { plan } = payout;
    out.push(`${ii}<Plan>\n`, element('StartMonth', plan.startMonth, iii), element('Months', plan.months ?? undefined, iii), element('MonthlyAmount', plan.monthlyAmount ?? undefined, iii));
    out.push(element('Status', plan.status, iii), element('CompletedMonth', plan.completedMonth ?? undefined, iii), `${ii}</Plan>\n`);
  }
  for (const payment of payout.payouts) {
    out.push(`${ii}<Payment>\n`, element('Month', payment.month, iii), element('Installment', payment.installment, iii), element('Amount', payment.amount, iii));
    out.push(element('PayBy', payment.payBy, iii), element('Final', String(payment.final), iii), `${ii}</Payment>\n`);
  }
  out.push(`${i}</Payout>\n`);
  return out;
}
