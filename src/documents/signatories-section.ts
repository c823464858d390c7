import type { ApplicationSigning } from '../ledger/advice/applications.repository.ts';
import type { TextPdfSection } from './text-pdf.ts';

/**
 * The signatories of an application on its receipt: its sign case and last day to sign,
 * and each signatory by role and personnummer with when they signed, or "not yet
 * signed" — so the receipt shows who has made the application binding.
 */
export function signatoriesSection(signing: ApplicationSigning | null): TextPdfSection {
  if (!signing) return { heading: 'Signatories', lines: ['Submitted before applications were signed: none.'] };
  const company = signing.companySignaturesRequired === null ? [] : [`${signing.companySignaturesRequired} of the company signatories must sign.`];
  return {
    heading: `Signatories (sign case ${signing.signCaseId})`,
    lines: [
      `To be signed by ${signing.signBy}.`,
      ...company,
      ...signing.signatories.map((s) => `${s.role} ${s.personalNumber}: ${s.signedAt ? `signed ${s.signedAt}` : 'not yet signed'}`),
    ],
  };
}
