import { createRequire } from 'node:module';
import type * as PersonnummerModule from 'personnummer';
import type * as OrganisationsnummerModule from 'organisationsnummer';

/**
 * Swedish identifiers, checked with the maintained packages. Both forms are stored
 * and exchanged in full (12-digit personal identity numbers): the 10-digit form's
 * century depends on today's date.
 */

// Both packages are CommonJS whose module.exports is the class itself, while their
// typings declare a default export; require() gives the class under either reading.
const require = createRequire(import.meta.url);
const Personnummer = require('personnummer') as typeof PersonnummerModule.default.default;
const Organisationsnummer = require('organisationsnummer') as typeof OrganisationsnummerModule.default.default;

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
