import { parseBankAccount, type BankAccount } from './bank-account.ts';
import { decimal, toOre } from './charges/money.ts';
import type { ProductKind } from './charges/charges.ts';
import { swedishIbanOf } from './swedish-iban.ts';

/**
 * The death benefit of repayment protection (docs/architecture.md, *Death benefits*):
 * when the insured of a capital insurance dies before payout starts, 101 % of the
 * custody value is paid out. The custodian can only pay what the account holds, so the benefit is two payments: the
 * custody value, sold and paid out in full by the custodian, and 1 % of it, which the
 * insurer pays from its own funds. Pure: the ledger gives the facts and the value.
 */

/** Whether a death pays a death benefit, and when not, why nothing more is ordered. */
export type DeathBenefitDecision = 'due' | 'not-capital-insurance' | 'no-repayment-protection' | 'in-payout';

export function decideDeathBenefit(facts: { kind: ProductKind; repaymentProtection: boolean; inPayout: boolean }): DeathBenefitDecision {
  if (facts.kind !== 'K') return 'not-capital-insurance';
  if (!facts.repaymentProtection) return 'no-repayment-protection';
  if (facts.inPayout) return 'in-payout';
  return 'due';
}

/** The insurer's 1 % of a custody value, half up to öre; a negative value counts as nothing held. */
export function insurerShare(custodyValue: string): string {
  if (custodyValue.startsWith('-')) return '0.00';
  return toOre(decimal(custodyValue, 'custody value').dividedBy(100));
}

/** Who the death benefit is paid to: the beneficiary's name and bank account, and that account's IBAN (for the insurer's 1 %). */
export interface Beneficiary {
  readonly name: string;
  readonly account: BankAccount;
  readonly iban: string;
}

export type BeneficiaryReading =
  | { readonly ok: true; readonly beneficiary: Beneficiary }
  | { readonly ok: false; readonly code: 'REQUEST_INVALID' | 'BANK_ACCOUNT_INVALID'; readonly problem: string };

/** The longest name kept: what a payment order's creditor name and a bank's payee field both take. */
export const BENEFICIARY_NAME_MAX = 70;

/**
 * Reads a beneficiary as staff give it, `{ "name": "…", "account": "50001234560" }`: a
 * name, and a Swedish bank account by the bank rules (src/core/bank-account.ts: clearing
 * number and account number, digits only) whose IBAN the insurer can pay its 1 % to
 * (src/core/swedish-iban.ts). A malformed body is REQUEST_INVALID; an account the rules
 * refuse, or one with no IBAN, BANK_ACCOUNT_INVALID.
 */
export function readBeneficiary(value: unknown, path = 'beneficiary'): BeneficiaryReading {
  const given = (value ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) problems.push(`${path}: an object { "name", "account" }`);
  const name = typeof given.name === 'string' ? given.name.trim().replace(/\s+/g, ' ') : '';
  if (name.length === 0 || name.length > BENEFICIARY_NAME_MAX || /[\p{Cc}]/u.test(name)) problems.push(`${path}.name: the beneficiary's name, 1–${BENEFICIARY_NAME_MAX} characters`);
  if (typeof given.account !== 'string' || given.account.length === 0) problems.push(`${path}.account: clearing number and account number, digits only`);
  if (problems.length > 0) return { ok: false, code: 'REQUEST_INVALID', problem: problems.join('; ') };
  const reading = parseBankAccount(given.account as string);
  if (!reading.ok) return { ok: false, code: 'BANK_ACCOUNT_INVALID', problem: `${path}.account: ${reading.problem}` };
  const iban = swedishIbanOf(reading.account);
  if (!iban.ok) return { ok: false, code: 'BANK_ACCOUNT_INVALID', problem: `${path}.account: ${iban.problem}` };
  return { ok: true, beneficiary: { name, account: reading.account, iban: iban.iban } };
}
