/**
 * The commission file (docs/commission.md): advisor firms' fees taken from insurances
 * and paid on to the firms.
 *
 * `products` gains each product's cap on an advisor's fee, a year's worth: at most
 * `advisor_fee_max_percent` percent of the custody value and at most
 * `advisor_fee_max_amount` SEK (0, the default: no advisor fee may be taken). A fee for a
 * period of whole months may be that many twelfths of it.
 *
 * `commission_lines`: one row per accepted item of a CommissionFile, written by the
 * message (`message_id`, `item_id`) that reported it — the firm, the insurance, the
 * period, the fee as reported (`fee_kind` Amount or Percent, `fee_value`) and the power
 * of attorney that allowed it. No two lines of an insurance share a period's first day
 * (and the handler refuses any overlap). Then, as the money moves:
 * - ordered: the debit run that made it an AdvisorFee line (`run_key`, `custodian_id`,
 *   `account_number`) and the `amount` it debited, set in the run's transaction;
 * - debited: the custodian's Fee transaction that shows it (`debit_transaction_id`,
 *   `debited_on`), matched by the monthly commission payment;
 * - paid: the `statement_id` of the CommissionStatement that paid it.
 *
 * `commission_statements`: one row per firm and month paid — the total, the payment order
 * (pain.001) and EndToEndId that pay it, and the outgoing CommissionStatement document.
 *
 * `debit_lines.charge` and `payment_orders.purpose` admit AdvisorFee and
 * advisor-commission.
 */
export const version = 44;
export const name = 'commission';
export const sql = `
ALTER TABLE products
  ADD COLUMN advisor_fee_max_percent  numeric(9,4) NOT NULL DEFAULT 0 CHECK (advisor_fee_max_percent >= 0),
  ADD COLUMN advisor_fee_max_amount   numeric(18,2) NOT NULL DEFAULT 0 CHECK (advisor_fee_max_amount >= 0);

ALTER TABLE debit_lines DROP CONSTRAINT debit_lines_charge_check;
ALTER TABLE debit_lines ADD CONSTRAINT debit_lines_charge_check
  CHECK (charge IN ('FixedCharge', 'CapitalCharge', 'RiskPremium', 'YieldTax', 'SellOrder', 'AdvisorFee'));

ALTER TABLE payment_orders DROP CONSTRAINT payment_orders_purpose_check;
ALTER TABLE payment_orders ADD CONSTRAINT payment_orders_purpose_check CHECK (purpose IN ('death-benefit', 'advisor-commission'));

CREATE TABLE commission_statements (
  statement_id              text PRIMARY KEY,
  firm_organisation_number  text NOT NULL REFERENCES advisor_firms(organisation_number),
  counterparty_id           text NOT NULL,
  month                     text NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  total                     numeric(18,2) NOT NULL CHECK (total > 0),
  payment_order_id          text NOT NULL REFERENCES payment_orders(payment_order_id),
  end_to_end_id             text NOT NULL UNIQUE,
  document_id               text NOT NULL REFERENCES outgoing_documents(document_id),
  created_at                timestamptz NOT NULL,
  UNIQUE (firm_organisation_number, month)
);

CREATE TABLE commission_lines (
  id                        bigserial PRIMARY KEY,
  message_id                text NOT NULL,
  item_id                   text NOT NULL,
  firm_organisation_number  text NOT NULL REFERENCES advisor_firms(organisation_number),
  insurance_number          text NOT NULL REFERENCES insurances(insurance_number),
  period_from               date NOT NULL,
  period_to                 date NOT NULL,
  fee_kind                  text NOT NULL CHECK (fee_kind IN ('Amount', 'Percent')),
  fee_value                 numeric(18,4) NOT NULL CHECK (fee_value > 0),
  power_of_attorney_id      bigint NOT NULL REFERENCES powers_of_attorney(id),
  recorded_at               timestamptz NOT NULL DEFAULT now(),
  run_key                   text,
  custodian_id              text,
  account_number            text,
  amount                    numeric(18,2) CHECK (amount > 0),
  debit_transaction_id      text,
  debited_on                date,
  statement_id              text REFERENCES commission_statements(statement_id),
  UNIQUE (message_id, item_id),
  UNIQUE (insurance_number, period_from),
  CHECK (period_to >= period_from),
  CHECK ((run_key IS NULL) = (amount IS NULL) AND (run_key IS NULL) = (account_number IS NULL)),
  CHECK (debited_on IS NULL OR run_key IS NOT NULL),
  CHECK (statement_id IS NULL OR debited_on IS NOT NULL)
);
CREATE INDEX commission_lines_by_insurance ON commission_lines (insurance_number, period_from);
CREATE INDEX commission_lines_to_order ON commission_lines (insurance_number) WHERE run_key IS NULL;
CREATE INDEX commission_lines_to_pay ON commission_lines (firm_organisation_number) WHERE run_key IS NOT NULL AND statement_id IS NULL;
CREATE INDEX commission_lines_by_statement ON commission_lines (statement_id) WHERE statement_id IS NOT NULL;
`;
