/**
 * Switching custodian: the policyholder (directly, through staff, or through an advisor
 * firm holding an intermediation power) moves an insurance's securities from the
 * custodian holding its custody account (the releasing one) to another (the receiving
 * one), which opens a new account. The policy stays; its account and custodian change.
 *
 * - `custodian_switches`: one row per switch — the insurance, the releasing custodian and
 *   account, the receiving custodian and (once known) its new account, and where it
 *   stands: `requested` (its sign case not yet signed by all), `ordered` (the
 *   CustodianSwitchOrder stored for the releasing custodian, `order_document_id`),
 *   `confirmed` (the receiving custodian confirmed the new account), `completed` (both
 *   custodians showed the move and the insurance's account was changed) or `closed`
 *   (given up by staff). `transferred_out_at` and `value_arrived_at` record the two
 *   halves of the move as each custodian's report shows it. At most one switch of an
 *   insurance is open (`switch_open`).
 * - `custodian_switch_events`: its history — requested, signed, ordered, confirmed,
 *   transferred-out, value-arrived, moved, completed, closed, stalled, refused — with
 *   when (`recorded_at`), by whom, why, and the message that caused it when one did.
 *   Never updated.
 * - `custodian_switch_waits`: a debit or payout run that met the insurance while its
 *   switch was open: the run key, why it waited, and the run key under which its lines
 *   were ordered at the receiving custodian once the switch completed.
 * - `insurance_custody_changes`: the history of an insurance's custody account and
 *   custodian (before and after, from which day, by which switch); `insurances`
 *   keeps the current account.
 * - `sign_cases.subject_kind` gains `custodian-switch`: the policyholder signs a switch
 *   as a withdrawal.
 */
export const version = 47;
export const name = 'custodian switches';

export const sql = `
CREATE SEQUENCE custodian_switch_seq START 1;

CREATE TABLE custodian_switches (
  switch_id            text PRIMARY KEY,
  insurance_number     text NOT NULL REFERENCES insurances(insurance_number),
  policyholder         text NOT NULL,
  from_custodian       text NOT NULL,
  from_account         text NOT NULL REFERENCES custody_accounts(account_number),
  to_custodian         text NOT NULL,
  to_account           text,
  status               text NOT NULL DEFAULT 'requested'
                         CHECK (status IN ('requested', 'ordered', 'confirmed', 'completed', 'closed')),
  switch_open          boolean GENERATED ALWAYS AS (status IN ('requested', 'ordered', 'confirmed')) STORED,
  requested_at         timestamptz NOT NULL,
  requested_by         text NOT NULL,
  ordered_at           timestamptz,
  order_document_id    text REFERENCES outgoing_documents(document_id),
  confirmed_at         timestamptz,
  transferred_out_at   timestamptz,
  value_arrived_at     timestamptz,
  moved_value          numeric(20,2),
  completed_at         timestamptz,
  closed_at            timestamptz,
  stalled_noticed_at   timestamptz,
  CHECK (from_custodian <> to_custodian),
  CHECK ((status IN ('requested', 'closed')) OR ordered_at IS NOT NULL),
  CHECK ((status NOT IN ('confirmed', 'completed')) OR to_account IS NOT NULL)
);
CREATE UNIQUE INDEX custodian_switches_one_open ON custodian_switches (insurance_number) WHERE switch_open;
CREATE INDEX custodian_switches_by_status ON custodian_switches (status, requested_at);
CREATE UNIQUE INDEX custodian_switches_by_new_account ON custodian_switches (to_account) WHERE switch_open AND to_account IS NOT NULL;

CREATE TABLE custodian_switch_events (
  id          bigserial PRIMARY KEY,
  switch_id   text NOT NULL REFERENCES custodian_switches(switch_id),
  event       text NOT NULL CHECK (event IN ('requested', 'signed', 'ordered', 'confirmed', 'transferred-out', 'value-arrived',
                                              'moved', 'completed', 'closed', 'stalled', 'refused')),
  recorded_at timestamptz NOT NULL,
  by          text NOT NULL,
  reason      text,
  message_id  text
);
CREATE INDEX custodian_switch_events_by_switch ON custodian_switch_events (switch_id, id);
-- The message detail's ledger view reads the events a document recorded (a confirmation, Holdings, Transactions).
CREATE INDEX custodian_switch_events_by_message ON custodian_switch_events (message_id) WHERE message_id IS NOT NULL;

CREATE TABLE custodian_switch_waits (
  switch_id         text NOT NULL REFERENCES custodian_switches(switch_id),
  run_key           text NOT NULL,
  kind              text NOT NULL CHECK (kind IN ('debit', 'payout')),
  reason            text NOT NULL,
  waited_at         timestamptz NOT NULL,
  ordered_run_key   text,
  PRIMARY KEY (switch_id, run_key)
);

CREATE TABLE insurance_custody_changes (
  id                bigserial PRIMARY KEY,
  insurance_number  text NOT NULL REFERENCES insurances(insurance_number),
  effective_date    date NOT NULL,
  from_account      text NOT NULL,
  from_custodian    text NOT NULL,
  to_account        text NOT NULL REFERENCES custody_accounts(account_number),
  to_custodian      text NOT NULL,
  switch_id         text NOT NULL REFERENCES custodian_switches(switch_id),
  recorded_at       timestamptz NOT NULL
);
CREATE INDEX insurance_custody_changes_by_insurance ON insurance_custody_changes (insurance_number, effective_date);

ALTER TABLE sign_cases DROP CONSTRAINT sign_cases_subject_kind_check;
ALTER TABLE sign_cases ADD CONSTRAINT sign_cases_subject_kind_check
  CHECK (subject_kind IN ('withdrawal', 'payout', 'application', 'custodian-switch'));
`;
