/**
 * Pension plan applications (an employer's occupational plan) beside the individual
 * insurance applications, in the same `applications` table (`kind` 'plan', the
 * employer's organisation number as `customer_id`) and status history.
 *
 * - `applications.agreement_number`: the agreement a plan application was issued as,
 *   with its categories, cost centers, employments and insurances (those carry the
 *   application id as the message that created them).
 * - `agreement_number_seq`: numbers of agreements the gateway creates, AGR-200001 on;
 *   agreements made before (by the insurer's own systems) keep theirs.
 * - `insurances_by_agreement`: an issued plan's insurances are read by agreement.
 */
export const version = 17;
export const name = 'plan applications';
export const sql = `
ALTER TABLE applications ADD COLUMN agreement_number text REFERENCES agreements(agreement_number);
CREATE SEQUENCE agreement_number_seq START 200001;
CREATE INDEX insurances_by_agreement ON insurances (agreement_number);
`;
