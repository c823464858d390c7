import type { WithdrawalRequestRecord } from '../ledger/advice/withdrawal-requests.repository.ts';
import { renderTextPdf } from './text-pdf.ts';

/**
 * The receipt of a withdrawal request, shown before signing: the request, the account
 * the money goes to, who must sign, and the very text each signatory signs in BankID.
 */
export interface WithdrawalReceipt {
  readonly requestId: string;
  readonly signCaseId: string;
  readonly insuranceNumber: string;
  readonly customerId: string;
  readonly amount: string;
  readonly accountNumber: string;
  readonly bankName: string;
  readonly requestedAt: string;
  readonly status: WithdrawalRequestRecord['status'];
  readonly signatories: readonly { readonly role: string; readonly personalNumber: string; readonly signed: boolean }[];
  /** What each signatory reads and signs in the BankID app (simpleMarkdownV1). */
  readonly textToSign: string;
}

export function renderWithdrawalReceipt(receipt: WithdrawalReceipt): Promise<Buffer> {
  return renderTextPdf(`Withdrawal request ${receipt.requestId}`, [
    { heading: 'Request', lines: [`Insurance: ${receipt.insuranceNumber}`, `Policyholder: ${receipt.customerId}`, `Amount: ${receipt.amount} SEK`, `To account: ${receipt.bankName} ${receipt.accountNumber}`, `Requested ${receipt.requestedAt}`, `Status: ${receipt.status}`] },
    { heading: `Signatories (sign case ${receipt.signCaseId})`, lines: receipt.signatories.map((s) => `${s.role}: ${s.personalNumber}${s.signed ? ', signed' : ''}`) },
    { heading: 'Text to sign with BankID', lines: receipt.textToSign.split('\n').filter((line) => line.trim() !== '').map((line) => line.replace(/^#+\s*/, '').replaceAll('**', '')) },
  ], new Date(receipt.requestedAt));
}
