/**
 * What the REST API's access rules read (docs/rest.md, "Who may see what"):
 *
 * - The access policy's facts about a customer are read with every lookup of the
 *   customer's data (src/ledger/advice/powers-of-attorney.repository.ts, `customerAccessColumns`):
 *   the custodians of the customer's insurances are found by policyholder, which had no
 *   index, so each REST read of a customer's data read the whole insurances table.
 * - An application's status change may carry a reason for the firm that differs from
 *   the staff's (`caller_reason`, null: the same): a plan reviewed because the employer
 *   already has an agreement tells a firm without a power of attorney on the employer
 *   nothing of that agreement.
 */
export const version = 31;
export const name = 'customer access lookups';

export const sql = `
CREATE INDEX insurances_by_policyholder ON insurances (policyholder);
ALTER TABLE application_status_changes ADD COLUMN caller_reason text;
`;
