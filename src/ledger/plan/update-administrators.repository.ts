import type { ContactPeriod, ContactRole } from '../../core/agreement-contacts.rules.ts';
import type { Sql } from '../database.ts';

/**
 * Ledger queries of UpdateAdministrators: the agreement's contact persons (HR
 * administrators and case handlers, agreement_contacts) among the document's persons,
 * read in one query; added periods inserted and ended periods given their last day,
 * one statement each. A period is never deleted: ending it sets valid_to and
 * ended_by_message on its row. (agreement_administrators, the organisations allowed
 * to send documents for the agreement, is another thing and is not touched.)
 */
export interface ContactRecord extends ContactPeriod {
  /** The row's id, or null for a period added by the document being applied. */
  readonly id: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  /** Set by a removal; the handler updates it so later items of the document see it. */
  validTo: string | null;
}

/** Every contact period under the agreement of each person among `pins`, by person, oldest first. */
export async function findContacts(sql: Sql, agreementNumber: string, pins: readonly string[]): Promise<Map<string, ContactRecord[]>> {
  const { rows } = await sql.query<{
    id: string; pin: string; name: string; role: ContactRole; email: string | null; phone: string | null; valid_from: string; valid_to: string | null;
  }>(
    `SELECT id::text AS id, personal_identity_number AS pin, name, role, email, phone, valid_from::text AS valid_from, valid_to::text AS valid_to
       FROM agreement_contacts WHERE agreement_number = $1 AND personal_identity_number = ANY($2::text[])
      ORDER BY valid_from, id`,
    [agreementNumber, [...new Set(pins)]],
  );
  const byPerson = new Map<string, ContactRecord[]>();
  for (const row of rows) {
    const list = byPerson.get(row.pin) ?? [];
    list.push({
      id: row.id, personalIdentityNumber: row.pin, name: row.name, role: row.role, email: row.email, phone: row.phone, validFrom: row.valid_from, validTo: row.valid_to,
    });
    byPerson.set(row.pin, list);
  }
  return byPerson;
}

/**
 * Inserts the periods added by the document, in its order. A period a later item of the
 * same document already ended is inserted with its last day, ended by this message too.
 */
export async function insertContacts(sql: Sql, agreementNumber: string, messageId: string, added: readonly ContactRecord[]): Promise<void> {
  if (added.length === 0) return;
  await sql.query(
    `INSERT INTO agreement_contacts
            (agreement_number, personal_identity_number, name, role, email, phone, valid_from, valid_to, message_id, ended_by_message)
     SELECT $8, c.pin, c.name, c.role, c.email, c.phone, c.valid_from, c.valid_to, $9, CASE WHEN c.valid_to IS NULL THEN NULL ELSE $9 END
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::date[], $7::date[]) WITH ORDINALITY
            AS c(pin, name, role, email, phone, valid_from, valid_to, ordinality)
      ORDER BY c.ordinality`,
    [
      added.map((c) => c.personalIdentityNumber), added.map((c) => c.name), added.map((c) => c.role), added.map((c) => c.email),
      added.map((c) => c.phone), added.map((c) => c.validFrom), added.map((c) => c.validTo), agreementNumber, messageId,
    ],
  );
}

/** Gives existing periods their last day; each period is ended at most once per document. */
export async function endContacts(sql: Sql, messageId: string, ended: readonly { readonly id: string; readonly validTo: string }[]): Promise<void> {
  if (ended.length === 0) return;
  await sql.query(
    `UPDATE agreement_contacts c SET valid_to = u.valid_to, ended_by_message = $3
       FROM unnest($1::bigint[], $2::date[]) AS u(id, valid_to)
      WHERE c.id = u.id`,
    [ended.map((e) => e.id), ended.map((e) => e.validTo), messageId],
  );
}
