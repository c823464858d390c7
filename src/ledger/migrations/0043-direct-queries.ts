/**
 * The record of direct queries (GET /DirectQuery/{customerId}, docs/direct-query.md):
 * every engagement an advisor firm was answered with — which firm and API client asked,
 * for which customer, under which power of attorney (its id and kind as they were when
 * asked), in which form the answer went (JSON or the EngagementResponse XML document)
 * and how many insurances it listed. Written in the transaction that reads the answer;
 * never changed. Staff read it newest first (GET /api/direct-queries).
 *
 * The engagement names the beneficiary arrangement of an insurance issued from an
 * application: `applications_by_insurance` finds that application by its insurance.
 */
export const version = 43;
export const name = 'direct queries';
export const sql = `
CREATE TABLE direct_queries (
  id                        bigserial PRIMARY KEY,
  queried_at                timestamptz NOT NULL,
  firm_organisation_number  text NOT NULL,
  client_id                 text NOT NULL,
  customer_id               text NOT NULL,
  power_of_attorney_id      bigint NOT NULL REFERENCES powers_of_attorney(id),
  power_kind                text NOT NULL CHECK (power_kind IN ('information', 'intermediation')),
  answered_as               text NOT NULL CHECK (answered_as IN ('json', 'xml')),
  insurance_count           integer NOT NULL CHECK (insurance_count >= 0)
);
CREATE INDEX direct_queries_by_time ON direct_queries (queried_at DESC, id DESC);
CREATE INDEX direct_queries_by_customer ON direct_queries (customer_id, queried_at DESC);
CREATE INDEX applications_by_insurance ON applications (insurance_number) WHERE insurance_number IS NOT NULL;
`;
