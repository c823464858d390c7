/**
 * The risk covers each insurance carries, from a date: `repaymentProtection` (101 % of
 * the custody value paid out if the insured dies before payout starts) and
 * `premiumWaiver` (the savings premiums paid if the insured falls ill). The debit run
 * charges the risk premium of the coverages an insurance has here, no longer by its
 * product kind. An issued application writes the coverages applied for; an insurance
 * bought by InsurancePurchase or issued from a pension plan gets its kind's standard
 * ones (K: repayment protection; P and T: none).
 *
 * The insurances that exist already get their kind's standard coverages from their
 * start date, so their charges stay what they were.
 */
export const version = 23;
export const name = 'insurance coverages';
export const sql = `
CREATE TABLE insurance_coverages (
  insurance_number  text NOT NULL REFERENCES insurances(insurance_number),
  coverage_type     text NOT NULL CHECK (coverage_type IN ('repaymentProtection', 'premiumWaiver')),
  from_date         date NOT NULL,
  message_id        text,
  recorded_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (insurance_number, coverage_type)
);

INSERT INTO insurance_coverages (insurance_number, coverage_type, from_date, message_id)
SELECT i.insurance_number, 'repaymentProtection', i.start_date, 'migration-0023'
  FROM insurances i JOIN products p ON p.code = i.product_code
 WHERE p.kind = 'K';
`;
