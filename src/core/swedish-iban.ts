import type { BankAccount } from './bank-account.ts';

/**
 * The IBAN of a Swedish bank account, made from its clearing number and account number
 * (a BankAccount as src/core/bank-account.ts reads it), for payments the insurer makes
 * from its own account in ISO 20022 files (src/messages/payment-order.document.ts).
 *
 * A Swedish IBAN is 24 characters: `SE`, two check digits (ISO 7064 MOD 97-10, as for
 * every IBAN), a 3-digit IBAN-ID naming the bank, and 17 digits made from the national
 * account number (Bankinfrastruktur i Sverige AB, the Swedish Bankers' Association's
 * company: "IBAN och svenskt nationellt kontonummer"; the SWIFT IBAN registry:
 * SE2!n3!n16!n1!n). Which IBAN-ID a clearing series has, and whether its 17 digits hold
 * the clearing number, is the bank's choice, published in the association's list of
 * IBAN-IDs; docs/architecture.md (*Payment orders*) names the sources of the table below.
 * A clearing series not in it has no IBAN here: the account is refused for a payment
 * the insurer makes by IBAN, rather than guessed.
 */

export type IbanReading = { readonly ok: true; readonly iban: string } | { readonly ok: false; readonly problem: string };

/**
 * How the 17 digits after the IBAN-ID are made, left-padded with zeros:
 * - `clearing-and-account`: the 4-digit clearing number and the account number (type 1 accounts);
 * - `account-only`: the account number alone (Handelsbanken, Nordea's personkonto and the other type 2 accounts that leave the clearing number out);
 * - `swedbank-five-digit-clearing`: Swedbank's 5-digit clearing number 8xxx-x, its fifth digit the check digit (mod 10) the bank prints and the gateway's stored digits leave out, then the account number.
 */
type Method = 'clearing-and-account' | 'account-only' | 'swedbank-five-digit-clearing';

interface IbanRule {
  readonly from: number;
  readonly to: number;
  readonly ibanId: string;
  readonly method: Method;
}

const C: Method = 'clearing-and-account';
const A: Method = 'account-only';

/** Clearing series → IBAN-ID and method. Sorted by series; the first that holds the clearing number applies. */
const RULES: readonly IbanRule[] = [
  { from: 1100, to: 1199, ibanId: '300', method: C }, // Nordea
  { from: 1200, to: 1399, ibanId: '120', method: C }, // Danske Bank
  { from: 1400, to: 2099, ibanId: '300', method: C }, // Nordea
  { from: 2300, to: 2399, ibanId: '230', method: C }, // Ålandsbanken
  { from: 2400, to: 2499, ibanId: '120', method: C }, // Danske Bank
  { from: 3000, to: 3299, ibanId: '300', method: C }, // Nordea
  { from: 3300, to: 3300, ibanId: '300', method: A }, // Nordea, personkonto
  { from: 3301, to: 3399, ibanId: '300', method: C }, // Nordea
  { from: 3400, to: 3409, ibanId: '902', method: C }, // Länsförsäkringar Bank
  { from: 3410, to: 3781, ibanId: '300', method: C }, // Nordea
  { from: 3782, to: 3782, ibanId: '300', method: A }, // Nordea, personkonto
  { from: 3783, to: 4999, ibanId: '300', method: C }, // Nordea
  { from: 5000, to: 5999, ibanId: '500', method: C }, // SEB
  { from: 6000, to: 6999, ibanId: '600', method: A }, // Handelsbanken
  { from: 7000, to: 7999, ibanId: '800', method: C }, // Swedbank
  { from: 8000, to: 8999, ibanId: '800', method: 'swedbank-five-digit-clearing' }, // Swedbank and savings banks
  { from: 9020, to: 9029, ibanId: '902', method: C }, // Länsförsäkringar Bank
  { from: 9040, to: 9049, ibanId: '904', method: C }, // Citibank
  { from: 9060, to: 9069, ibanId: '902', method: C }, // Länsförsäkringar Bank
  { from: 9100, to: 9109, ibanId: '910', method: C }, // Nordnet Bank
  { from: 9120, to: 9124, ibanId: '500', method: C }, // SEB
  { from: 9130, to: 9149, ibanId: '500', method: C }, // SEB
  { from: 9150, to: 9169, ibanId: '915', method: C }, // Skandiabanken
  { from: 9170, to: 9179, ibanId: '917', method: C }, // IKANO Bank
  { from: 9180, to: 9189, ibanId: '120', method: A }, // Danske Bank
  { from: 9190, to: 9199, ibanId: '919', method: C }, // DNB Bank
  { from: 9230, to: 9239, ibanId: '923', method: C }, // Marginalen Bank
  { from: 9250, to: 9259, ibanId: '925', method: C }, // SBAB
  { from: 9260, to: 9269, ibanId: '919', method: C }, // DNB Bank
  { from: 9270, to: 9279, ibanId: '927', method: C }, // ICA Banken
  { from: 9280, to: 9289, ibanId: '928', method: C }, // Resurs Bank
  { from: 9300, to: 9329, ibanId: '930', method: A }, // Sparbanken Öresund
  { from: 9330, to: 9349, ibanId: '933', method: A }, // Sparbanken Öresund
  { from: 9390, to: 9399, ibanId: '939', method: C }, // Landshypotek
  { from: 9400, to: 9449, ibanId: '940', method: C }, // Forex Bank
  { from: 9470, to: 9479, ibanId: '947', method: C }, // BNP Paribas
  { from: 9550, to: 9569, ibanId: '955', method: C }, // Avanza Bank
  { from: 9570, to: 9579, ibanId: '957', method: A }, // Sparbanken Syd
  { from: 9590, to: 9599, ibanId: '959', method: C }, // Erik Penser
  { from: 9630, to: 9639, ibanId: '963', method: C }, // Lån & Spar Bank
  { from: 9640, to: 9649, ibanId: '964', method: C }, // NOBA Bank Group (Nordax)
  { from: 9660, to: 9669, ibanId: '966', method: C }, // Svea Bank
  { from: 9880, to: 9889, ibanId: '988', method: C }, // Riksgälden
  { from: 9890, to: 9899, ibanId: '989', method: A }, // Riksgälden
];

/** The IBAN of a Swedish account read by parseBankAccount, or why the gateway makes none. */
export function swedishIbanOf(account: BankAccount): IbanReading {
  const clearing = Number(account.clearingNumber);
  const rule = RULES.find((candidate) => candidate.from <= clearing && clearing <= candidate.to);
  if (!rule) {
    return { ok: false, problem: `no IBAN rule is known for clearing number ${account.clearingNumber} (${account.bankName}): the insurer pays by IBAN; give an account at another bank` };
  }
  const digits = rule.method === 'account-only' ? account.accountNumber
    : rule.method === 'clearing-and-account' ? `${account.clearingNumber}${account.accountNumber}`
      : `${account.clearingNumber}${mod10CheckDigit(account.clearingNumber)}${account.accountNumber.padStart(10, '0')}`;
  if (digits.length > 17) return { ok: false, problem: `${account.digits} is too long for an IBAN of ${account.bankName}` };
  const bban = `${rule.ibanId}${digits.padStart(17, '0')}`;
  return { ok: true, iban: `SE${ibanCheckDigits('SE', bban)}${bban}` };
}

/** Whether a text is an IBAN whose check digits hold (ISO 13616: letters and digits, MOD 97-10 gives 1), any country. */
export function isValidIban(iban: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{1,30}$/.test(iban)) return false;
  return mod97(numeric(`${iban.slice(4)}${iban.slice(0, 4)}`)) === 1;
}

/** Whether a text is a Swedish IBAN: SE, 22 digits, check digits that hold. */
export function isValidSwedishIban(iban: string): boolean {
  return /^SE\d{22}$/.test(iban) && isValidIban(iban);
}

/** The two check digits of an IBAN for a country and BBAN (ISO 7064 MOD 97-10). */
export function ibanCheckDigits(country: string, bban: string): string {
  return String(98 - mod97(numeric(`${bban}${country}00`))).padStart(2, '0');
}

/** Letters as ISO 13616 counts them: A = 10 … Z = 35. */
function numeric(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
}

/** The remainder mod 97 of a long digit string, a few digits at a time (no floating point, no BigInt needed). */
function mod97(digits: string): number {
  let remainder = 0;
  for (let at = 0; at < digits.length; at += 7) remainder = Number(`${remainder}${digits.slice(at, at + 7)}`) % 97;
  return remainder;
}

/** The check digit Swedbank prints as the fifth digit of an 8xxx clearing number (mod 10, Luhn). */
function mod10CheckDigit(digits: string): string {
  let sum = 0;
  [...digits].reverse().forEach((digit, index) => {
    const weighted = Number(digit) * (index % 2 === 0 ? 2 : 1);
    sum += weighted > 9 ? weighted - 9 : weighted;
  });
  return String((10 - (sum % 10)) % 10);
}
