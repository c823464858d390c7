/**
 * Yield tax held back for want of its rate: a debit run that finds no yield tax rate
 * for a tax year (charges.yieldTaxRates) debits the account's charges and risk premium
 * and records here, per insurance and basis, the tax line it could not compute — what
 * it is levied on (`base`, at half for deposits of the second half of the year:
 * `half_base`), for which tax year and kind, the period the line covers and which rate
 * is missing (`reason`). The first later debit run that knows the rate debits it as a
 * line of its own and records itself in `debited_run_key`, `debited_custodian_id` and
 * `debited_amount` in its own transaction, so a held tax is debited once.
 *
 * - The key (run, insurance, basis) keeps a run from holding the same line twice; the
 *   run's own row (debit_runs) is written in the same transaction, so a repeat of the
 *   run finds it and holds nothing again.
 * - Only debit runs hold taxes; the pending ones are found by the partial index.
 */
export const version = 35;
export const name = 'held yield taxes';
export const sql = `
CREATE TABLE held_yield_taxes (
  run_key               text NOT NULL,
  custodian_id          text NOT NULL,
  insurance_number      text NOT NULL REFERENCES insurances(insurance_number),
  account_number        text NOT NULL,
  basis                 text NOT NULL CHECK (basis IN ('Deposits', 'OpeningValue')),
  kind                  text NOT NULL CHECK (kind IN ('P', 'T', 'K')),
  tax_year              integer NOT NULL,
  base                  numeric NOT NULL CHECK (base > 0),
  half_base             boolean NOT NULL,
  period_from           date NOT NULL,
  period_to             date NOT NULL,
  reason                text NOT NULL,
  debited_run_key       text,
  debited_custodian_id  text,
  debited_amount        numeric(18,2) CHECK (debited_amount >= 0),
  PRIMARY KEY (run_key, insurance_number, basis),
  FOREIGN KEY (run_key, custodian_id) REFERENCES debit_runs(run_key, custodian_id),
  FOREIGN KEY (debited_run_key, debited_custodian_id) REFERENCES debit_runs(run_key, custodian_id),
  CHECK ((debited_run_key IS NULL) = (debited_custodian_id IS NULL) AND (debited_run_key IS NULL) = (debited_amount IS NULL)),
  CHECK (debited_run_key IS NULL OR debited_run_key > run_key)
);
CREATE INDEX held_yield_taxes_pending ON held_yield_taxes (insurance_number) WHERE debited_run_key IS NULL;
`;
