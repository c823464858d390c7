/**
 * What the benchmark sends: 200 benchmark agreements of the demo employer, ten
 * insured employees each, seeded with plain SQL, and SalaryAdjustment documents of
 * about 2 KB spread round-robin over those agreements.
 */
import { createRequire } from 'node:module';
import type pg from 'pg';
import { addDays, stockholmDate } from '../src/core/calendar-date.ts';

const require = createRequire(import.meta.url);
const Personnummer = require('personnummer') as { valid(value: string, options?: object): boolean };

export const EMPLOYER = '5561234567';
const NS = 'urn:se:depot-gateway:v1';
const PERSONS_PER_AGREEMENT = 10;

export interface BenchAgreement {
  readonly agreementNumber: string;
  readonly persons: readonly string[];
}

/** Luhn check digit over the 10-digit form's first nine digits (YYMMDDNNN). */
export function luhnCheckDigit(nineDigits: string): number {
  let sum = 0;
  for (let i = 0; i < nineDigits.length; i++) {
    let digit = Number(nineDigits[i]) * (i % 2 === 0 ? 2 : 1);
    if (digit > 9) digit -= 9;
    sum += digit;
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * The n-th made-up personal identity number (12 digits): a distinct birth date per n
 * from 1962-03-01 on, serial 500–899 (the demo persons use 1xx), Luhn check digit.
 * Each number is verified with the `personnummer` package.
 */
export function personalIdentityNumber(n: number): string {
  const birth = addDays('1962-03-01', n * 3);
  const ymd = birth.replaceAll('-', '');
  const serial = String(500 + (n % 400)).padStart(3, '0');
  const pin = `${ymd}${serial}${luhnCheckDigit(`${ymd.slice(2)}${serial}`)}`;
  if (!Personnummer.valid(pin, { allowCoordinationNumber: false })) throw new Error(`generated an invalid personal identity number ${pin}`);
  return pin;
}

export function benchAgreements(count: number): BenchAgreement[] {
  return Array.from({ length: count }, (_, a) => ({
    agreementNumber: `BENCH-${String(a + 1).padStart(4, '0')}`,
    persons: Array.from({ length: PERSONS_PER_AGREEMENT }, (_, p) => personalIdentityNumber(a * PERSONS_PER_AGREEMENT + p)),
  }));
}

/** Agreements, persons, employments from 2020-01-01 and TJP-DEPA insurances, in one transaction. */
export async function seedAgreements(client: pg.Client, agreements: readonly BenchAgreement[]): Promise<void> {
  const numbers = agreements.map((a) => a.agreementNumber);
  const rows = agreements.flatMap((a) => a.persons.map((pin) => ({ agreement: a.agreementNumber, pin })));
  const pins = rows.map((r) => r.pin);
  const owners = rows.map((r) => r.agreement);
  await client.query('BEGIN');
  try {
    await client.query(
      `INSERT INTO agreements (agreement_number, name, employer_organisation_number)
       SELECT n, 'Benchmark plan ' || n, $2 FROM unnest($1::text[]) AS n`,
      [numbers, EMPLOYER],
    );
    await client.query(
      `INSERT INTO persons (personal_identity_number, name) SELECT p, 'Bench person ' || p FROM unnest($1::text[]) AS p`,
      [pins],
    );
    await client.query(
      `INSERT INTO employments (agreement_number, personal_identity_number, start_date)
       SELECT a, p, DATE '2020-01-01' FROM unnest($1::text[], $2::text[]) AS t(a, p)`,
      [owners, pins],
    );
    await client.query(
      `INSERT INTO insurances (insurance_number, agreement_number, insured_pin, product_code, start_date)
       SELECT 'BINS-' || lpad(i::text, 6, '0'), a, p, 'TJP-DEPA', DATE '2020-01-01'
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(a, p, i)`,
      [owners, pins],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

export interface BenchDocument {
  /** File name in the inbox, e.g. `a-000123.xml`; its stem starts the response's name. */
  readonly name: string;
  readonly stem: string;
  readonly bytes: Buffer;
}

export interface DocumentOptions {
  /** Distinguishes the scenarios' files and message ids ('w', 'a', 'b'). */
  readonly prefix: string;
  readonly count: number;
  /** Added to the document number so amounts differ across scenarios too. */
  readonly serialOffset: number;
  readonly agreements: readonly BenchAgreement[];
  readonly itemsPerDocument: number;
  readonly now: Date;
}

/**
 * SalaryAdjustment documents: document i goes to agreement i mod N (round-robin), its
 * items name distinct employees of that agreement, effective dates lie 1–300 days
 * before today in Stockholm, and every amount is distinct per document.
 */
export function buildDocuments(options: DocumentOptions): BenchDocument[] {
  const today = stockholmDate(options.now);
  const createdAt = options.now.toISOString();
  const documents: BenchDocument[] = [];
  for (let i = 0; i < options.count; i++) {
    const serial = options.serialOffset + i;
    const stem = `${options.prefix}-${String(i).padStart(6, '0')}`;
    const messageId = `BENCH-${options.prefix.toUpperCase()}-${String(i).padStart(6, '0')}`;
    const agreement = options.agreements[i % options.agreements.length]!;
    const firstPerson = Math.floor(i / options.agreements.length);
    const items: string[] = [];
    for (let k = 0; k < options.itemsPerDocument; k++) {
      const pin = agreement.persons[(firstPerson + k) % agreement.persons.length]!;
      const effective = addDays(today, -(1 + ((serial * 7 + k * 13) % 300)));
      const salary = `${300_000 + (serial % 600_000) + k * 1_000}.${String((serial + k) % 100).padStart(2, '0')}`;
      items.push(`  <Item>
    <ItemId>${messageId}-${k + 1}</ItemId>
    <PersonalIdentityNumber>${pin}</PersonalIdentityNumber>
    <EffectiveDate>${effective}</EffectiveDate>
    <AnnualSalary currency="SEK">${salary}</AnnualSalary>
  </Item>
`);
    }
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<SalaryAdjustment xmlns="${NS}">
  <Header>
    <MessageId>${messageId}</MessageId>
    <CreatedAt>${createdAt}</CreatedAt>
    <AgreementNumber>${agreement.agreementNumber}</AgreementNumber>
    <EmployerOrganisationNumber>${EMPLOYER}</EmployerOrganisationNumber>
  </Header>
${items.join('')}</SalaryAdjustment>
`;
    documents.push({ name: `${stem}.xml`, stem, bytes: Buffer.from(xml, 'utf8') });
  }
  return documents;
}
