/**
 * The custody ledger: what custodians report about the custody accounts the insurer
 * holds with them. Each account belongs to one custodian (a configured counterparty).
 *
 * - `custody_valuations` is the account's value per as-of date, from its Holdings
 *   report: one row per account and day, replaced when the custodian re-sends that
 *   day (the row names the message that wrote it). Charges and yield tax are computed
 *   from it.
 * - `custody_positions` holds the positions of each report, loaded with COPY. A
 *   re-sent day replaces the earlier report's positions of that account and day.
 * - `custody_transactions` is keyed by the custodian's own transaction id per account:
 *   a transaction reported twice is recorded once.
 * - `custody_costs` holds the yearly CostAndCharges report per account and year.
 */
export const version = 4;
export const name = 'custody ledger';
export const sql = `
CREATE TABLE custody_accounts (
  account_number  text PRIMARY KEY,
  custodian_id    text NOT NULL,
  opened_on       date NOT NULL,
  closed_on       date
);
CREATE INDEX custody_accounts_by_custodian ON custody_accounts (custodian_id);

CREATE TABLE custody_valuations (
  account_number   text NOT NULL REFERENCES custody_accounts(account_number),
  as_of            date NOT NULL,
  cash             numeric(18,2) NOT NULL,
  positions_value  numeric(20,2) NOT NULL,
  total_value      numeric(20,2) NOT NULL,
  position_count   integer NOT NULL,
  message_id       text NOT NULL,
  PRIMARY KEY (account_number, as_of)
);

CREATE TABLE custody_positions (
  account_number  text NOT NULL,
  as_of           date NOT NULL,
  isin            text NOT NULL,
  quantity        numeric(24,6) NOT NULL,
  market_value    numeric(20,2) NOT NULL,
  instrument_currency text NOT NULL,
  message_id      text NOT NULL
);
CREATE INDEX custody_positions_by_account ON custody_positions (account_number, as_of);

CREATE TABLE custody_transactions (
  account_number   text NOT NULL REFERENCES custody_accounts(account_number),
  transaction_id   text NOT NULL,
  transaction_type text NOT NULL,
  trade_date       date NOT NULL,
  settlement_date  date NOT NULL,
  isin             text,
  quantity         numeric(24,6),
  amount           numeric(18,2) NOT NULL,
  currency         text NOT NULL,
  message_id       text NOT NULL,
  PRIMARY KEY (account_number, transaction_id)
);
CREATE INDEX custody_transactions_by_date ON custody_transactions (account_number, trade_date);

CREATE TABLE custody_costs (
  account_number           text NOT NULL REFERENCES custody_accounts(account_number),
  year                     integer NOT NULL,
  investment_services      numeric(18,2) NOT NULL,
  third_party_payments     numeric(18,2) NOT NULL,
  investment_product_cost  numeric(18,2) NOT NULL,
  refund                   numeric(18,2) NOT NULL DEFAULT 0,
  total_costs              numeric(18,2) NOT NULL,
  message_id               text NOT NULL,
  PRIMARY KEY (account_number, year)
);
`;
