/**
 * Death benefits of repayment protection: when staff record the death of the insured of
 * a capital insurance (K) that has repayment protection and is not in payout, the end's
 * transaction records one row here; the next payout run orders it.
 *
 * - `custody_value`, `value_as_of`: the value the benefit is paid on — the account's
 *   latest reported value on or before the day the death was recorded — and that
 *   value's day; NULL while the custodian has reported none, and then filled in by the
 *   run that orders it, with the latest value it has.
 * - `insurer_amount`: the 1 % of the custody value the insurer pays from its own funds
 *   (the custodian pays the custody value from the account). Set with the value.
 * - `recorded_by`, `recorded_at`: who recorded the death, and when (the audit).
 * - `run_key`, `custodian_id`, `sell_by`, `pay_by`: the payout run whose DebitAccounts
 *   carries the sell order of everything and the final payout; written in that run's
 *   transaction, so a benefit is ordered once.
 */
export const version = 29;
export const name = 'death benefits';
export const sql = `
CREATE TABLE death_benefits (
  insurance_number  text PRIMARY KEY REFERENCES insurances(insurance_number),
  death_date        date NOT NULL,
  custody_value     numeric(20,2),
  value_as_of       date,
  insurer_amount    numeric(20,2) CHECK (insurer_amount >= 0),
  recorded_by       text NOT NULL,
  recorded_at       timestamptz NOT NULL,
  run_key           text,
  custodian_id      text,
  sell_by           date,
  pay_by            date,
  CHECK ((custody_value IS NULL) = (insurer_amount IS NULL) AND (custody_value IS NULL) = (value_as_of IS NULL)),
  CHECK ((run_key IS NULL) = (custodian_id IS NULL) AND (run_key IS NULL) = (sell_by IS NULL) AND (run_key IS NULL) = (pay_by IS NULL)),
  CHECK (run_key IS NULL OR custody_value > 0),
  FOREIGN KEY (run_key, custodian_id) REFERENCES debit_runs(run_key, custodian_id)
);
CREATE INDEX death_benefits_unordered ON death_benefits (recorded_at) WHERE run_key IS NULL;
`;
