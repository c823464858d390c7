import type { TransferLeaflet } from '../core/transfer-leaflet.ts';
import { renderTextPdf, type TextPdfSection } from './text-pdf.ts';

/**
 * The transfer leaflet (flyttblad) as a PDF, for people: the receiving insurer's staff,
 * our own, the policyholder asking what moved. The same content as the TransferLeaflet
 * XML, from the leaflet as recorded, so the two never disagree; dated by the leaflet's
 * own CreatedAt, so the same leaflet gives the same bytes.
 */
const TYPE_NAMES = { K: 'capital insurance (K)', P: 'private pension (P)', T: 'occupational pension (T)' } as const;
const TAX_NAMES = { P: 'P — pension insurance', K: 'K — capital insurance' } as const;

export function renderTransferLeafletPdf(leaflet: TransferLeaflet): Promise<Buffer> {
  const { insurance, value, conditions } = leaflet;
  const sections: TextPdfSection[] = [
    {
      heading: 'Transfer',
      lines: [
        `Releasing insurer: ${leaflet.releasingInsurer}`,
        `Receiving insurer: ${leaflet.receivingInsurer}`,
        `Releasing insurer's reference: ${leaflet.releasingReference}`,
        `Leaflet: ${leaflet.messageId}, written ${leaflet.createdAt}`,
      ],
    },
    {
      heading: 'Insurance',
      lines: [
        `Insurance number: ${insurance.insuranceNumber}`,
        `Insurance type: ${TYPE_NAMES[insurance.insuranceType]}`,
        `Tax category: ${TAX_NAMES[insurance.taxCategory]}`,
        `In force: ${insurance.startDate} – ${insurance.lastDayInForce}`,
        `Policyholder: ${insurance.policyholder}`,
        `Insured: ${insurance.insured}`,
      ],
    },
    { heading: 'Value', lines: [`${value.amount} SEK on ${value.valueDate}`] },
    {
      heading: 'Conditions that follow the capital',
      lines: [
        conditions.payoutRestriction === 'pension'
          ? `Payout restriction: paid out as a pension only — monthly, over ${conditions.minimumPayoutMonths ?? '?'} months at least; never surrendered`
          : 'Payout restriction: none',
        `Earliest payout age: ${conditions.earliestPayoutAge}`,
        ...(conditions.agreedPayoutFrom ? [`Agreed payout start: ${conditions.agreedPayoutFrom}`] : []),
        `Repayment protection: ${conditions.repaymentProtection ? 'yes' : 'no'}`,
        conditions.beneficiary
          ? `Beneficiaries: ${conditions.beneficiary.choice === 'standard' ? "the terms' standard order" : conditions.beneficiary.names.join(', ')}`
          : 'Beneficiaries: no arrangement recorded',
      ],
    },
  ];
  return renderTextPdf(`Transfer leaflet ${insurance.insuranceNumber}`, sections, new Date(leaflet.createdAt));
}
