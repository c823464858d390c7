import { addDays, type IsoDate } from './calendar-date.ts';
import type { RuleRejection } from './plan-rules.ts';

/**
 * Rules of an agreement's contact persons (UpdateAdministrators): the HR administrators
 * and case handlers at the employer or its administrator whom the insurer deals with.
 * A person holds a role over a period [validFrom, validTo], validTo being the last day
 * (null: until further notice). Periods of one person in one role never overlap, and
 * a role is ended by giving its current period an end, never by deleting it.
 */
export const CONTACT_ROLES = ['HrAdministrator', 'CaseHandler'] as const;
export type ContactRole = (typeof CONTACT_ROLES)[number];

export interface ContactPeriod {
  readonly personalIdentityNumber: string;
  readonly name: string;
  readonly role: ContactRole;
  readonly validFrom: IsoDate;
  readonly validTo: IsoDate | null;
}

/** The period of `contacts` (one person's) in `role` that has no end yet, if any. */
export function currentPeriod<C extends ContactPeriod>(contacts: readonly C[], role: ContactRole): C | undefined {
  return contacts.filter((contact) => contact.role === role && contact.validTo === null).sort((a, b) => (a.validFrom < b.validFrom ? 1 : -1))[0];
}

/** A person can be added to a role from `validFrom` only if no period of theirs in that role reaches that day or later. */
export function checkCanAdd(contacts: readonly ContactPeriod[], role: ContactRole, validFrom: IsoDate, agreementNumber: string): RuleRejection | undefined {
  const overlapping = contacts.find((contact) => contact.role === role && (contact.validTo === null || contact.validTo >= validFrom));
  if (!overlapping) return undefined;
  const who = `${overlapping.personalIdentityNumber} (${overlapping.name})`;
  return {
    code: 'ADMINISTRATOR_ALREADY_REGISTERED',
    text:
      overlapping.validTo === null
        ? `${who} is already ${role} of agreement ${agreementNumber} from ${overlapping.validFrom} until further notice; remove the role first or add another role.`
        : `${who} is ${role} of agreement ${agreementNumber} from ${overlapping.validFrom} to ${overlapping.validTo}, which overlaps ValidFrom ${validFrom}; add the role from ${addDays(overlapping.validTo, 1)} or later.`,
  };
}

/** A person can be removed from a role only while they hold it without an end date; gives that period. */
export function checkCanRemove<C extends ContactPeriod>(
  contacts: readonly C[],
  removal: { personalIdentityNumber: string; role: ContactRole; agreementNumber: string },
): { current: C } | { reject: RuleRejection } {
  const { personalIdentityNumber, role, agreementNumber } = removal;
  const current = currentPeriod(contacts, role);
  if (current) return { current };
  const lastDay = contacts.filter((contact) => contact.role === role).map((contact) => contact.validTo).sort().at(-1);
  const held = [...new Set(contacts.filter((contact) => contact.validTo === null).map((contact) => contact.role))].join(', ');
  const why = lastDay ? `; their last day as ${role} is already set to ${lastDay}` : held ? `; their current role is ${held}` : '';
  return { reject: { code: 'ADMINISTRATOR_UNKNOWN', text: `${personalIdentityNumber} is not a current ${role} of agreement ${agreementNumber}${why}.` } };
}

/**
 * ValidTo, the last day in the role, may be the day before the period began, which
 * cancels a registration that has not started yet; an earlier day would leave a period
 * that ends before it begins.
 */
export function checkValidTo(current: ContactPeriod, validTo: IsoDate): RuleRejection | undefined {
  const earliest = addDays(current.validFrom, -1);
  if (validTo >= earliest) return undefined;
  return {
    code: 'EFFECTIVE_DATE_BEFORE_START',
    text: `ValidTo ${validTo} is before ${current.personalIdentityNumber} (${current.name}) became ${current.role} on ${current.validFrom}; the earliest ValidTo is ${earliest}.`,
  };
}
