/**
 * The insurer's own payment orders and the death benefit's beneficiary's audit.
 *
 * `payment_orders`: each ISO 20022 pain.001.001.03 file the gateway made for a payment
 * from the insurer's own account (today the 1 % of death benefits), for its finance
 * staff to upload to the bank; nothing sends it anywhere.
 * - `payment_order_id`: the file's GrpHdr/MsgId, unique and never reused (a row is
 *   never deleted, so an id once taken stays taken);
 * - `purpose`: what it pays (`death-benefit`); `run_key`: the payout run whose
 *   transaction made it;
 * - `requested_execution_date`, `transactions`, `control_sum`: as in the file
 *   (ReqdExctnDt, NbOfTxs, CtrlSum);
 * - `file_name`, `body`: the file as made, byte for byte, as staff download it.
 *
 * `death_benefits` gains:
 * - `beneficiary_recorded_by`, `beneficiary_recorded_at`: who recorded the beneficiary
 *   and account (migration 0033) and when, set with them; each recording is also kept
 *   in `death_benefit_beneficiaries`, so a corrected one leaves its trace;
 * - `payment_order_id`, `end_to_end_id`: the payment order that pays the insurer's 1 %
 *   and the payment's EndToEndId in it; set once, in the run's transaction, only on a
 *   benefit the run has ordered.
 */
export const version = 37;
export const name = 'payment orders';
export const sql = `
CREATE TABLE payment_orders (
  payment_order_id          text PRIMARY KEY CHECK (length(payment_order_id) BETWEEN 1 AND 33),
  purpose                   text NOT NULL CHECK (purpose IN ('death-benefit')),
  run_key                   text,
  created_at                timestamptz NOT NULL,
  requested_execution_date  date NOT NULL,
  transactions              int NOT NULL CHECK (transactions > 0),
  control_sum               numeric(20,2) NOT NULL CHECK (control_sum > 0),
  file_name                 text NOT NULL UNIQUE,
  body                      bytea NOT NULL
);
CREATE INDEX payment_orders_newest ON payment_orders (created_at DESC);

ALTER TABLE death_benefits
  ADD COLUMN beneficiary_recorded_by  text,
  ADD COLUMN beneficiary_recorded_at  timestamptz,
  ADD COLUMN payment_order_id         text REFERENCES payment_orders(payment_order_id),
  ADD COLUMN end_to_end_id            text UNIQUE;
UPDATE death_benefits SET beneficiary_recorded_by = 'migration', beneficiary_recorded_at = now() WHERE beneficiary_account IS NOT NULL;
ALTER TABLE death_benefits
  ADD CHECK ((beneficiary_account IS NULL) = (beneficiary_recorded_by IS NULL) AND (beneficiary_account IS NULL) = (beneficiary_recorded_at IS NULL)),
  ADD CHECK ((payment_order_id IS NULL) = (end_to_end_id IS NULL)),
  ADD CHECK (payment_order_id IS NULL OR run_key IS NOT NULL);
CREATE INDEX death_benefits_unpaid ON death_benefits (insurance_number) WHERE run_key IS NOT NULL AND payment_order_id IS NULL;
CREATE INDEX death_benefits_by_payment_order ON death_benefits (payment_order_id) WHERE payment_order_id IS NOT NULL;

CREATE TABLE death_benefit_beneficiaries (
  id                bigserial PRIMARY KEY,
  insurance_number  text NOT NULL REFERENCES death_benefits(insurance_number),
  name              text NOT NULL,
  account           text NOT NULL CHECK (account ~ '^[0-9]{6,20}$'),
  recorded_by       text NOT NULL,
  recorded_at       timestamptz NOT NULL
);
CREATE INDEX death_benefit_beneficiaries_of ON death_benefit_beneficiaries (insurance_number, id);
`;
