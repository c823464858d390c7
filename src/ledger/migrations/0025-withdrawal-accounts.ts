/**
 * Accounts registered for withdrawals. A policyholder's money leaves an insurance only
 * to an account registered in advance and validated against the policyholder.
 *
 * - `withdrawal_accounts`: one row per registration — the customer (personnummer or
 *   organisationsnummer), the account as clearing number + account number with its
 *   bank, who registered it and when, and the banking day whose 13:00 run validates it
 *   (`validation_day`). Status `pending` until that run, then `validated` or `refused`
 *   with the reason, with when it was decided. A customer has at most one live
 *   (pending or validated) registration of an account; a refused one may be
 *   registered again. Rows are never deleted.
 */
export const version = 25;
export const name = 'withdrawal accounts';
export const sql = `
CREATE TABLE withdrawal_accounts (
  registration_id  text PRIMARY KEY,
  customer_id      text NOT NULL,
  account_digits   text NOT NULL,
  clearing_number  text NOT NULL,
  account_number   text NOT NULL,
  bank_name        text NOT NULL,
  registered_at    timestamptz NOT NULL,
  registered_by    text NOT NULL,
  validation_day   date NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'validated', 'refused')),
  decided_at       timestamptz,
  refusal_reason   text,
  CHECK ((status = 'pending') = (decided_at IS NULL)),
  CHECK ((status = 'refused') = (refusal_reason IS NOT NULL))
);
CREATE UNIQUE INDEX withdrawal_accounts_one_live ON withdrawal_accounts (customer_id, account_digits) WHERE status <> 'refused';
CREATE INDEX withdrawal_accounts_pending ON withdrawal_accounts (validation_day) WHERE status = 'pending';
CREATE INDEX withdrawal_accounts_by_account ON withdrawal_accounts (account_digits);
`;
