import { createRequire } from 'node:module';
import type * as PersonnummerModule from 'personnummer';
import type * as OrganisationsnummerModule from 'organisationsnummer';
import type validator from 'validator';

/**
 * Swedish identifiers, checked with the maintained packages. Both forms are stored
 * and exchanged in full (12-digit personal identity numbers): the 10-digit form's
 * century depends on today's date.
 */

// The packages are CommonJS whose module.exports is the class itself, while their
// typings declare a default export; require() gives the class under either reading.
const require = createRequire(import.meta.url);
const Personnummer = require('personnummer') as typeof PersonnummerModule.default.default;
const Organisationsnummer = require('organisationsnummer') as typeof OrganisationsnummerModule.default.default;
const isISIN = require('validator/lib/isISIN') as typeof validator.isISIN;

/** A personal identity number or coordination number in the 12-digit form YYYYMMDDNNNC. */
export function isValidPersonalIdentityNumber(value: string): boolean {
  if (!/^\d{12}$/.test(value)) return false;
  // Employers send the same people again and again (a salary file a month): the answer is kept.
  let valid = checkedNumbers.get(value);
  if (valid === undefined) {
    valid = Personnummer.valid(value, { allowCoordinationNumber: true, allowInterimNumber: false });
    if (checkedNumbers.size >= MAX_CHECKED_NUMBERS) checkedNumbers.clear();
    checkedNumbers.set(value, valid);
  }
  return valid;
}

/** Answers kept of isValidPersonalIdentityNumber (the check is a pure function of the digits). */
const checkedNumbers = new Map<string, boolean>();
const MAX_CHECKED_NUMBERS = 100_000;

/** A 10-digit organisation number. */
export function isValidOrganisationNumber(value: string): boolean {
  return /^\d{10}$/.test(value) && Organisationsnummer.valid(value);
}

/** An ISIN (ISO 6166): two-letter country, nine characters, and its check digit right. */
export function isValidIsin(value: string): boolean {
  return isISIN(value);
}

/**
 * A personal identity or coordination number in running text: 12 digits (YYYYMMDDNNNC)
 * or 10 (YYMMDDNNNC), with or without the `-` or `+` before the last four. A run of
 * digits inside a lower-case hexadecimal string (a hash) or a longer number is not one.
 */
const NUMBER_IN_TEXT = /(?<![0-9a-f])((?:19|20)?\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]|6[1-9]|[78]\d|9[01]))[-+]?\d{4}(?!\d)/g;

/**
 * The text with every personal identity number masked to its date of birth:
 * `197001011233` and `19700101-1233` become `19700101-****`, `7001011233` becomes
 * `700101-****`. For logs, which must not hold the numbers; what is sent to the person's
 * employer or custodian keeps them.
 */
export function maskPersonalIdentityNumbers(text: string): string {
  return text.replace(NUMBER_IN_TEXT, (_number, birth: string) => `${birth}-****`);
}
