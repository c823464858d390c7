import { checkCanAdd, checkCanRemove, checkValidTo, type ContactRole } from '../../core/agreement-contacts.rules.ts';
import { checkEffectiveDate, type RuleRejection } from '../../core/plan-rules.ts';
import { endContacts, findContacts, insertContacts, type ContactRecord } from '../../ledger/plan/update-administrators.repository.ts';
import { childOf, optionalTextOf, textOf, type XmlElement } from '../xml-element.ts';
import { definePlanMessage, type Decision, type PersonItem, type PlanItemContext } from './plan-message.ts';

/**
 * UpdateAdministrators: the employer or administrator updates the agreement's contact
 * persons — the HR administrators and case handlers the insurer deals with about the
 * plan. An item adds a person to a role from a date, or removes them from a role with
 * a last day. (These are people, not agreement_administrators, the organisations
 * allowed to send documents for the agreement; those are not changed here.)
 * Writes: Add inserts an agreement_contacts row; Remove sets valid_to (the last day)
 * and ended_by_message on the person's current row in that role, which stays.
 * A later item of the same document sees an earlier one (add then remove, or
 * remove then add again from a later day).
 * Rejections: ADMINISTRATOR_ALREADY_REGISTERED (Add of a person who holds the role on
 * or after ValidFrom), ADMINISTRATOR_UNKNOWN (Remove of a person not current in the
 * role), EFFECTIVE_DATE_TOO_OLD (ValidFrom or ValidTo), EFFECTIVE_DATE_BEFORE_START
 * (ValidTo earlier than the day before the person took the role).
 */
export type AdministratorChange =
  | { readonly kind: 'Add'; readonly name: string; readonly role: ContactRole; readonly email: string | null; readonly phone: string | null; readonly validFrom: string }
  | { readonly kind: 'Remove'; readonly role: ContactRole; readonly validTo: string };

export interface UpdateAdministratorsItem extends PersonItem {
  readonly change: AdministratorChange;
}

/** What an accepted item does to a contact period; the period is the same object the facts hold. */
type ContactEffect = { readonly kind: 'Add' | 'Remove'; readonly contact: ContactRecord };

export const updateAdministrators = definePlanMessage<UpdateAdministratorsItem, Map<string, ContactRecord[]>, ContactEffect>({
  name: 'UpdateAdministrators',
  readItem: (item): UpdateAdministratorsItem => ({
    itemId: textOf(item, 'ItemId'),
    personalIdentityNumber: textOf(item, 'PersonalIdentityNumber'),
    change: readChange(item),
  }),
  loadFacts: (context, items) => findContacts(context.tx, context.agreement.agreementNumber, items.map((item) => item.personalIdentityNumber)),
  decide(context, contactsByPerson, item) {
    const contacts = contactsByPerson.get(item.personalIdentityNumber) ?? [];
    contactsByPerson.set(item.personalIdentityNumber, contacts);
    return item.change.kind === 'Add' ? decideAdd(context, contacts, item, item.change) : decideRemove(context, contacts, item, item.change);
  },
  async write(context, effects) {
    const added = effects.filter((effect) => effect.kind === 'Add').map((effect) => effect.contact);
    await insertContacts(context.tx, context.agreement.agreementNumber, context.messageId, added);
    // A period added by this document and removed by a later item is inserted already ended.
    const ended = effects.flatMap(({ kind, contact }) => (kind === 'Remove' && contact.id !== null && contact.validTo !== null ? [{ id: contact.id, validTo: contact.validTo }] : []));
    await endContacts(context.tx, context.messageId, ended);
  },
});

function readChange(item: XmlElement): AdministratorChange {
  const add = childOf(item, 'Add');
  if (add) {
    return {
      kind: 'Add',
      name: textOf(add, 'Name'),
      role: textOf(add, 'Role') as ContactRole,
      email: optionalTextOf(add, 'Email') ?? null,
      phone: optionalTextOf(add, 'Phone') ?? null,
      validFrom: textOf(add, 'ValidFrom'),
    };
  }
  const remove = childOf(item, 'Remove');
  if (!remove) throw new Error('<Item> has neither <Add> nor <Remove> (the schema should have required one)');
  return { kind: 'Remove', role: textOf(remove, 'Role') as ContactRole, validTo: textOf(remove, 'ValidTo') };
}

function decideAdd(
  context: PlanItemContext, contacts: ContactRecord[], item: UpdateAdministratorsItem, add: Extract<AdministratorChange, { kind: 'Add' }>,
): Decision<ContactEffect> {
  const rejection = checkCanAdd(contacts, add.role, add.validFrom, context.agreement.agreementNumber) ?? checkDate(context, add.validFrom, 'ValidFrom');
  if (rejection) return { reject: rejection };
  const contact: ContactRecord = {
    id: null, personalIdentityNumber: item.personalIdentityNumber, name: add.name, role: add.role, email: add.email, phone: add.phone, validFrom: add.validFrom, validTo: null,
  };
  contacts.push(contact);
  return { accept: { kind: 'Add', contact } };
}

function decideRemove(
  context: PlanItemContext, contacts: ContactRecord[], item: UpdateAdministratorsItem, remove: Extract<AdministratorChange, { kind: 'Remove' }>,
): Decision<ContactEffect> {
  const found = checkCanRemove(contacts, { personalIdentityNumber: item.personalIdentityNumber, role: remove.role, agreementNumber: context.agreement.agreementNumber });
  if ('reject' in found) return found;
  const rejection = checkDate(context, remove.validTo, 'ValidTo') ?? checkValidTo(found.current, remove.validTo);
  if (rejection) return { reject: rejection };
  found.current.validTo = remove.validTo;
  return { accept: { kind: 'Remove', contact: found.current } };
}

function checkDate(context: PlanItemContext, date: string, dateName: 'ValidFrom' | 'ValidTo'): RuleRejection | undefined {
  const rejection = checkEffectiveDate(date, { today: context.today, maxBackdateDays: context.rules.maxBackdateDays });
  // The shared rule speaks of an "Effective date"; this document's dates are called ValidFrom and ValidTo.
  return rejection && { ...rejection, text: rejection.text.replace(/^Effective date /, `${dateName} `) };
}
