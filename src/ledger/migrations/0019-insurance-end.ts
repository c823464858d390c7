/**
 * Insurances that end. An insurance is in force from `start_date` through `end_date`
 * (included) when it has one; `end_cause` says why it ended: `paid-out` (the payout
 * run's final installment), `transferred-out` (moved to another insurer),
 * `surrendered` (bought back) or `death` (recorded by staff). The debit run charges
 * to the end date and nothing after it; the February run takes no yield tax on the
 * opening value of an insurance not in force on 1 January.
 *
 * - `ended_by`, `end_recorded_at`: who recorded the end and when (`payout-run`, or
 *   `staff:<user>`, or `cli:<account>` from the CLI in-process), the audit of the change. An end is recorded once: it is never
 *   moved or undone by the gateway.
 */
export const version = 19;
export const name = 'insurance end';
export const sql = `
ALTER TABLE insurances
  ADD COLUMN end_date         date,
  ADD COLUMN end_cause        text CHECK (end_cause IN ('paid-out', 'transferred-out', 'surrendered', 'death')),
  ADD COLUMN ended_by         text,
  ADD COLUMN end_recorded_at  timestamptz,
  ADD CONSTRAINT insurances_end_complete CHECK ((end_date IS NULL) = (end_cause IS NULL) AND (end_date IS NULL) = (ended_by IS NULL)),
  ADD CONSTRAINT insurances_end_after_start CHECK (end_date IS NULL OR end_date >= start_date);
`;
