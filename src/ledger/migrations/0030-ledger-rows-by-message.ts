/**
 * The ledger rows a message wrote, found by its id: the console's message detail lists
 * them table by table (src/ledger/messages/ledger-changes.repository.ts), and without an index each
 * of these tables was read whole for every message opened.
 *
 * - The tables a plan document fills get a B-tree on `message_id`: a few rows a document.
 * - The tables a custodian's report fills (positions, valuations, transactions, costs)
 *   grow by every account every day, are loaded in message order (COPY, ULIDs ascending
 *   with time) and never updated, so a BRIN index (a few kilobytes) finds a report's rows;
 *   a B-tree made loading 1,000,000 positions 26 % slower, BRIN 4 % (docs/console.md).
 *   `autosummarize` keeps the newest pages indexed as they fill.
 */
export const version = 30;
export const name = 'ledger rows by message';

const PLAN_TABLES = [
  'agreement_categories', 'agreement_contacts', 'agreement_cost_centers', 'billing_events', 'custodian_annual_report_deadlines',
  'custodian_report_deadlines', 'employment_categories', 'employment_cost_centers', 'extra_premiums', 'fund_allocation_lines',
  'fund_allocations', 'insurance_coverages', 'insurance_fees', 'insurance_paid_up', 'insurance_premiums', 'insurance_transfers', 'salaries',
];
const REPORT_TABLES = ['custody_costs', 'custody_positions', 'custody_transactions', 'custody_valuations'];

export const sql = [
  ...PLAN_TABLES.map((table) => `CREATE INDEX ${table}_by_message ON ${table} (message_id);`),
  ...REPORT_TABLES.map((table) => `CREATE INDEX ${table}_by_message ON ${table} USING brin (message_id) WITH (autosummarize = on);`),
].join('\n');
