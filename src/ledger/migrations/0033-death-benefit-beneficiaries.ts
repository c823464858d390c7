/**
 * Where a death benefit is paid: every payout line of a DebitAccounts file names the
 * account the custodian pays to, so a death benefit records its beneficiary and the
 * beneficiary's bank account (clearing number and account number, digits only). A
 * benefit without them waits: no payout run orders it until staff record them.
 */
export const version = 33;
export const name = 'death benefit beneficiaries';

export const sql = `
ALTER TABLE death_benefits
  ADD COLUMN beneficiary_name     text,
  ADD COLUMN beneficiary_account  text CHECK (beneficiary_account ~ '^[0-9]{6,20}$'),
  ADD CHECK ((beneficiary_name IS NULL) = (beneficiary_account IS NULL));
`;
