import type { BankAccount } from './bank-account.ts';
import type { YearMonth } from './payout-plan.ts';
import type { Signatory } from './withdrawal-request.rules.ts';

/**
 * The rules of a payout request, pure: who signs it and what they are shown.
 *
 * The insured starts the payout (when payout can begin "the insured is informed and
 * initiates the payout"), so the insured signs every payout request. Who else signs
 * follows who owns the insurance and what it is:
 *
 * - an occupational pension (T): the insured alone. The employer is the policyholder, but
 *   the pension is the employee's: the employer's part ended with the premiums, and the
 *   payout period and start are the insured's to choose within the product's terms;
 * - a private pension or capital insurance (P, K) owned by the insured: the insured;
 * - one owned by another person: the insured and the policyholder, as for a withdrawal —
 *   the policyholder owns the insurance whose value the payout spends;
 * - one owned by an organisation: its company signatories by its signing rule, and the
 *   insured (company-signatories.rules.ts), as for a withdrawal.
 *
 * Worked example: INS-200007, a K insurance of Tove (policyholder) on Ebbe (insured),
 * 10 years from January 2027 to SEB 5000 1234560 — Ebbe and Tove each sign the text of
 * payoutSignText in the BankID app.
 */

/** `company`: an organisation owns it, and its company signatories sign with the insured (company-signatories.rules.ts). */
export function payoutSignatoriesOf(kind: 'P' | 'T' | 'K', policyholder: string, insured: string): Signatory[] | 'company' {
  const insuredSigns: Signatory = { role: 'insured', personalNumber: insured };
  if (kind === 'T' || policyholder === insured) return [insuredSigns];
  if (!/^\d{12}$/.test(policyholder)) return 'company';
  return [{ role: 'policyholder', personalNumber: policyholder }, insuredSigns];
}

const MONTHS = ['januari', 'februari', 'mars', 'april', 'maj', 'juni', 'juli', 'augusti', 'september', 'oktober', 'november', 'december'] as const;

/** 2027-01 → "januari 2027". */
export function swedishMonth(month: YearMonth): string {
  return `${MONTHS[Number(month.slice(5, 7)) - 1]} ${month.slice(0, 4)}`;
}

/** 120 → "10 år", 36 → "36 månader". */
export function swedishPeriod(months: number): string {
  return months % 12 === 0 ? `${months / 12} år` : `${months} månader`;
}

/** The text each signatory reads in the BankID app and signs (simpleMarkdownV1): insurance, period, first month and account. */
export function payoutSignText(input: { insuranceNumber: string; months: number; firstMonth: YearMonth; account: BankAccount }): string {
  const { account } = input;
  return [
    '# Utbetalning från depåförsäkring',
    '',
    `Jag begär att utbetalningen från försäkring ${input.insuranceNumber} börjar **${swedishMonth(input.firstMonth)}**`,
    `och pågår i **${swedishPeriod(input.months)}**, med en utbetalning i månaden`,
    `till konto ${account.bankName} ${account.clearingNumber} ${account.accountNumber}.`,
  ].join('\n');
}
