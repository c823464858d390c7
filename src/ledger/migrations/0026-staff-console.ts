/**
 * The staff console (docs/console.md):
 *
 * - `staff_sessions`: who is signed in to the console. The cookie carries a random
 *   token; only its SHA-256 is stored, so a copy of this table signs nobody in. A
 *   session ends at sign-out, after `staff.sessionIdleMinutes` without a request, or
 *   `staff.sessionMaxHours` after sign-in, whichever comes first.
 * - `staff_audit`: every action staff take in the console (a replay, a look at a
 *   personal identity number unmasked) with who, when, what and why. Append-only: a
 *   trigger refuses every UPDATE and DELETE, so an entry cannot be edited afterwards.
 * - `document_keys`: what a document is about — personnummer, organisationsnummer,
 *   agreement, insurance number, custody account — written when it is applied, so the
 *   message browser finds documents by them through an index, never by reading raw
 *   documents. Messages applied before this version have no keys.
 * - A BRIN index on messages.received_at, for the overview's "today" and the browser's
 *   received-between: a few pages for the whole table, and next to nothing for each
 *   message written (messages arrive in time order).
 */
export const version = 26;
export const name = 'staff console';
export const sql = `
CREATE TABLE staff_sessions (
  token_sha256  text PRIMARY KEY,
  username      text NOT NULL,
  csrf_token    text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL
);
CREATE INDEX staff_sessions_by_expiry ON staff_sessions (expires_at);

CREATE TABLE staff_audit (
  id          bigserial PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  username    text NOT NULL,
  action      text NOT NULL,
  subject     text NOT NULL,
  reason      text,
  outcome     text NOT NULL
);
CREATE INDEX staff_audit_by_subject ON staff_audit (subject, id);
CREATE FUNCTION staff_audit_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'staff_audit is append-only: % is not allowed', TG_OP;
END $$;
CREATE TRIGGER staff_audit_append_only BEFORE UPDATE OR DELETE ON staff_audit
  FOR EACH ROW EXECUTE FUNCTION staff_audit_is_append_only();

CREATE TABLE document_keys (
  kind        text NOT NULL CHECK (kind IN ('personnummer', 'organisationsnummer', 'agreement', 'insurance', 'custody-account')),
  value       text NOT NULL,
  message_id  text NOT NULL REFERENCES messages(id),
  seq         bigint NOT NULL,
  PRIMARY KEY (kind, value, seq, message_id)
);
CREATE INDEX document_keys_by_message ON document_keys (message_id);

CREATE INDEX messages_by_received_at ON messages USING brin (received_at);
`;
