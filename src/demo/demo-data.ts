import type { Database } from '../ledger/database.ts';
import { DEMO_STANDARD_CHARGES, seedDemoCatalogue } from './demo-catalogue.ts';
import { loadFunds, type FundListing } from '../ledger/custody/funds.repository.ts';

/**
 * The demo ledger `npm start` runs on: one employer's pension agreement with six
 * employees (one of them not yet insured), so the sample documents in fixtures/ have something to change.
 * The same rows serve the fixture tests. Seeding is idempotent.
 *
 * The personal identity numbers are made-up numbers with valid check digits.
 */
export const DEMO = {
  agreementNumber: 'AGR-1001',
  employerOrganisationNumber: '5561234567',
  administratorOrganisationNumber: '5590000013',
  persons: {
    anna: '197001011233',
    bertil: '198002021239',
    cecilia: '199003031235',
    david: '198512121230',
    eva: '197607151235',
    filip: '199204221239',
  },
  contacts: {
    fia: '198807141232',
    gustav: '197311051234',
  },
  custodianId: 'demo-custodian',
  custodyAccounts: ['DEPA-100001', 'DEPA-100002', 'DEPA-100003', 'DEPA-100004', 'DEPA-100005', 'DEPA-100006'],
  funds: {
    globalIndex: 'SE000DEPA010',
    swedenIndex: 'SE000DEPA028',
    sustainable: 'SE000DEPA036',
    interest: 'SE000DEPA044',
    emerging: 'SE000DEPA051',
    luxGlobal: 'LU00GLOBAL16',
  },
} as const;

/**
 * The demo's people by name, as DEMO_SQL records them: the insured employees, then the
 * agreement's contacts. The local BankID test server of the demo offers to sign as them.
 */
export const DEMO_PEOPLE: readonly { readonly personalNumber: string; readonly givenName: string; readonly surname: string }[] = [
  { personalNumber: DEMO.persons.anna, givenName: 'Anna', surname: 'Andersson' },
  { personalNumber: DEMO.persons.bertil, givenName: 'Bertil', surname: 'Berg' },
  { personalNumber: DEMO.persons.cecilia, givenName: 'Cecilia', surname: 'Carlsson' },
  { personalNumber: DEMO.persons.david, givenName: 'David', surname: 'Dahl' },
  { personalNumber: DEMO.persons.eva, givenName: 'Eva', surname: 'Ek' },
  { personalNumber: DEMO.persons.filip, givenName: 'Filip', surname: 'Falk' },
  { personalNumber: DEMO.contacts.fia, givenName: 'Fia', surname: 'Fransson' },
  { personalNumber: DEMO.contacts.gustav, givenName: 'Gustav', surname: 'Gran' },
];

/** The demo products; their funds follow in DEMO_FUNDS, then DEMO_SQL's agreement and people. */
const DEMO_PRODUCTS_SQL = `
INSERT INTO products (code, name, kind, min_fixed_charge, max_fixed_charge, min_capital_charge, max_capital_charge) VALUES
  ('TJP-DEPA', 'Tjänstepension Depå', 'T', 0, 1200, 0, 2.0),
  ('PPF-DEPA', 'Privat pension Depå', 'P', 0, 1200, 0, 2.0),
  ('KF-DEPA',  'Kapitalförsäkring Depå', 'K', 0, 1200, 0, 1.5),
  ('TJP-DEPA-ESG', 'Tjänstepension Depå Hållbar', 'T', 0, 1200, 0, 1.8)
ON CONFLICT DO NOTHING;
UPDATE products SET min_monthly_premium = 100, max_monthly_premium = 50000, max_extra_premium = 1000000 WHERE code IN ('TJP-DEPA', 'TJP-DEPA-ESG');
UPDATE products SET min_monthly_premium = 100, max_monthly_premium = 10000, max_extra_premium = 500000 WHERE code = 'PPF-DEPA';
UPDATE products SET min_monthly_premium = 0, max_monthly_premium = 100000, max_extra_premium = 5000000 WHERE code = 'KF-DEPA';
-- Advisors' fees (the commission file): at most 1 % of the custody value and 6 000 SEK a year (0.5 % on the sustainable product).
UPDATE products SET advisor_fee_max_percent = CASE code WHEN 'TJP-DEPA-ESG' THEN 0.5 ELSE 1.0 END, advisor_fee_max_amount = 6000
 WHERE advisor_fee_max_percent = 0 AND advisor_fee_max_amount = 0;
`;

export const DEMO_SQL = `
INSERT INTO agreements (agreement_number, name, employer_organisation_number) VALUES
  ('AGR-1001', 'Demo Employer AB pension plan', '5561234567')
ON CONFLICT DO NOTHING;
INSERT INTO agreement_administrators (agreement_number, organisation_number) VALUES
  ('AGR-1001', '5590000013')
ON CONFLICT DO NOTHING;

INSERT INTO persons (personal_identity_number, name) VALUES
  ('197001011233', 'Anna Andersson'),
  ('198002021239', 'Bertil Berg'),
  ('199003031235', 'Cecilia Carlsson'),
  ('198512121230', 'David Dahl'),
  ('197607151235', 'Eva Ek'),
  ('199204221239', 'Filip Falk')
ON CONFLICT DO NOTHING;

INSERT INTO agreement_categories (agreement_number, code, name, premium_percent, premium_percent_above_cap, fixed_monthly_premium, valid_from, message_id) VALUES
  ('AGR-1001', 'TJM', 'Tjänstemän', 4.5, 30, NULL, '2020-01-01', 'demo-seed'),
  ('AGR-1001', 'ARB', 'Arbetare', 4.5, NULL, NULL, '2020-01-01', 'demo-seed'),
  ('AGR-1001', 'FAST', 'Fast premie', NULL, NULL, 1500, '2020-01-01', 'demo-seed')
ON CONFLICT DO NOTHING;
INSERT INTO agreement_cost_centers (agreement_number, code, name, message_id) VALUES
  ('AGR-1001', '100', 'Ekonomi', 'demo-seed'),
  ('AGR-1001', '200', 'Produktion', 'demo-seed'),
  ('AGR-1001', '300', 'Försäljning', 'demo-seed')
ON CONFLICT DO NOTHING;
INSERT INTO agreement_contacts (agreement_number, personal_identity_number, name, role, email, phone, valid_from, message_id)
SELECT c.* FROM (VALUES
  ('AGR-1001', '198807141232', 'Fia Fransson', 'HrAdministrator', 'fia.fransson@demo-employer.example', '+46701234567', '2020-01-01'::date, 'demo-seed'),
  ('AGR-1001', '197311051234', 'Gustav Gran', 'CaseHandler', 'gustav.gran@demo-admin.example', NULL, '2020-01-01'::date, 'demo-seed')
) AS c(agreement_number, personal_identity_number, name, role, email, phone, valid_from, message_id)
 WHERE NOT EXISTS (SELECT 1 FROM agreement_contacts x WHERE x.message_id = 'demo-seed');

INSERT INTO employments (agreement_number, personal_identity_number, start_date, end_date, end_reason) VALUES
  ('AGR-1001', '197001011233', '2020-01-01', NULL, NULL),
  ('AGR-1001', '198002021239', '2020-01-01', NULL, NULL),
  ('AGR-1001', '199003031235', '2021-09-01', NULL, NULL),
  ('AGR-1001', '198512121230', '2026-03-01', NULL, NULL),
  ('AGR-1001', '197607151235', '2020-01-01', '2026-06-30', 'Resignation'),
  ('AGR-1001', '199204221239', '2026-10-01', NULL, NULL)
ON CONFLICT DO NOTHING;

INSERT INTO insurances (insurance_number, agreement_number, insured_pin, product_code, start_date, policyholder, custody_account) VALUES
  ('INS-100001', 'AGR-1001', '197001011233', 'TJP-DEPA', '2020-01-01', '5561234567', 'DEPA-100001'),
  ('INS-100002', 'AGR-1001', '198002021239', 'TJP-DEPA', '2020-01-01', '5561234567', 'DEPA-100002'),
  ('INS-100003', 'AGR-1001', '199003031235', 'TJP-DEPA', '2021-09-01', '5561234567', 'DEPA-100003'),
  ('INS-100004', 'AGR-1001', '198512121230', 'TJP-DEPA', '2026-03-01', '5561234567', 'DEPA-100004'),
  ('INS-100005', 'AGR-1001', '197607151235', 'TJP-DEPA', '2020-01-01', '5561234567', 'DEPA-100005'),
  ('INS-100006', 'AGR-1001', '197001011233', 'KF-DEPA', '2022-01-01', '5561234567', 'DEPA-100006')
ON CONFLICT DO NOTHING;

-- The demo insurances carry their kind's standard coverages (standardCoverages): the capital insurance repayment protection.
INSERT INTO insurance_coverages (insurance_number, coverage_type, from_date, message_id)
SELECT i.insurance_number, 'repaymentProtection', i.start_date, 'demo-seed'
  FROM insurances i JOIN products p ON p.code = i.product_code
 WHERE i.agreement_number = 'AGR-1001' AND p.kind = 'K'
ON CONFLICT DO NOTHING;

-- Every demo insurance's custody account is held by the demo custodian.
INSERT INTO custody_accounts (account_number, custodian_id, opened_on)
SELECT custody_account, 'demo-custodian', start_date FROM insurances WHERE custody_account LIKE 'DEPA-1%'
ON CONFLICT DO NOTHING;

INSERT INTO employment_categories (employment_id, category_code, effective_date, message_id)
SELECT e.id, c.category_code, e.start_date, 'demo-seed'
  FROM employments e JOIN (VALUES ('197001011233', 'TJM'), ('198002021239', 'ARB'), ('199003031235', 'TJM'),
                                  ('198512121230', 'TJM'), ('197607151235', 'ARB'), ('199204221239', 'TJM'))
       AS c(pin, category_code) ON c.pin = e.personal_identity_number
 WHERE e.agreement_number = 'AGR-1001'
   AND NOT EXISTS (SELECT 1 FROM employment_categories x WHERE x.employment_id = e.id AND x.message_id = 'demo-seed');
INSERT INTO employment_cost_centers (employment_id, cost_center, effective_date, message_id)
SELECT e.id, c.cost_center, e.start_date, 'demo-seed'
  FROM employments e JOIN (VALUES ('197001011233', '100'), ('198002021239', '200'), ('199003031235', '300'),
                                  ('198512121230', '100'), ('197607151235', '200'), ('199204221239', '300'))
       AS c(pin, cost_center) ON c.pin = e.personal_identity_number
 WHERE e.agreement_number = 'AGR-1001'
   AND NOT EXISTS (SELECT 1 FROM employment_cost_centers x WHERE x.employment_id = e.id AND x.message_id = 'demo-seed');

INSERT INTO insurance_premiums (insurance_number, effective_date, monthly_amount, message_id)
SELECT i.insurance_number, i.start_date, CASE i.product_code WHEN 'KF-DEPA' THEN 1000 ELSE 1800 END, 'demo-seed'
  FROM insurances i
 WHERE i.agreement_number = 'AGR-1001'
   AND NOT EXISTS (SELECT 1 FROM insurance_premiums x WHERE x.insurance_number = i.insurance_number AND x.message_id = 'demo-seed');

-- Cecilia is on parental leave: billing of her insurance stopped from 2026-09-01.
INSERT INTO billing_events (insurance_number, event, effective_date, reason, message_id)
SELECT 'INS-100003', 'Stop', '2026-09-01', 'ParentalLeave', 'demo-seed'
 WHERE NOT EXISTS (SELECT 1 FROM billing_events WHERE insurance_number = 'INS-100003' AND message_id = 'demo-seed');

INSERT INTO fund_allocations (insurance_number, purpose, effective_date, message_id)
SELECT i.insurance_number, 'DistributionPlan', i.start_date, 'demo-seed'
  FROM insurances i
 WHERE i.agreement_number = 'AGR-1001'
   AND NOT EXISTS (SELECT 1 FROM fund_allocations x WHERE x.insurance_number = i.insurance_number AND x.message_id = 'demo-seed');
INSERT INTO fund_allocation_lines (allocation_id, isin, percent, message_id)
SELECT a.id, l.isin, l.percent, 'demo-seed'
  FROM fund_allocations a CROSS JOIN (VALUES ('SE000DEPA010', 60::numeric), ('SE000DEPA044', 40::numeric)) AS l(isin, percent)
 WHERE a.message_id = 'demo-seed'
ON CONFLICT DO NOTHING;

INSERT INTO insurance_paid_up (insurance_number, paid_up_from, message_id)
SELECT 'INS-100005', '2026-07-01', 'demo-seed'
 WHERE NOT EXISTS (SELECT 1 FROM insurance_paid_up WHERE insurance_number = 'INS-100005');

INSERT INTO insurance_fees (insurance_number, fee_type, value, effective_date, message_id)
SELECT i.insurance_number, f.fee_type, f.value, i.start_date, 'demo-seed'
  FROM insurances i CROSS JOIN (VALUES ('FixedCharge', ${DEMO_STANDARD_CHARGES.annualFixed}::numeric), ('CapitalCharge', ${DEMO_STANDARD_CHARGES.capitalPercent}::numeric)) AS f(fee_type, value)
 WHERE i.agreement_number = 'AGR-1001'
   AND NOT EXISTS (SELECT 1 FROM insurance_fees x WHERE x.insurance_number = i.insurance_number AND x.message_id = 'demo-seed');

INSERT INTO salaries (employment_id, effective_date, annual_salary, currency, message_id)
SELECT e.id, e.start_date, 480000, 'SEK', 'demo-seed' FROM employments e
 WHERE e.agreement_number = 'AGR-1001'
   AND NOT EXISTS (SELECT 1 FROM salaries s WHERE s.employment_id = e.id AND s.message_id = 'demo-seed');
`;

/** The demo funds, loaded (ISINs checked) before the rows that choose them. */
export const DEMO_FUNDS: readonly FundListing[] = [
  { isin: 'SE000DEPA010', name: 'Depå Global Index', productCodes: ['TJP-DEPA', 'PPF-DEPA', 'KF-DEPA'] },
  { isin: 'SE000DEPA028', name: 'Depå Sverige Index', productCodes: ['TJP-DEPA', 'PPF-DEPA', 'KF-DEPA'] },
  { isin: 'SE000DEPA036', name: 'Depå Hållbar Global', productCodes: ['TJP-DEPA', 'TJP-DEPA-ESG', 'KF-DEPA'] },
  { isin: 'SE000DEPA044', name: 'Depå Räntefond Kort', productCodes: ['TJP-DEPA', 'TJP-DEPA-ESG', 'PPF-DEPA', 'KF-DEPA'] },
  { isin: 'SE000DEPA051', name: 'Depå Tillväxtmarknad', productCodes: ['KF-DEPA'] },
  { isin: 'LU00GLOBAL16', name: 'Lux Global Equity', productCodes: ['KF-DEPA'] },
];

export async function seedDemoData(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.exec(DEMO_PRODUCTS_SQL);
    await loadFunds(tx, DEMO_FUNDS);
    await tx.exec(DEMO_SQL);
  });
  await seedDemoCatalogue(db);
}
