/**
 * Applications are signed with BankID before they take effect.
 *
 * - `applications.status` gains `awaiting-signature` (submitted, its sign case open: the
 *   sign case is the one whose subject is the application, `sign_cases.subject_kind`
 *   'application') and `expired` (not signed by its last day; its sign case closed).
 * - `applications.sign_by`: the last day (Stockholm) it may be signed, fixed when it is
 *   submitted (`api.applicationSigningDays` after the day of submission); null for
 *   applications made before signing was asked for.
 * - `applications_awaiting_signature`: the daily expiry reads those still unsigned by day.
 */
export const version = 41;
export const name = 'application signing';

export const sql = `
ALTER TABLE applications DROP CONSTRAINT applications_status_check;
ALTER TABLE applications ADD CONSTRAINT applications_status_check
  CHECK (status IN ('received', 'awaiting-signature', 'under-review', 'approved', 'rejected', 'issued', 'expired'));
ALTER TABLE applications ADD COLUMN sign_by date;
CREATE INDEX applications_awaiting_signature ON applications (sign_by) WHERE status = 'awaiting-signature';
`;
