/**
 * Applications submitted through the REST API.
 *
 * - `applications`: one row per application (`kind` insurance or plan), with the firm
 *   and advisor that made it, the customer (policyholder) it is for, the product, the
 *   request body as sent, its current status, when it was submitted and, once issued,
 *   the insurance it became.
 * - `application_status_changes`: every status the application has had, with when, who
 *   (`advisor:<code>`, `staff:<user>`, `gateway` for the rules) and why.
 */
export const version = 14;
export const name = 'applications';
export const sql = `
CREATE TABLE applications (
  application_id       text PRIMARY KEY,
  kind                 text NOT NULL CHECK (kind IN ('insurance', 'plan')),
  firm_organisation_number text NOT NULL,
  advisor_code         text NOT NULL,
  customer_id          text NOT NULL,
  product_code         text NOT NULL REFERENCES products(code),
  body                 jsonb NOT NULL,
  status               text NOT NULL CHECK (status IN ('received', 'under-review', 'approved', 'rejected', 'issued')),
  submitted_at         timestamptz NOT NULL,
  -- The insurance it was issued as.
  insurance_number     text REFERENCES insurances(insurance_number)
);
CREATE INDEX applications_by_customer ON applications (customer_id, firm_organisation_number);

CREATE TABLE application_status_changes (
  id              bigserial PRIMARY KEY,
  application_id  text NOT NULL REFERENCES applications(application_id),
  status          text NOT NULL,
  changed_at      timestamptz NOT NULL,
  changed_by      text NOT NULL,
  reason          text
);
CREATE INDEX application_status_changes_by_application ON application_status_changes (application_id, id);
`;
