/**
 * What the advisor REST API reads and the access rules decide on.
 *
 * - `products.open_for_subscription`: whether advisors may offer the product now
 *   (GET /Product lists only these); `products.line`: an individual insurance or an
 *   employer's occupational plan; `standard_fixed_charge` / `standard_capital_charge`:
 *   the yearly charges an insurance issued from an application starts with.
 * - `product_documents`: a product's documents (pre-purchase information, terms, fact
 *   sheets), every version kept. A document's id stays the same across versions;
 *   GET /Document/{id} answers its latest published version.
 * - `advisor_firms`, `advisor_offices`, `advisors`: insurance intermediaries, their
 *   offices and the advisors (identified by advisor code) who act for them.
 * - `powers_of_attorney`: who holds an information or intermediation power of attorney
 *   on which customer (personnummer or organisationsnummer), valid from/to; revoked
 *   rows are kept. `power_of_attorney_changes` audits every change: who, when, what.
 */
export const version = 12;
export const name = 'advisor api';
export const sql = `
ALTER TABLE products ADD COLUMN open_for_subscription boolean NOT NULL DEFAULT true;
ALTER TABLE products ADD COLUMN line text NOT NULL DEFAULT 'individual' CHECK (line IN ('individual', 'occupational'));
-- The charges an insurance issued from an application starts with (the product's price list).
ALTER TABLE products ADD COLUMN standard_fixed_charge numeric(18,2) NOT NULL DEFAULT 0;
ALTER TABLE products ADD COLUMN standard_capital_charge numeric(9,4) NOT NULL DEFAULT 0;

CREATE TABLE product_documents (
  document_id    text NOT NULL,
  version        integer NOT NULL CHECK (version >= 1),
  product_code   text NOT NULL REFERENCES products(code),
  title          text NOT NULL,
  kind           text NOT NULL CHECK (kind IN ('pre-purchase-information', 'terms', 'fact-sheet', 'fund-list', 'other')),
  published_on   date NOT NULL,
  content_type   text NOT NULL,
  content        bytea NOT NULL,
  sha256         text NOT NULL,
  PRIMARY KEY (document_id, version)
);
CREATE INDEX product_documents_by_product ON product_documents (product_code, document_id, version);

CREATE TABLE advisor_firms (
  organisation_number  text PRIMARY KEY,
  name                 text NOT NULL
);

CREATE TABLE advisor_offices (
  office_code          text PRIMARY KEY,
  organisation_number  text NOT NULL REFERENCES advisor_firms(organisation_number),
  name                 text NOT NULL
);

CREATE TABLE advisors (
  advisor_code              text PRIMARY KEY,
  organisation_number       text NOT NULL REFERENCES advisor_firms(organisation_number),
  office_code               text REFERENCES advisor_offices(office_code),
  name                      text NOT NULL,
  personal_identity_number  text NOT NULL,
  active                    boolean NOT NULL DEFAULT true
);
CREATE INDEX advisors_by_firm ON advisors (organisation_number);

CREATE TABLE powers_of_attorney (
  id                   bigserial PRIMARY KEY,
  holder_organisation_number text NOT NULL REFERENCES advisor_firms(organisation_number),
  customer_id          text NOT NULL,
  kind                 text NOT NULL CHECK (kind IN ('information', 'intermediation')),
  valid_from           date NOT NULL,
  valid_to             date,
  created_at           timestamptz NOT NULL,
  created_by           text NOT NULL,
  revoked_at           timestamptz,
  revoked_by           text,
  CHECK (valid_to IS NULL OR valid_to >= valid_from)
);
CREATE INDEX powers_of_attorney_by_customer ON powers_of_attorney (customer_id, holder_organisation_number);

CREATE TABLE power_of_attorney_changes (
  id                  bigserial PRIMARY KEY,
  power_of_attorney_id bigint NOT NULL REFERENCES powers_of_attorney(id),
  change              text NOT NULL CHECK (change IN ('granted', 'revoked')),
  changed_at          timestamptz NOT NULL,
  changed_by          text NOT NULL,
  details             jsonb NOT NULL
);
`;
