import type { Sql } from '../database.ts';

/**
 * Everything the gateway holds on one person, found by their personal identity number,
 * for a subject-access request (GDPR art. 15): the rows of every table that names the
 * person, whole, and the documents that named them (from `document_keys`, which records
 * the personnummer of every applied document).
 *
 * What it leaves out, on purpose: the documents' bytes (an employer's SalaryAdjustment
 * names its other employees too — the list gives each document's id, sender, type and
 * date, and staff read it in the console when the request needs it), signing links'
 * tokens and BankID order data (credentials, not information about the person), and
 * rows reached only through another row (an insurance's salaries and debit lines: the
 * engagement, read with it, carries their values).
 */

/** A table that names people, and the columns that hold their personal identity number. */
const PERSON_TABLES: readonly (readonly [table: string, columns: readonly string[]])[] = [
  ['persons', ['personal_identity_number']],
  ['employments', ['personal_identity_number']],
  ['insurances', ['policyholder', 'insured_pin']],
  ['applications', ['customer_id']],
  ['payout_requests', ['policyholder', 'insured_pin']],
  ['withdrawal_requests', ['customer_id']],
  ['withdrawal_accounts', ['customer_id']],
  ['powers_of_attorney', ['customer_id']],
  ['direct_queries', ['customer_id']],
  ['sign_case_signatories', ['personal_number']],
  ['company_signatories', ['personal_number']],
  ['agreement_contacts', ['personal_identity_number']],
  ['advisors', ['personal_identity_number']],
];

/** Columns never exported: credentials and what only the gateway reads. */
const LEFT_OUT_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  sign_case_signatories: ['order_ref'],
  applications: ['body'],
};

export interface PersonDocument {
  readonly messageId: string;
  readonly counterpartyId: string;
  readonly messageType: string | null;
  readonly channel: string;
  readonly receivedAt: string;
  readonly status: string;
}

export interface PersonData {
  readonly personalNumber: string;
  /** Per table, its rows naming the person (every column but those left out), in a stable order. */
  readonly records: Readonly<Record<string, readonly Record<string, unknown>[]>>;
  /** The documents that named the person, oldest first. */
  readonly documents: readonly PersonDocument[];
}

/** What the gateway holds on `pin`; tables without a row for the person are left out of `records`. */
export async function collectPersonData(sql: Sql, pin: string): Promise<PersonData> {
  const records: Record<string, Record<string, unknown>[]> = {};
  for (const [table, columns] of PERSON_TABLES) {
    const where = columns.map((column) => `t.${column} = $1`).join(' OR ');
    const leftOut = LEFT_OUT_COLUMNS[table] ?? [];
    const row = leftOut.length > 0 ? `to_jsonb(t) - ARRAY[${leftOut.map((column) => `'${column}'`).join(', ')}]::text[]` : 'to_jsonb(t)';
    const { rows } = await sql.query<{ row: Record<string, unknown> | string }>(`SELECT ${row} AS row FROM ${table} t WHERE ${where} ORDER BY 1`, [pin]);
    if (rows.length > 0) records[table] = rows.map(({ row: value }) => (typeof value === 'string' ? JSON.parse(value) as Record<string, unknown> : value));
  }
  const { rows } = await sql.query<{ id: string; counterparty_id: string; message_type: string | null; channel: string; received_at: Date | string; status: string }>(
    `SELECT m.id, m.counterparty_id, m.message_type, m.channel, m.received_at, m.status
       FROM document_keys k JOIN messages m ON m.id = k.message_id
      WHERE k.kind = 'personnummer' AND k.value = $1
      ORDER BY m.seq`,
    [pin],
  );
  const documents = rows.map((row) => ({
    messageId: row.id, counterpartyId: row.counterparty_id, messageType: row.message_type, channel: row.channel,
    receivedAt: new Date(row.received_at).toISOString(), status: row.status,
  }));
  return { personalNumber: pin, records, documents };
}

/** Whether the gateway holds anything on the person. */
export function holdsAnything(data: PersonData): boolean {
  return Object.keys(data.records).length > 0 || data.documents.length > 0;
}
