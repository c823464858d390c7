/**
 * The insured starts the payout through a signed request, and is told when payout can
 * begin.
 *
 * - `payout_requests`: one row per payout request made through the REST API — the
 *   insurance, its insured and policyholder, the period (months), the first month, the
 *   account paid to (validated for the insured when made), who made it and when. Status
 *   `requested` until its sign case is signed by all; then `registered` (the payout was
 *   put in place in the transaction of the last signature) or `refused` (it could no
 *   longer be: the month passed meanwhile, the account is no longer validated …). A
 *   request still open when another is made for the insurance, or when a payout is
 *   registered otherwise (staff, from a paper form), is `closed`, and so is its sign case.
 *   At most one request per insurance is open.
 * - `payout_request_events`: its history — requested, signed (by which role), registered,
 *   refused, closed — with when, by whom and why. Never updated.
 * - `insurances.insured_email`: where the insured can be mailed, when known: given in the
 *   insurance application (`insured.email`, or `policyholder.email` when the policyholder
 *   is the insured). Filled here for the insurances issued before.
 * - `payout_notices.insured_notice`: how the insured was told that payout can begin —
 *   `mail` (to `insured_address`), `letter` (the PDF in `letter`, in the print queue),
 *   `not-needed` (the payout was started, or the insurance ended, before the notice went
 *   out) or `customer-service` (a notice mailed before this migration: customer service
 *   wrote the letter) — and when (`insured_told_at`). `sent_to`/`sent_at` stay the copy
 *   mailed to customer service.
 */
export const version = 34;
export const name = 'payout requests and notices to the insured';

export const sql = `
CREATE TABLE payout_requests (
  request_id        text PRIMARY KEY,
  insurance_number  text NOT NULL REFERENCES insurances(insurance_number),
  insured_pin       text NOT NULL,
  policyholder      text NOT NULL,
  months            integer NOT NULL CHECK (months > 0),
  first_month       text NOT NULL CHECK (first_month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  account_digits    text NOT NULL CHECK (account_digits ~ '^[0-9]{6,20}$'),
  bank_name         text NOT NULL,
  requested_at      timestamptz NOT NULL,
  requested_by      text NOT NULL,
  status            text NOT NULL DEFAULT 'requested' CHECK (status IN ('requested', 'registered', 'refused', 'closed')),
  decided_at        timestamptz,
  CHECK ((status = 'requested') = (decided_at IS NULL))
);
CREATE INDEX payout_requests_by_insurance ON payout_requests (insurance_number, requested_at);
CREATE UNIQUE INDEX payout_requests_one_open ON payout_requests (insurance_number) WHERE status = 'requested';

CREATE TABLE payout_request_events (
  id          bigserial PRIMARY KEY,
  request_id  text NOT NULL REFERENCES payout_requests(request_id),
  event       text NOT NULL CHECK (event IN ('requested', 'signed', 'registered', 'refused', 'closed')),
  at          timestamptz NOT NULL,
  by          text NOT NULL,
  reason      text
);
CREATE INDEX payout_request_events_by_request ON payout_request_events (request_id, id);

ALTER TABLE insurances ADD COLUMN insured_email text;
UPDATE insurances i
   SET insured_email = COALESCE(a.body->'insured'->>'email',
                                CASE WHEN a.body->'policyholder'->>'id' = a.body->'insured'->>'id' THEN a.body->'policyholder'->>'email' END)
  FROM applications a
 WHERE a.insurance_number = i.insurance_number AND a.kind = 'insurance';

ALTER TABLE payout_notices
  ADD COLUMN insured_notice   text CHECK (insured_notice IN ('mail', 'letter', 'not-needed', 'customer-service')),
  ADD COLUMN insured_address  text,
  ADD COLUMN insured_told_at  timestamptz,
  ADD COLUMN letter           bytea,
  ADD CHECK ((insured_notice IS NULL) = (insured_told_at IS NULL)),
  ADD CHECK ((COALESCE(insured_notice, '') = 'mail') = (insured_address IS NOT NULL)),
  ADD CHECK ((COALESCE(insured_notice, '') = 'letter') = (letter IS NOT NULL));
UPDATE payout_notices SET insured_notice = 'customer-service', insured_told_at = sent_at WHERE sent_at IS NOT NULL;
`;
