import type { InvoiceSpecificationContent } from '../core/invoice-specification.ts';
import { CATALOGUE_NAMESPACE } from './catalogue-namespace.ts';
import { element } from './xml-writer.ts';

/**
 * Writes the InvoiceSpecification document (schemas/InvoiceSpecification.xsd): an
 * agreement's monthly specification, sent to the employer. Pure string building: the
 * amounts come from src/core/invoice-specification.ts; this only lays them out in schema
 * order.
 *
 * Invariant: the same input gives the same bytes.
 */

export const INVOICE_SPECIFICATION = 'InvoiceSpecification';

export interface InvoiceSpecificationInput {
  readonly messageId: string;
  readonly createdAt: Date;
  readonly insurerOrganisationNumber: string;
  readonly employerOrganisationNumber: string;
  readonly content: InvoiceSpecificationContent;
}

/** The document id of an agreement's specification for a month: IS-AGR-1001-2026-11. */
export function invoiceSpecificationId(agreementNumber: string, month: string): string {
  return `IS-${agreementNumber}-${month}`;
}

/** Its file name, unique per agreement and month: invoice-specification-AGR-1001-2026-11.InvoiceSpecification.xml. */
export function invoiceSpecificationFileName(agreementNumber: string, month: string): string {
  return `invoice-specification-${agreementNumber}-${month}.${INVOICE_SPECIFICATION}.xml`;
}

export function invoiceSpecificationXml(input: InvoiceSpecificationInput): string {
  const { content } = input;
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n', `<InvoiceSpecification xmlns="${CATALOGUE_NAMESPACE}">\n`, '  <Header>\n'];
  out.push(
    element('MessageId', input.messageId, '    '), element('CreatedAt', input.createdAt.toISOString(), '    '),
    element('InsurerOrganisationNumber', input.insurerOrganisationNumber, '    '), element('EmployerOrganisationNumber', input.employerOrganisationNumber, '    '),
    element('AgreementNumber', content.agreementNumber, '    '), element('Month', content.month, '    '),
    element('PeriodFrom', content.periodFrom, '    '), element('PeriodTo', content.periodTo, '    '), '  </Header>\n',
  );
  for (const insured of content.insured) {
    out.push('  <Insured>\n', element('PersonalIdentityNumber', insured.personalIdentityNumber, '    '));
    out.push(element('CategoryCode', insured.categoryCode ?? undefined, '    '), element('CostCenter', insured.costCenter ?? undefined, '    '));
    for (const line of insured.insurances) {
      out.push('    <Insurance>\n', element('InsuranceNumber', line.insuranceNumber, '      '), element('ProductCode', line.productCode, '      '));
      out.push(element('MonthlyPremium', line.monthlyPremium ?? undefined, '      '), element('BilledDays', line.billedDays, '      '), element('Premium', line.premium, '      '));
      for (const extra of line.extraPremiums) {
        out.push('      <ExtraPremium>\n', element('InvoiceNumber', extra.invoiceNumber, '        '), element('Amount', extra.amount, '        '));
        out.push(element('DueDate', extra.dueDate, '        '), '      </ExtraPremium>\n');
      }
      for (const stop of line.billingStops) {
        out.push('      <BillingStop>\n', element('From', stop.from, '        '), element('To', stop.to ?? undefined, '        '));
        out.push(element('Reason', stop.reason ?? undefined, '        '), element('DaysInMonth', stop.daysInMonth, '        '), '      </BillingStop>\n');
      }
      out.push(element('PreviousMonthTotal', line.previousMonthTotal, '      '), element('Total', line.total, '      '), '    </Insurance>\n');
    }
    for (const change of insured.changes) {
      out.push('    <Change>\n', element('Kind', change.kind, '      '), element('EffectiveDate', change.effectiveDate, '      '));
      out.push(element('InsuranceNumber', change.insuranceNumber, '      '), element('From', change.from, '      '), element('To', change.to, '      '), '    </Change>\n');
    }
    out.push(element('Total', insured.total, '    '), '  </Insured>\n');
  }
  for (const costCenter of content.costCenters) {
    out.push('  <CostCenterTotal>\n', element('CostCenter', costCenter.costCenter ?? undefined, '    '), element('Total', costCenter.total, '    '), '  </CostCenterTotal>\n');
  }
  const { totals } = content;
  out.push('  <Totals>\n', element('InsuredCount', totals.insuredCount, '    '), element('Premiums', totals.premiums, '    '));
  out.push(element('ExtraPremiums', totals.extraPremiums, '    '), element('Total', totals.total, '    '), element('PreviousMonthTotal', totals.previousMonthTotal, '    '));
  out.push('  </Totals>\n', '</InvoiceSpecification>\n');
  return out.join('');
}
