/**
 * When payout can begin, and who started it.
 *
 * - `products.payout_age`: the age from which the product's insurances may be paid out
 *   (default 65: no product of the catalogue states another); `products.payout_months`:
 *   the payout periods the product offers, in months (default 5, 10 and 20 years).
 * - `insurances.payout_from`: the payout start date agreed for this insurance, when one
 *   was agreed; without it payout can begin on the insured's birthday at the product's
 *   payout age. A paid-up insurance keeps its date.
 * - `payouts.withdrawal_account`, `registered_by`: the payout the insured initiated (over
 *   how many months is `months`) — to which bank account (clearing number and account
 *   number, digits only) — and who registered it (`staff:<user>`, `cli:<account>`);
 *   `created_at` says when. A payout put in place before this migration has none.
 * - `payout_notices` is now written when payout can begin (`can_begin`), before the
 *   insured has started a payout: it belongs to the insurance, and `first_month` is set
 *   by the first installment.
 */
export const version = 24;
export const name = 'payout start';
export const sql = `
ALTER TABLE products
  ADD COLUMN payout_age    integer NOT NULL DEFAULT 65 CHECK (payout_age BETWEEN 55 AND 100),
  ADD COLUMN payout_months integer[] NOT NULL DEFAULT '{60,120,240}' CHECK (0 < ALL (payout_months));

ALTER TABLE insurances ADD COLUMN payout_from date;

ALTER TABLE payouts
  ADD COLUMN withdrawal_account  text CHECK (withdrawal_account ~ '^[0-9]{6,20}$'),
  ADD COLUMN registered_by       text;

ALTER TABLE payout_notices
  DROP CONSTRAINT payout_notices_insurance_number_fkey,
  ADD CONSTRAINT payout_notices_insurance_number_fkey FOREIGN KEY (insurance_number) REFERENCES insurances(insurance_number),
  ALTER COLUMN first_month DROP NOT NULL,
  ADD COLUMN can_begin date;
`;
