import type { Sql } from '../database.ts';

/**
 * Ledger write of the dated changes to an employment (ChangeCategory, ChangeCostCenter):
 * one history row per accepted item, never changed afterwards. An employee's category
 * or cost center on a date is the latest row of the employment on or before it (the
 * later-recorded row wins on the same date).
 */
export interface NewEmploymentValue {
  readonly employmentId: string;
  /** The category code or cost center the employment has from `effectiveDate`. */
  readonly value: string;
  readonly effectiveDate: string;
}

/** The history tables of an employment's dated attributes and the column each holds its value in. */
const HISTORY = {
  category: { table: 'employment_categories', column: 'category_code' },
  costCenter: { table: 'employment_cost_centers', column: 'cost_center' },
} as const;

export type EmploymentAttribute = keyof typeof HISTORY;

/** Records the changes to one attribute in one statement, in the document's order. */
export async function insertEmploymentHistory(
  sql: Sql,
  messageId: string,
  attribute: EmploymentAttribute,
  changes: readonly NewEmploymentValue[],
): Promise<void> {
  if (changes.length === 0) return;
  const { table, column } = HISTORY[attribute];
  await sql.query(
    `INSERT INTO ${table} (employment_id, ${column}, effective_date, message_id)
     SELECT c.employment_id, c.value, c.effective_date, $4
       FROM unnest($1::bigint[], $2::text[], $3::date[]) WITH ORDINALITY AS c(employment_id, value, effective_date, ordinality)
      ORDER BY c.ordinality`,
    [changes.map((c) => c.employmentId), changes.map((c) => c.value), changes.map((c) => c.effectiveDate), messageId],
  );
}
