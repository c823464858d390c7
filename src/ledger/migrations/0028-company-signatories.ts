/**
 * Company signatories of organisation policyholders, and sign cases they sign.
 *
 * - `company_signatories`: who may sign for an organisation (personnummer and name),
 *   from and to which day; never deleted — a revoked one keeps its row with who revoked
 *   it, when and why.
 * - `company_signing_rules`: how many of the organisation's signatories in force must
 *   sign together (1: each alone; 2: jointly two; …), with who set it and when.
 * - `company_signatory_changes`: the audit of both registers: registered, revoked,
 *   rule-set, each with who, when and what.
 * - A sign case may now have several signatories of one role (`company-signatory`):
 *   a signatory is its role and personnummer, and each sign order names the one it is
 *   for. `sign_cases.company_signatures_required` is how many company signatories must
 *   sign (NULL when the policyholder is a person).
 */
export const version = 28;
export const name = 'company signatories';
export const sql = `
CREATE TABLE company_signatories (
  id                   bigserial PRIMARY KEY,
  organisation_number  text NOT NULL,
  personal_number      text NOT NULL,
  name                 text NOT NULL,
  valid_from           date NOT NULL,
  valid_to             date,
  created_at           timestamptz NOT NULL,
  created_by           text NOT NULL,
  revoked_at           timestamptz,
  revoked_by           text,
  CHECK (valid_to IS NULL OR valid_to >= valid_from),
  CHECK ((revoked_at IS NULL) = (revoked_by IS NULL))
);
CREATE INDEX company_signatories_by_organisation ON company_signatories (organisation_number, valid_from);

CREATE TABLE company_signing_rules (
  organisation_number  text PRIMARY KEY,
  required_signatures  int NOT NULL CHECK (required_signatures > 0),
  set_at               timestamptz NOT NULL,
  set_by               text NOT NULL
);

CREATE TABLE company_signatory_changes (
  id                   bigserial PRIMARY KEY,
  organisation_number  text NOT NULL,
  change               text NOT NULL CHECK (change IN ('registered', 'revoked', 'rule-set')),
  changed_at           timestamptz NOT NULL,
  changed_by           text NOT NULL,
  details              jsonb NOT NULL
);

ALTER TABLE sign_cases ADD COLUMN company_signatures_required int CHECK (company_signatures_required > 0);

ALTER TABLE sign_case_signatories DROP CONSTRAINT sign_case_signatories_role_check;
ALTER TABLE sign_case_signatories ADD CONSTRAINT sign_case_signatories_role_check CHECK (role IN ('policyholder', 'insured', 'company-signatory'));
ALTER TABLE sign_orders DROP CONSTRAINT sign_orders_sign_case_id_role_fkey;
ALTER TABLE sign_case_signatories DROP CONSTRAINT sign_case_signatories_pkey;
ALTER TABLE sign_case_signatories ADD PRIMARY KEY (sign_case_id, role, personal_number);
ALTER TABLE sign_orders ADD COLUMN personal_number text;
UPDATE sign_orders o SET personal_number = s.personal_number FROM sign_case_signatories s WHERE s.sign_case_id = o.sign_case_id AND s.role = o.role;
ALTER TABLE sign_orders ALTER COLUMN personal_number SET NOT NULL;
ALTER TABLE sign_orders ADD FOREIGN KEY (sign_case_id, role, personal_number) REFERENCES sign_case_signatories(sign_case_id, role, personal_number);
DROP INDEX sign_orders_one_pending;
CREATE UNIQUE INDEX sign_orders_one_pending ON sign_orders (sign_case_id, role, personal_number) WHERE status = 'pending';
`;
