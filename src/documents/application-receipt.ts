import type { InsuranceApplicationRecord } from '../ledger/advice/applications.repository.ts';
import { signatoriesSection } from './signatories-section.ts';
import { renderTextPdf } from './text-pdf.ts';

/**
 * The receipt of an application: a PDF copy of what was applied for, with the
 * application id and the time it was submitted, and who signs it and who has, when, for
 * the advisor to hand to the customer.
 */
export function renderApplicationReceipt(application: InsuranceApplicationRecord): Promise<Buffer> {
  const body = application.body;
  const premium = [body.premium.single ? `single ${body.premium.single} SEK` : undefined, body.premium.monthly ? `monthly ${body.premium.monthly} SEK` : undefined].filter(Boolean).join(', ');
  return renderTextPdf(`Application ${application.applicationId}`, [
    { heading: 'Received', lines: [`Submitted ${application.submittedAt} by advisor ${application.advisorCode} (${application.firmOrganisationNumber})`, `Status: ${application.status}`] },
    { heading: 'Insurance', lines: [`Product: ${application.productName} (${application.productId})`, `Policyholder: ${body.policyholder.id}`, `Insured: ${body.insured.id}`, `Premium: ${premium}`, `Custodian: ${body.custodianId}`] },
    { heading: 'Funds', lines: body.funds.map((fund) => `${fund.isin}: ${fund.percent} %`) },
    { heading: 'Beneficiaries and coverages', lines: [
      body.beneficiary.choice === 'standard' ? 'Beneficiaries: the standard order of the terms' : `Beneficiaries: ${(body.beneficiary.names ?? []).join(', ')}`,
      `Repayment protection: ${body.coverages.repaymentProtection ? 'yes' : 'no'}`, `Premium waiver: ${body.coverages.premiumWaiver ? 'yes' : 'no'}`,
    ] },
    signatoriesSection(application.signing),
  ], new Date(application.submittedAt));
}
