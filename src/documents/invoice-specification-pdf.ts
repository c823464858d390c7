import type { InvoiceSpecificationContent } from '../core/invoice-specification.ts';
import { renderTextPdf, type TextPdfSection } from './text-pdf.ts';

/**
 * The invoice specification as a PDF, for people: the same content as the XML
 * document (src/messages/invoice-specification.document.ts) — the month's totals, then
 * each insured with category, cost center, each insurance's monthly premium, days
 * billed, premium, extra premiums and billing stops, and the changes of the month, then
 * the totals per cost center. Rendered once, when the specification is made, and kept
 * with it; its creation date is the specification's, so the bytes do not change.
 */
export function renderInvoiceSpecificationPdf(
  spec: { readonly documentId: string; readonly employerName: string; readonly employerOrganisationNumber: string; readonly content: InvoiceSpecificationContent },
  createdAt: Date,
): Promise<Buffer> {
  const { content } = spec;
  const { totals } = content;
  const sections: TextPdfSection[] = [
    {
      heading: `${spec.employerName} (${spec.employerOrganisationNumber}), agreement ${content.agreementNumber}`,
      lines: [
        `Period: ${content.periodFrom} – ${content.periodTo}`, `Specification: ${spec.documentId}`,
        `Insured: ${totals.insuredCount}`, `Premiums: ${totals.premiums} SEK`, `Extra premiums: ${totals.extraPremiums} SEK`,
        `Total invoiced: ${totals.total} SEK (the month before: ${totals.previousMonthTotal} SEK)`,
      ],
    },
    ...content.insured.map((insured) => ({
      heading: `${insured.personalIdentityNumber} · category ${insured.categoryCode ?? '–'} · cost center ${insured.costCenter ?? '–'} · ${insured.total} SEK`,
      lines: [
        ...insured.insurances.flatMap((line) => [
          `${line.insuranceNumber} (${line.productCode}): monthly premium ${line.monthlyPremium ?? '–'}, ${line.billedDays} days billed, premium ${line.premium}, total ${line.total} (the month before ${line.previousMonthTotal})`,
          ...line.extraPremiums.map((extra) => `  Extra premium ${extra.invoiceNumber}: ${extra.amount}, due ${extra.dueDate}`),
          ...line.billingStops.map((stop) => `  Billing stopped ${stop.from} – ${stop.to ?? 'until further notice'}${stop.reason ? ` (${stop.reason})` : ''}: ${stop.daysInMonth} days of the month`),
        ]),
        ...insured.changes.map((change) => `Change ${change.effectiveDate}: ${change.kind}${change.insuranceNumber ? ` ${change.insuranceNumber}` : ''}${change.from !== undefined ? ` from ${change.from}` : ''}${change.to !== undefined ? ` to ${change.to}` : ''}`),
      ],
    })),
    { heading: 'Per cost center', lines: content.costCenters.map((costCenter) => `${costCenter.costCenter ?? 'none'}: ${costCenter.total} SEK`) },
  ];
  return renderTextPdf(`Invoice specification ${content.month}`, sections, createdAt);
}
