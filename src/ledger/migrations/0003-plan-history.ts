/**
 * The rest of the plan-administration ledger: what the sixteen employer and
 * administrator documents change. The agreement gains categories (benefit groups with
 * their premium rule), cost centers and contact persons; an employment gains dated
 * category and cost-center history; an insurance gains premium, billing (stop/start),
 * fund-allocation, transfer and extra-premium history. Every history row carries the
 * message that wrote it (`message_id`), rows are only ever added — an end date or a
 * transfer's new product is recorded beside the old value, never instead of it — and
 * the state as of a date is the latest row on or before it.
 */
export const version = 3;
export const name = 'plan-administration history';
export const sql = `
ALTER TABLE products
  ADD COLUMN min_monthly_premium numeric(18,2) NOT NULL DEFAULT 0,
  ADD COLUMN max_monthly_premium numeric(18,2) NOT NULL DEFAULT 100000,
  ADD COLUMN max_extra_premium   numeric(18,2) NOT NULL DEFAULT 10000000;

ALTER TABLE persons ADD COLUMN created_by_message text;

ALTER TABLE insurances
  ADD COLUMN policyholder        text,
  ADD COLUMN custody_account     text,
  ADD COLUMN created_by_message  text;

-- Numbers the gateway gives new insurances and extra-premium invoices.
CREATE SEQUENCE insurance_number_seq START 200001;
CREATE SEQUENCE extra_premium_invoice_seq START 1;

CREATE TABLE funds (
  isin      text PRIMARY KEY,
  name      text NOT NULL,
  currency  text NOT NULL DEFAULT 'SEK'
);

-- The funds a policyholder may choose in a product.
CREATE TABLE product_funds (
  product_code  text NOT NULL REFERENCES products(code),
  isin          text NOT NULL REFERENCES funds(isin),
  PRIMARY KEY (product_code, isin)
);

-- Categories (benefit groups) of an agreement and their premium rule: a percent of
-- the monthly salary (with a higher percent above the cap of 7.5 income base amounts
-- when given), or a fixed monthly amount.
CREATE TABLE agreement_categories (
  agreement_number           text NOT NULL REFERENCES agreements(agreement_number),
  code                       text NOT NULL,
  name                       text NOT NULL,
  premium_percent            numeric(9,4),
  premium_percent_above_cap  numeric(9,4),
  fixed_monthly_premium      numeric(18,2),
  valid_from                 date NOT NULL,
  message_id                 text,
  recorded_at                timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agreement_number, code),
  CHECK (premium_percent IS NOT NULL OR fixed_monthly_premium IS NOT NULL)
);

CREATE TABLE agreement_cost_centers (
  agreement_number  text NOT NULL REFERENCES agreements(agreement_number),
  code              text NOT NULL,
  name              text NOT NULL,
  message_id        text,
  PRIMARY KEY (agreement_number, code)
);

-- The agreement's contact persons at the employer or administrator: HR administrators
-- and case handlers. Removing one sets valid_to; the row stays.
CREATE TABLE agreement_contacts (
  id                        bigserial PRIMARY KEY,
  agreement_number          text NOT NULL REFERENCES agreements(agreement_number),
  personal_identity_number  text NOT NULL,
  name                      text NOT NULL,
  role                      text NOT NULL CHECK (role IN ('HrAdministrator','CaseHandler')),
  email                     text,
  phone                     text,
  valid_from                date NOT NULL,
  valid_to                  date,
  message_id                text,
  ended_by_message          text,
  recorded_at               timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agreement_contacts_by_agreement ON agreement_contacts (agreement_number, personal_identity_number);

CREATE TABLE employment_categories (
  id              bigserial PRIMARY KEY,
  employment_id   bigint NOT NULL REFERENCES employments(id),
  category_code   text NOT NULL,
  effective_date  date NOT NULL,
  message_id      text,
  recorded_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX employment_categories_by_employment ON employment_categories (employment_id, effective_date);

CREATE TABLE employment_cost_centers (
  id              bigserial PRIMARY KEY,
  employment_id   bigint NOT NULL REFERENCES employments(id),
  cost_center     text NOT NULL,
  effective_date  date NOT NULL,
  message_id      text,
  recorded_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX employment_cost_centers_by_employment ON employment_cost_centers (employment_id, effective_date);

-- The monthly premium of a premium-paying insurance from a date.
CREATE TABLE insurance_premiums (
  id                bigserial PRIMARY KEY,
  insurance_number  text NOT NULL REFERENCES insurances(insurance_number),
  effective_date    date NOT NULL,
  monthly_amount    numeric(18,2) NOT NULL,
  currency          text NOT NULL DEFAULT 'SEK',
  message_id        text,
  recorded_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX insurance_premiums_by_insurance ON insurance_premiums (insurance_number, effective_date);

-- Billing stops (parental leave, other leave) and the start that ends each one.
CREATE TABLE billing_events (
  id                bigserial PRIMARY KEY,
  insurance_number  text NOT NULL REFERENCES insurances(insurance_number),
  event             text NOT NULL CHECK (event IN ('Stop','Start')),
  effective_date    date NOT NULL,
  reason            text,
  message_id        text,
  recorded_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_events_by_insurance ON billing_events (insurance_number, effective_date, id);

CREATE TABLE extra_premiums (
  id                bigserial PRIMARY KEY,
  invoice_number    text NOT NULL UNIQUE,
  insurance_number  text NOT NULL REFERENCES insurances(insurance_number),
  amount            numeric(18,2) NOT NULL,
  currency          text NOT NULL DEFAULT 'SEK',
  due_date          date NOT NULL,
  message_id        text,
  recorded_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX extra_premiums_by_insurance ON extra_premiums (insurance_number);

-- Fund allocations: a distribution plan says how future premiums are invested, a
-- reallocation how the existing capital is. The lines of one allocation sum to 100.
CREATE TABLE fund_allocations (
  id                bigserial PRIMARY KEY,
  insurance_number  text NOT NULL REFERENCES insurances(insurance_number),
  purpose           text NOT NULL CHECK (purpose IN ('DistributionPlan','Reallocation')),
  effective_date    date NOT NULL,
  message_id        text,
  recorded_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX fund_allocations_by_insurance ON fund_allocations (insurance_number, purpose, effective_date);

CREATE TABLE fund_allocation_lines (
  allocation_id  bigint NOT NULL REFERENCES fund_allocations(id),
  isin           text NOT NULL REFERENCES funds(isin),
  percent        numeric(7,4) NOT NULL CHECK (percent > 0 AND percent <= 100),
  message_id     text,
  PRIMARY KEY (allocation_id, isin)
);

-- Moves of an insurance within the insurer: to another product of the same kind
-- and/or another custody account. insurances keeps the current product and account.
CREATE TABLE insurance_transfers (
  id                    bigserial PRIMARY KEY,
  insurance_number      text NOT NULL REFERENCES insurances(insurance_number),
  effective_date        date NOT NULL,
  from_product_code     text NOT NULL REFERENCES products(code),
  to_product_code       text NOT NULL REFERENCES products(code),
  from_custody_account  text,
  to_custody_account    text,
  message_id            text,
  recorded_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX insurance_transfers_by_insurance ON insurance_transfers (insurance_number, effective_date);
`;
