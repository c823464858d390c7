/**
 * The policy ledger for plan administration: products, agreements, insured persons,
 * employments and insurances. Every change is a dated history row written by the
 * message that caused it, never an overwrite, so the state as of any date can be read.
 */
export const version = 2;
export const name = 'plan-administration ledger';
export const sql = `
CREATE TABLE products (
  code                 text PRIMARY KEY,
  name                 text NOT NULL,
  kind                 text NOT NULL CHECK (kind IN ('P','T','K')),
  min_fixed_charge     numeric(18,2) NOT NULL DEFAULT 0,
  max_fixed_charge     numeric(18,2) NOT NULL,
  min_capital_charge   numeric(9,4) NOT NULL DEFAULT 0,
  max_capital_charge   numeric(9,4) NOT NULL
);

CREATE TABLE agreements (
  agreement_number              text PRIMARY KEY,
  name                          text NOT NULL,
  employer_organisation_number  text NOT NULL,
  created_at                    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE agreement_administrators (
  agreement_number      text NOT NULL REFERENCES agreements(agreement_number),
  organisation_number   text NOT NULL,
  PRIMARY KEY (agreement_number, organisation_number)
);

CREATE TABLE persons (
  personal_identity_number  text PRIMARY KEY,
  name                      text
);

CREATE TABLE employments (
  id                        bigserial PRIMARY KEY,
  agreement_number          text NOT NULL REFERENCES agreements(agreement_number),
  personal_identity_number  text NOT NULL REFERENCES persons(personal_identity_number),
  start_date                date NOT NULL,
  end_date                  date,
  end_reason                text,
  ended_by_message          text,
  UNIQUE (agreement_number, personal_identity_number, start_date)
);

CREATE TABLE salaries (
  id              bigserial PRIMARY KEY,
  employment_id   bigint NOT NULL REFERENCES employments(id),
  effective_date  date NOT NULL,
  annual_salary   numeric(18,2) NOT NULL,
  currency        text NOT NULL,
  message_id      text,
  recorded_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX salaries_by_employment ON salaries (employment_id, effective_date);

CREATE TABLE insurances (
  insurance_number   text PRIMARY KEY,
  agreement_number   text REFERENCES agreements(agreement_number),
  insured_pin        text NOT NULL REFERENCES persons(personal_identity_number),
  product_code       text NOT NULL REFERENCES products(code),
  start_date         date NOT NULL,
  premium_paying     boolean NOT NULL DEFAULT true
);
CREATE INDEX insurances_by_insured ON insurances (insured_pin);

CREATE TABLE insurance_fees (
  id                bigserial PRIMARY KEY,
  insurance_number  text NOT NULL REFERENCES insurances(insurance_number),
  fee_type          text NOT NULL CHECK (fee_type IN ('FixedCharge','CapitalCharge')),
  value             numeric(18,4) NOT NULL,
  effective_date    date NOT NULL,
  message_id        text,
  recorded_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX insurance_fees_by_insurance ON insurance_fees (insurance_number, fee_type, effective_date);

CREATE TABLE insurance_paid_up (
  id                bigserial PRIMARY KEY,
  insurance_number  text NOT NULL REFERENCES insurances(insurance_number),
  paid_up_from      date NOT NULL,
  message_id        text,
  recorded_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX insurance_paid_up_by_insurance ON insurance_paid_up (insurance_number);
`;
