/**
 * Notices that an application went to manual review.
 *
 * - `advisors.email`: where the advisor is mailed; optional (null: not known).
 * - `application_notices`: one row per application and recipient — the `advisor` who
 *   made it, and the `policyholder` of an insurance application or the `employer`
 *   contact of a plan application — written in the transaction that puts the
 *   application under review. `address` is where it is to be mailed, null when none is
 *   known (the row is kept, listed, never mailed); `sent_to` and `sent_at` once mailed.
 *   `failed_attempts` and `last_error` tell of mail the SMTP server did not take.
 */
export const version = 18;
export const name = 'application notices';
export const sql = `
ALTER TABLE advisors ADD COLUMN email text;

CREATE TABLE application_notices (
  application_id  text NOT NULL REFERENCES applications(application_id),
  recipient       text NOT NULL CHECK (recipient IN ('advisor', 'policyholder', 'employer')),
  address         text,
  recorded_at     timestamptz NOT NULL,
  sent_to         text,
  sent_at         timestamptz,
  failed_attempts integer NOT NULL DEFAULT 0,
  last_error      text,
  PRIMARY KEY (application_id, recipient)
);
CREATE INDEX application_notices_to_mail ON application_notices (failed_attempts, recorded_at) WHERE sent_at IS NULL AND address IS NOT NULL;
CREATE INDEX application_notices_by_recording ON application_notices (recorded_at);
`;
