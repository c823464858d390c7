import { createHash } from 'node:crypto';
import type { Database } from '../ledger/database.ts';
import { renderTextPdf } from '../documents/text-pdf.ts';

/**
 * The demo ledger's side for the REST API: which products are offered and how, their
 * documents (small PDFs, one with two versions), an advisor firm with two offices and
 * its advisors (each with a demo e-mail address), another firm, and a power of
 * attorney the demo firm holds. With it a newcomer can call every path of docs/rest.md
 * with the demo client. Idempotent; a demo document whose text was corrected here
 * replaces the one an older demo ledger holds (the demo only: a real catalogue's
 * published versions are never rewritten).
 */
/**
 * The demo products' standard charges: what their documents state and what the demo
 * ledger charges (`products.standard_*`, the demo insurances' fees in demo-data.ts) —
 * one figure for both, so the product sheet a customer reads is what is debited.
 */
export const DEMO_STANDARD_CHARGES = { annualFixed: '360', capitalPercent: '0.35' } as const;

/** A decimal as a Swedish document writes it: 0.35 → "0,35". */
function swedishDecimal(value: string): string {
  return value.replace('.', ',');
}

const CHARGES_LINE = `Avgifter: fast avgift ${DEMO_STANDARD_CHARGES.annualFixed} kr per år, kapitalavgift ${swedishDecimal(DEMO_STANDARD_CHARGES.capitalPercent)} % per år.`;

export const DEMO_ADVISORS = {
  firm: { organisationNumber: '5565555553', name: 'Demo Rådgivning AB' },
  otherFirm: { organisationNumber: '5567777775', name: 'Annan Förmedling AB' },
  advisor: 'ADV-001',
  inactiveAdvisor: 'ADV-002',
  otherFirmAdvisor: 'ADV-900',
  /** Customers the demo firm holds a power of attorney on: Anna (insured) and the demo employer (policyholder). */
  customersWithPower: ['197001011233', '5561234567'],
} as const;

const CATALOGUE_SQL = `
UPDATE products SET line = 'occupational' WHERE code IN ('TJP-DEPA', 'TJP-DEPA-ESG') AND line <> 'occupational';
UPDATE products SET standard_fixed_charge = ${DEMO_STANDARD_CHARGES.annualFixed}, standard_capital_charge = ${DEMO_STANDARD_CHARGES.capitalPercent} WHERE standard_fixed_charge = 0;

INSERT INTO advisor_firms (organisation_number, name) VALUES
  ('5565555553', 'Demo Rådgivning AB'),
  ('5567777775', 'Annan Förmedling AB')
ON CONFLICT DO NOTHING;
INSERT INTO advisor_offices (office_code, organisation_number, name) VALUES
  ('STHLM', '5565555553', 'Stockholm City'),
  ('GBG', '5565555553', 'Göteborg'),
  ('MALMO', '5567777775', 'Malmö')
ON CONFLICT DO NOTHING;
INSERT INTO advisors (advisor_code, organisation_number, office_code, name, personal_identity_number, active, email) VALUES
  ('ADV-001', '5565555553', 'STHLM', 'Karin Lind', '198105171238', true, 'karin.lind@demo-radgivning.example'),
  ('ADV-002', '5565555553', 'GBG', 'Olof Berg', '197409232340', false, 'olof.berg@demo-radgivning.example'),
  ('ADV-900', '5567777775', 'MALMO', 'Nils Ek', '199011113454', true, 'nils.ek@annan-formedling.example')
ON CONFLICT DO NOTHING;
-- Demo ledgers seeded before advisors had an e-mail get theirs.
UPDATE advisors a SET email = d.email
  FROM (VALUES ('ADV-001', 'karin.lind@demo-radgivning.example'), ('ADV-002', 'olof.berg@demo-radgivning.example'), ('ADV-900', 'nils.ek@annan-formedling.example')) AS d(code, email)
 WHERE a.advisor_code = d.code AND a.email IS NULL;

INSERT INTO powers_of_attorney (holder_organisation_number, customer_id, kind, valid_from, valid_to, created_at, created_by)
SELECT '5565555553', p.customer_id, p.kind, '2026-01-01', NULL, '2026-01-01T08:00:00Z', 'demo-seed'
  FROM (VALUES ('197001011233', 'intermediation'), ('5561234567', 'information')) AS p(customer_id, kind)
 WHERE NOT EXISTS (SELECT 1 FROM powers_of_attorney x WHERE x.customer_id = p.customer_id AND x.created_by = 'demo-seed');
INSERT INTO power_of_attorney_changes (power_of_attorney_id, change, changed_at, changed_by, details)
SELECT id, 'granted', created_at, created_by, jsonb_build_object('holder', holder_organisation_number, 'customer', customer_id, 'kind', kind, 'validFrom', valid_from)
  FROM powers_of_attorney p
 WHERE created_by = 'demo-seed' AND NOT EXISTS (SELECT 1 FROM power_of_attorney_changes c WHERE c.power_of_attorney_id = p.id);
`;

interface DemoDocument {
  readonly id: string;
  readonly version: number;
  readonly product: string;
  readonly title: string;
  readonly kind: string;
  readonly published: string;
  readonly lines: readonly string[];
}

/** The demo products' documents; each version of a product sheet states the charges the demo ledger debits. */
export const DEMO_DOCUMENTS: readonly DemoDocument[] = [
  { id: 'KF-DEPA-PPI', version: 1, product: 'KF-DEPA', title: 'Förköpsinformation Kapitalförsäkring Depå', kind: 'pre-purchase-information', published: '2025-01-01', lines: [CHARGES_LINE] },
  { id: 'KF-DEPA-PPI', version: 2, product: 'KF-DEPA', title: 'Förköpsinformation Kapitalförsäkring Depå', kind: 'pre-purchase-information', published: '2026-01-01', lines: [CHARGES_LINE, 'Avkastningsskatt enligt gällande schablon.'] },
  { id: 'KF-DEPA-TERMS', version: 1, product: 'KF-DEPA', title: 'Försäkringsvillkor Kapitalförsäkring Depå', kind: 'terms', published: '2025-01-01', lines: ['Försäkringstagaren äger försäkringen; försäkringsbolaget äger depån.'] },
  { id: 'PPF-DEPA-PPI', version: 1, product: 'PPF-DEPA', title: 'Förköpsinformation Privat pension Depå', kind: 'pre-purchase-information', published: '2025-01-01', lines: ['Uttag tidigast från 55 års ålder, under minst fem år.'] },
  { id: 'TJP-DEPA-PPI', version: 1, product: 'TJP-DEPA', title: 'Förköpsinformation Tjänstepension Depå', kind: 'pre-purchase-information', published: '2025-01-01', lines: ['Premien betalas av arbetsgivaren enligt tjänstepensionsplanen.'] },
  { id: 'TJP-DEPA-ESG-FUNDS', version: 1, product: 'TJP-DEPA-ESG', title: 'Fondutbud Tjänstepension Depå Hållbar', kind: 'fund-list', published: '2025-06-01', lines: ['Depå Hållbar Global (SE000DEPA036)', 'Depå Räntefond Kort (SE000DEPA044)'] },
];

export async function seedDemoCatalogue(db: Database): Promise<void> {
  const files = await Promise.all(DEMO_DOCUMENTS.map(async (document) => {
    const content = await renderTextPdf(document.title, [{ heading: `Version ${document.version}, ${document.published}`, lines: document.lines }], new Date(`${document.published}T00:00:00Z`));
    return { ...document, content, sha256: createHash('sha256').update(content).digest('hex') };
  }));
  await db.transaction(async (tx) => {
    await tx.exec(CATALOGUE_SQL);
    for (const file of files) {
      await tx.query(
        `INSERT INTO product_documents (document_id, version, product_code, title, kind, published_on, content_type, content, sha256)
         VALUES ($1, $2, $3, $4, $5, $6, 'application/pdf', $7, $8)
         ON CONFLICT (document_id, version) DO UPDATE SET content = EXCLUDED.content, sha256 = EXCLUDED.sha256
         WHERE product_documents.sha256 <> EXCLUDED.sha256`,
        [file.id, file.version, file.product, file.title, file.kind, file.published, file.content, file.sha256],
      );
    }
  });
}
