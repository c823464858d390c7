import type { Database } from './database.ts';

/**
 * The demo ledger `npm start` runs on: one employer's pension agreement with five
 * insured employees, so the sample documents in fixtures/ have something to change.
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
  },
} as const;

export const DEMO_SQL = `
INSERT INTO products (code, name, kind, min_fixed_charge, max_fixed_charge, min_capital_charge, max_capital_charge) VALUES
  ('TJP-DEPA', 'Tjänstepension Depå', 'T', 0, 1200, 0, 2.0),
  ('PPF-DEPA', 'Privat pension Depå', 'P', 0, 1200, 0, 2.0),
  ('KF-DEPA',  'Kapitalförsäkring Depå', 'K', 0, 1200, 0, 1.5)
ON CONFLICT DO NOTHING;

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
  ('197607151235', 'Eva Ek')
ON CONFLICT DO NOTHING;

INSERT INTO employments (agreement_number, personal_identity_number, start_date, end_date, end_reason) VALUES
  ('AGR-1001', '197001011233', '2020-01-01', NULL, NULL),
  ('AGR-1001', '198002021239', '2020-01-01', NULL, NULL),
  ('AGR-1001', '199003031235', '2021-09-01', NULL, NULL),
  ('AGR-1001', '198512121230', '2026-03-01', NULL, NULL),
  ('AGR-1001', '197607151235', '2020-01-01', '2026-06-30', 'Resignation')
ON CONFLICT DO NOTHING;

INSERT INTO insurances (insurance_number, agreement_number, insured_pin, product_code, start_date) VALUES
  ('INS-100001', 'AGR-1001', '197001011233', 'TJP-DEPA', '2020-01-01'),
  ('INS-100002', 'AGR-1001', '198002021239', 'TJP-DEPA', '2020-01-01'),
  ('INS-100003', 'AGR-1001', '199003031235', 'TJP-DEPA', '2021-09-01'),
  ('INS-100004', 'AGR-1001', '198512121230', 'TJP-DEPA', '2026-03-01'),
  ('INS-100005', 'AGR-1001', '197607151235', 'TJP-DEPA', '2020-01-01')
ON CONFLICT DO NOTHING;

INSERT INTO insurance_paid_up (insurance_number, paid_up_from, message_id)
SELECT 'INS-100005', '2026-07-01', 'demo-seed'
 WHERE NOT EXISTS (SELECT 1 FROM insurance_paid_up WHERE insurance_number = 'INS-100005');

INSERT INTO insurance_fees (insurance_number, fee_type, value, effective_date, message_id)
SELECT i.insurance_number, f.fee_type, f.value, i.start_date, 'demo-seed'
  FROM insurances i CROSS JOIN (VALUES ('FixedCharge', 360::numeric), ('CapitalCharge', 0.35::numeric)) AS f(fee_type, value)
 WHERE i.agreement_number = 'AGR-1001'
   AND NOT EXISTS (SELECT 1 FROM insurance_fees x WHERE x.insurance_number = i.insurance_number AND x.message_id = 'demo-seed');

INSERT INTO salaries (employment_id, effective_date, annual_salary, currency, message_id)
SELECT e.id, e.start_date, 480000, 'SEK', 'demo-seed' FROM employments e
 WHERE e.agreement_number = 'AGR-1001'
   AND NOT EXISTS (SELECT 1 FROM salaries s WHERE s.employment_id = e.id AND s.message_id = 'demo-seed');
`;

export async function seedDemoData(db: Database): Promise<void> {
  await db.transaction((tx) => tx.exec(DEMO_SQL));
}
