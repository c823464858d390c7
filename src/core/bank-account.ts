import * as kontonummer from 'kontonummer';

// The package ships ES modules without declaring "type": "module": TypeScript reads its
// typings as CommonJS (the class one `default` deeper) while Node loads the ES module
// (the class is `default`). Take the class under either reading.
type KontonummerClass = typeof kontonummer.default.default;
const loaded = kontonummer.default as unknown as KontonummerClass | { default: KontonummerClass };
const Kontonummer: KontonummerClass = 'default' in loaded ? loaded.default : loaded;

/**
 * A Swedish bank account as a withdrawal is paid to, read from the digits the
 * policyholder gave: a 4-digit clearing number followed by the account number, digits
 * only, no hyphens, and without the check digit Swedbank prints as a fifth clearing
 * digit (8xxx-x). The bank, its account type and the check-digit rule come from the
 * maintained `kontonummer` package (the banks' clearing ranges); what is wrong is
 * said in words a person can act on, because the package itself only says "invalid".
 *
 * Account types (Bankgirot's rules, as the package applies them):
 * - type 1: 7-digit account; check digit mod 11 over clearing number and account;
 * - type 2: the account alone carries the check digit (mod 10, or mod 11 at
 *   Handelsbanken); a shorter account is the same number padded with leading zeros.
 */
export interface BankAccount {
  /** The 4-digit clearing number. */
  readonly clearingNumber: string;
  /** The account number, padded to its bank's length where the bank pads. */
  readonly accountNumber: string;
  readonly bankName: string;
  /** Clearing number and account number together: the form the gateway stores and the API shows. */
  readonly digits: string;
}

export type BankAccountReading = { readonly ok: true; readonly account: BankAccount } | { readonly ok: false; readonly problem: string };

export function parseBankAccount(given: string): BankAccountReading {
  if (!/^\d+$/.test(given)) return { ok: false, problem: `"${given}" is not digits only: give the clearing number and account number without spaces or hyphens` };
  if (given.length < 6) return { ok: false, problem: `${given} is too short: a 4-digit clearing number and then the account number` };
  const clearingNumber = given.slice(0, 4);
  const account = given.slice(4);
  const bank = bankOf(clearingNumber);
  if (!bank) return { ok: false, problem: `clearing number ${clearingNumber} belongs to no Swedish bank` };
  const { min, max } = accountLength(bank);
  if (account.length > max || (bank.type === 1 && account.length < min)) {
    const wanted = min === max ? `${max} digits` : `${min}–${max} digits`;
    return { ok: false, problem: `${bank.bankName} accounts (clearing ${clearingNumber}) have ${wanted} after the clearing number; ${account} has ${account.length}` };
  }
  const accountNumber = account.padStart(min, '0');
  let valid: boolean;
  try {
    valid = new Kontonummer(clearingNumber, accountNumber, { mode: 'lax' }).valid;
  } catch (error) {
    return { ok: false, problem: `${given} is not a ${bank.bankName} account: ${(error as Error).message}` };
  }
  if (!valid) return { ok: false, problem: `the check digit of ${bank.bankName} account ${clearingNumber} ${account} is wrong (${checkRule(bank)}): look for a mistyped digit` };
  return { ok: true, account: { clearingNumber, accountNumber, bankName: bank.bankName, digits: `${clearingNumber}${accountNumber}` } };
}

type BankInfo = ReturnType<KontonummerClass['getSortingCodeInfo']>;

function bankOf(clearingNumber: string): BankInfo | undefined {
  try {
    return Kontonummer.getSortingCodeInfo(clearingNumber);
  } catch {
    return undefined;
  }
}

function accountLength(bank: BankInfo): { min: number; max: number } {
  if (bank.type === 1) return { min: 7, max: 7 };
  return { min: bank.accountMinLength ?? 2, max: bank.accountMaxLength ?? 7 };
}

function checkRule(bank: BankInfo): string {
  if (bank.type === 1) return 'mod 11 over clearing number and account number';
  return bank.comment === 2 ? 'mod 11 over the account number' : 'mod 10 over the account number';
}
