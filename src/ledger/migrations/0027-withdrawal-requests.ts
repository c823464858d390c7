/**
 * Withdrawal requests and the sign cases that go with them.
 *
 * - `withdrawal_requests`: one row per request — the insurance, its policyholder, the
 *   amount and the validated account it goes to, who requested it and when. The
 *   insurer's decision (`decision`, approved or rejected, with who decided and why) and
 *   the signatures are independent; `status` is kept from both (requested, approved,
 *   signed, rejected, ordered). Once ordered, `run_key` names the DebitAccounts run
 *   (its `debit_runs` row and document) that carries the sell order and payout: the
 *   run's primary key and the status change share one transaction, so a request is
 *   ordered once.
 * - `withdrawal_request_events`: the history — requested, approved, rejected, signed
 *   (by which role), ordered — each with when, by whom and why. Never updated.
 * - `sign_cases`: the text every signatory of a request signs (simpleMarkdownV1).
 * - `sign_case_signatories`: who must sign, by role (the policyholder; the insured when
 *   another person), with the counting signature's order and completion data.
 * - `sign_orders`: every BankID order started for a signatory, its last collected status
 *   and hint, and its completion data (kept also when it did not count: another person
 *   signed). At most one order per signatory is pending.
 */
export const version = 27;
export const name = 'withdrawal requests and sign cases';
export const sql = `
CREATE TABLE withdrawal_requests (
  request_id        text PRIMARY KEY,
  insurance_number  text NOT NULL REFERENCES insurances(insurance_number),
  customer_id       text NOT NULL,
  amount            numeric(18,2) NOT NULL CHECK (amount > 0),
  account_digits    text NOT NULL,
  bank_name         text NOT NULL,
  requested_at      timestamptz NOT NULL,
  requested_by      text NOT NULL,
  status            text NOT NULL DEFAULT 'requested' CHECK (status IN ('requested', 'approved', 'signed', 'rejected', 'ordered')),
  decision          text CHECK (decision IN ('approved', 'rejected')),
  decided_at        timestamptz,
  decided_by        text,
  decision_reason   text,
  run_key           text,
  custodian_id      text,
  ordered_on        date,
  CHECK ((decision IS NULL) = (decided_at IS NULL)),
  CHECK ((status = 'ordered') = (run_key IS NOT NULL)),
  FOREIGN KEY (run_key, custodian_id) REFERENCES debit_runs(run_key, custodian_id)
);
CREATE INDEX withdrawal_requests_by_insurance ON withdrawal_requests (insurance_number);
CREATE INDEX withdrawal_requests_by_status ON withdrawal_requests (status, requested_at);

CREATE TABLE withdrawal_request_events (
  id          bigserial PRIMARY KEY,
  request_id  text NOT NULL REFERENCES withdrawal_requests(request_id),
  event       text NOT NULL CHECK (event IN ('requested', 'approved', 'rejected', 'signed', 'ordered')),
  at          timestamptz NOT NULL,
  by          text NOT NULL,
  reason      text
);
CREATE INDEX withdrawal_request_events_by_request ON withdrawal_request_events (request_id, id);

CREATE TABLE sign_cases (
  sign_case_id  text PRIMARY KEY,
  request_id    text NOT NULL UNIQUE REFERENCES withdrawal_requests(request_id),
  visible_text  text NOT NULL,
  created_at    timestamptz NOT NULL
);

CREATE TABLE sign_case_signatories (
  sign_case_id     text NOT NULL REFERENCES sign_cases(sign_case_id),
  role             text NOT NULL CHECK (role IN ('policyholder', 'insured')),
  personal_number  text NOT NULL,
  signed_at        timestamptz,
  order_ref        text,
  PRIMARY KEY (sign_case_id, role),
  CHECK ((signed_at IS NULL) = (order_ref IS NULL))
);

CREATE TABLE sign_orders (
  order_ref         text PRIMARY KEY,
  sign_case_id      text NOT NULL,
  role              text NOT NULL,
  started_at        timestamptz NOT NULL,
  end_user_ip       text NOT NULL,
  auto_start_token  text NOT NULL,
  qr_start_token    text NOT NULL,
  qr_start_secret   text NOT NULL,
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'failed', 'complete', 'not-counted')),
  hint_code         text,
  reason            text,
  finished_at       timestamptz,
  completion_data   jsonb,
  FOREIGN KEY (sign_case_id, role) REFERENCES sign_case_signatories(sign_case_id, role)
);
CREATE UNIQUE INDEX sign_orders_one_pending ON sign_orders (sign_case_id, role) WHERE status = 'pending';
`;
