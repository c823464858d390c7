import { Decimal } from 'decimal.js';
import { nextBankingDay } from './banking-calendar.ts';
import type { BankAccount } from './bank-account.ts';
import type { IsoDate } from './calendar-date.ts';
import type { ErrorCode } from './error-codes.ts';
import type { WithdrawalBounds } from './withdrawal-information.rules.ts';

/**
 * The rules of a withdrawal request, pure: whether a request may be made (the amount
 * within the insurance's bounds today, to an account validated for the policyholder),
 * who must sign it, what they are shown, where the request stands, and when the
 * custodian sells and pays.
 *
 * Worked example: a K insurance worth 120 000 SEK with 8.56 reserved for charges allows
 * 1 000.00 … 119 991.44; a request of 119 991.45 is refused WITHDRAWAL_AMOUNT_OUT_OF_BOUNDS,
 * one of 12 500.00 to the validated account 5000 1234560 is made, and the information
 * then shows 12 500.00 as requested, so the largest further request is 107 491.44.
 */
export interface RequestProblem {
  readonly path: string;
  readonly code: ErrorCode;
  readonly message: string;
}

export function requestProblems(input: { bounds: WithdrawalBounds; amount: string; accountValidated: boolean; accountDigits: string }): RequestProblem[] {
  const problems: RequestProblem[] = [];
  const { bounds } = input;
  if (!bounds.allowed) {
    problems.push({ path: '$.insuranceNumber', code: 'WITHDRAWAL_NOT_ALLOWED', message: `The insurance allows no withdrawal: ${bounds.reason}.` });
  } else {
    const amount = new Decimal(input.amount);
    if (amount.lessThan(bounds.minimum) || amount.greaterThan(bounds.maximum)) {
      problems.push({ path: '$.amount', code: 'WITHDRAWAL_AMOUNT_OUT_OF_BOUNDS', message: `${amount.toFixed(2)} SEK is outside what can be withdrawn today: ${bounds.minimum} to ${bounds.maximum} SEK.` });
    }
  }
  if (!input.accountValidated) {
    problems.push({ path: '$.accountNumber', code: 'WITHDRAWAL_ACCOUNT_NOT_VALIDATED', message: `The account ${input.accountDigits} is not validated for the policyholder's withdrawals (register it: POST /Customer/{account}/WithdrawalAccount; it is validated at 13:00).` });
  }
  return problems;
}

export type SignatoryRole = 'policyholder' | 'insured' | 'company-signatory';

export interface Signatory {
  readonly role: SignatoryRole;
  readonly personalNumber: string;
}

/** Who must sign: the policyholder, and the insured when another person. An organisation policyholder: undefined (its company signatories sign: company-signatories.rules.ts). */
export function signatoriesOf(policyholder: string, insured: string): Signatory[] | undefined {
  if (!/^\d{12}$/.test(policyholder)) return undefined;
  const policyholderSigns: Signatory = { role: 'policyholder', personalNumber: policyholder };
  return insured === policyholder ? [policyholderSigns] : [policyholderSigns, { role: 'insured', personalNumber: insured }];
}

/** The text each signatory reads in the BankID app and signs (simpleMarkdownV1): insurance, amount and account. */
export function withdrawalSignText(input: { insuranceNumber: string; amount: string; account: BankAccount }): string {
  const { account } = input;
  return [
    '# Uttag från depåförsäkring',
    '',
    `Jag begär uttag av **${swedishAmount(input.amount)} kr** från försäkring ${input.insuranceNumber}`,
    `till konto ${account.bankName} ${account.clearingNumber} ${account.accountNumber}.`,
  ].join('\n');
}

/** 12500 → "12 500,00" (a narrow no-break space would not show in every BankID app; a plain space does). */
export function swedishAmount(amount: string): string {
  const [whole, fraction] = new Decimal(amount).toFixed(2).split('.') as [string, string];
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ' ')},${fraction}`;
}

export type WithdrawalStatus = 'requested' | 'approved' | 'signed' | 'rejected' | 'ordered' | 'sent' | 'paid-out';
/** The stored part: what the ledger keeps; `sent` and `paid-out` follow the order's delivery and the custodian's report. */
export type StoredWithdrawalStatus = Extract<WithdrawalStatus, 'requested' | 'approved' | 'signed' | 'rejected' | 'ordered'>;

/** The stored status from the decision and the signatures (before the order). */
export function statusBeforeOrder(decision: 'approved' | 'rejected' | null, fullySigned: boolean): StoredWithdrawalStatus {
  if (decision === 'rejected') return 'rejected';
  if (decision === 'approved') return fullySigned ? 'ordered' : 'approved';
  return fullySigned ? 'signed' : 'requested';
}

/**
 * When the custodian sells and pays a withdrawal ordered on `today`: the sale on the
 * next banking day, the payment two banking days after it (the sale settles T+2).
 */
export function withdrawalOrderDays(today: IsoDate): { sellBy: IsoDate; payBy: IsoDate } {
  const sellBy = nextBankingDay(today);
  return { sellBy, payBy: nextBankingDay(nextBankingDay(sellBy)) };
}
