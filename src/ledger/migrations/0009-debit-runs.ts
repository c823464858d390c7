/**
 * Debit runs, payouts and the outgoing documents they produce.
 *
 * - `debit_runs`: one row per run key and custodian — a debit run (`2026-Q3`, the
 *   quarter covered) or a payout month (`2026-11`). The primary key is what makes a
 *   run idempotent: a repeat finds the row and produces nothing new. Accounts the run
 *   had to hold back (no custody values, no yield tax rate) are listed in `held`.
 * - `debit_lines`: what each account was debited, charge by charge, and the sell
 *   order when the account's cash did not cover the debit.
 * - `outgoing_documents`: every document the gateway starts itself (DebitAccounts),
 *   with its deterministic file name, body and when it was delivered.
 * - `payouts`: an insurance in payout — from which month, over how many months or at
 *   which monthly amount — and whether it is paying or completed.
 * - `payout_orders`: one row per insurance and month: the sell order (by the 10th)
 *   and the payout (by the 22nd); the key keeps a month from being paid twice.
 * - `payout_notices`: the notice to the insured that payout can begin, one per
 *   insurance, with when (and to whom) it was sent when it could be.
 *
 * No column is named `message_id`: these rows are not written by received messages.
 */
export const version = 9;
export const name = 'debit runs and payouts';
export const sql = `
CREATE TABLE outgoing_documents (
  document_id      text PRIMARY KEY,
  counterparty_id  text NOT NULL,
  document_type    text NOT NULL,
  file_name        text NOT NULL,
  body             text NOT NULL,
  created_at       timestamptz NOT NULL,
  delivered_at     timestamptz,
  delivery_target  text,
  attempts         integer NOT NULL DEFAULT 0,
  last_error       text
);
CREATE INDEX outgoing_documents_undelivered ON outgoing_documents (created_at) WHERE delivered_at IS NULL;

CREATE TABLE debit_runs (
  run_key       text NOT NULL,
  custodian_id  text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('debit', 'payout')),
  run_date      date NOT NULL,
  document_id   text REFERENCES outgoing_documents(document_id),
  held          jsonb NOT NULL DEFAULT '[]',
  created_at    timestamptz NOT NULL,
  PRIMARY KEY (run_key, custodian_id)
);

CREATE TABLE debit_lines (
  run_key           text NOT NULL,
  custodian_id      text NOT NULL,
  account_number    text NOT NULL,
  insurance_number  text NOT NULL,
  charge            text NOT NULL CHECK (charge IN ('FixedCharge', 'CapitalCharge', 'RiskPremium', 'YieldTax', 'SellOrder')),
  basis             text,
  amount            numeric(18,2) NOT NULL CHECK (amount > 0),
  period_from       date NOT NULL,
  period_to         date NOT NULL,
  FOREIGN KEY (run_key, custodian_id) REFERENCES debit_runs(run_key, custodian_id)
);
CREATE INDEX debit_lines_by_run ON debit_lines (run_key, custodian_id, account_number);
CREATE INDEX debit_lines_by_insurance ON debit_lines (insurance_number);

CREATE TABLE payouts (
  insurance_number  text PRIMARY KEY REFERENCES insurances(insurance_number),
  start_month       text NOT NULL CHECK (start_month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  months            integer CHECK (months > 0),
  monthly_amount    numeric(18,2) CHECK (monthly_amount > 0),
  status            text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'paying', 'completed')),
  created_at        timestamptz NOT NULL,
  completed_month   text,
  CHECK ((months IS NULL) <> (monthly_amount IS NULL))
);

CREATE TABLE payout_orders (
  insurance_number  text NOT NULL REFERENCES payouts(insurance_number),
  month             text NOT NULL,
  installment       integer NOT NULL,
  amount            numeric(18,2) NOT NULL CHECK (amount > 0),
  sell_by           date NOT NULL,
  pay_by            date NOT NULL,
  final             boolean NOT NULL,
  run_key           text NOT NULL,
  custodian_id      text NOT NULL,
  PRIMARY KEY (insurance_number, month),
  FOREIGN KEY (run_key, custodian_id) REFERENCES debit_runs(run_key, custodian_id)
);

CREATE TABLE payout_notices (
  insurance_number  text PRIMARY KEY REFERENCES payouts(insurance_number),
  first_month       text NOT NULL,
  recorded_at       timestamptz NOT NULL,
  sent_to           text,
  sent_at           timestamptz
);
`;
