/**
 * Signing links: the credential of the insurer's signing page (GET /sign/{signCaseId}?t=…).
 * A link is for one signatory (role and personnummer) of one sign case; whoever holds
 * its token may see what that signatory signs and sign it with BankID, nothing else.
 *
 * - `token_hash`: the SHA-256 of the token, in hex. The token itself is shown once, to
 *   whoever asked for the link, and never stored: a copy of the table opens no page.
 * - `expires_at`: set when made (signingPage.linkLifetimeHours); a link also stops
 *   working once its case is complete or closed, which is read from the case, not here.
 * - `revoked_at` / `revoked_by`: a link taken back before it expired.
 * - `created_by`: who asked for it (`client:<id>`, `staff:<user>`).
 */
export const version = 39;
export const name = 'sign links';

export const sql = `
CREATE TABLE sign_links (
  token_hash       text PRIMARY KEY,
  sign_case_id     text NOT NULL,
  role             text NOT NULL,
  personal_number  text NOT NULL,
  created_at       timestamptz NOT NULL,
  created_by       text NOT NULL,
  expires_at       timestamptz NOT NULL,
  revoked_at       timestamptz,
  revoked_by       text,
  CHECK ((revoked_at IS NULL) = (revoked_by IS NULL)),
  FOREIGN KEY (sign_case_id, role, personal_number) REFERENCES sign_case_signatories(sign_case_id, role, personal_number)
);
CREATE INDEX sign_links_by_signatory ON sign_links (sign_case_id, role, personal_number);
`;
