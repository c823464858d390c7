/**
 * A sign case is no longer a withdrawal request's only: applications, payout requests
 * and other requests a customer signs get one too, through the same Sign and Collect.
 *
 * - `subject_kind` and `subject_id` name what is signed (`withdrawal` and the request id
 *   for the cases made so far; `request_id` stays for them and is empty for the rest).
 * - `customer_id` and `custodian_id` are the customer whose data the case is and the
 *   custodian holding the insurance (or chosen in the application), fixed when the case
 *   is made: the access policy decides on them without joining the subject.
 * - `closed_at` and `closed_reason`: a case nobody may sign any more (the request
 *   rejected, the application expired); signed cases are complete, not closed.
 */
export const version = 32;
export const name = 'sign cases for any request';

export const sql = `
ALTER TABLE sign_cases
  ADD COLUMN subject_kind text NOT NULL DEFAULT 'withdrawal' CHECK (subject_kind IN ('withdrawal', 'payout', 'application')),
  ADD COLUMN subject_id text,
  ADD COLUMN customer_id text,
  ADD COLUMN custodian_id text,
  ADD COLUMN closed_at timestamptz,
  ADD COLUMN closed_reason text,
  ADD CHECK ((closed_at IS NULL) = (closed_reason IS NULL));
UPDATE sign_cases c SET subject_id = r.request_id, customer_id = r.customer_id, custodian_id = a.custodian_id,
       closed_at = CASE WHEN r.status = 'rejected' THEN r.decided_at END,
       closed_reason = CASE WHEN r.status = 'rejected' THEN 'The withdrawal request was rejected.' END
  FROM withdrawal_requests r JOIN insurances i ON i.insurance_number = r.insurance_number JOIN custody_accounts a ON a.account_number = i.custody_account
 WHERE r.request_id = c.request_id;
ALTER TABLE sign_cases ALTER COLUMN subject_kind DROP DEFAULT, ALTER COLUMN subject_id SET NOT NULL, ALTER COLUMN customer_id SET NOT NULL,
  ALTER COLUMN request_id DROP NOT NULL;
CREATE UNIQUE INDEX sign_cases_by_subject ON sign_cases (subject_kind, subject_id);
`;
