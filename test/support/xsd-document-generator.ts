/**
 * Generates random documents that follow a request schema, walking the schema model
 * (src/messages/schema-model.ts) rather than a hand-written template, so every
 * optional element, choice and facet of every type gets exercised as the schemas
 * evolve. Values are random within the facets; for a few well-known fields the
 * generator often picks a fact of the demo ledger instead (the agreement, its
 * persons and insurances, its categories and funds) so that documents reach the
 * business rules, not only the header checks. Seeded: a failing seed reproduces.
 */
import RandExp from 'randexp';
import { CATALOGUE_NAMESPACE } from '../../src/messages/catalogue-namespace.ts';
import { escapeXml } from '../../src/messages/xml-writer.ts';
import {
  resolveType,
  type ComplexTypeDef,
  type ElementDecl,
  type Facets,
  type ModelGroup,
  type Particle,
  type SchemaModel,
  type SimpleTypeDef,
  type TypeDef,
} from '../../src/messages/schema-model.ts';
import { DEMO } from '../../src/demo/demo-data.ts';

/** Facts of the demo ledger the generator prefers for fields of these names. */
const LEDGER_HINTS: Record<string, readonly string[]> = {
  AgreementNumber: [DEMO.agreementNumber],
  EmployerOrganisationNumber: [DEMO.employerOrganisationNumber],
  PersonalIdentityNumber: [...Object.values(DEMO.persons), ...Object.values(DEMO.contacts)],
  InsuranceNumber: ['INS-100001', 'INS-100002', 'INS-100003', 'INS-100004', 'INS-100005', 'INS-100006'],
  CategoryCode: ['TJM', 'ARB', 'FAST'],
  CostCenter: ['100', '200', '300'],
  Isin: Object.values(DEMO.funds),
  ProductCode: ['TJP-DEPA', 'TJP-DEPA-ESG', 'PPF-DEPA', 'KF-DEPA'],
  CustodianOrganisationNumber: ['5560000001'],
  AccountNumber: DEMO.custodyAccounts,
  Year: ['2021', '2022', '2023', '2024', '2025'],
  // Commission files: the demo advisor firm, whole-month periods of 2026, fees within the demo caps.
  AdvisorFirmOrganisationNumber: ['5565555553'],
  PeriodFrom: ['2026-01-01', '2026-10-01'],
  PeriodTo: ['2026-12-31'],
  CommissionPercent: ['0.05', '0.1', '0.25'],
};

/** The demo ledger's insurances by insured person, so an item's insurance can belong to its person. */
const INSURANCES_OF: Record<string, readonly string[]> = {
  [DEMO.persons.anna]: ['INS-100001', 'INS-100006'],
  [DEMO.persons.bertil]: ['INS-100002'],
  [DEMO.persons.cecilia]: ['INS-100003'],
  [DEMO.persons.david]: ['INS-100004'],
  [DEMO.persons.eva]: ['INS-100005'],
};

export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 1;
  }

  /** A float in [0, 1): xorshift32, good enough for test data. */
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 0x1_0000_0000;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(values: readonly T[]): T {
    const value = values[this.int(0, values.length - 1)];
    if (value === undefined) throw new Error('pick from an empty list');
    return value;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }
}

/** What the generator remembers while writing one item: the person it is about. */
interface Memory {
  person?: string;
}

export function generateDocument(model: SchemaModel, rootName: string, random: Random): string {
  const root = model.elements.get(rootName);
  if (!root) throw new Error(`no schema declares ${rootName}`);
  const lines: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  writeElement(model, root, random, lines, '', {}, true);
  return `${lines.join('\n')}\n`;
}

function writeElement(model: SchemaModel, decl: ElementDecl, random: Random, lines: string[], indent: string, memory: Memory, root = false): void {
  const type = resolveType(model, decl.type);
  const xmlns = root ? ` xmlns="${CATALOGUE_NAMESPACE}"` : '';
  if (decl.type === 'FundAllocation' && random.chance(0.7)) {
    lines.push(`${indent}<${decl.name}>`, ...coherentAllocation(random, `${indent}  `), `${indent}</${decl.name}>`);
    return;
  }
  if (type?.kind === 'complex' && !type.simpleContent) {
    lines.push(`${indent}<${decl.name}${xmlns}${attributesOf(model, type, random)}>`);
    // Each item starts afresh: its person is chosen by its own PersonalIdentityNumber.
    if (type.content) writeGroup(model, type.content, random, lines, `${indent}  `, decl.name === 'Item' ? {} : memory);
    lines.push(`${indent}</${decl.name}>`);
    return;
  }
  const attributes = type?.kind === 'complex' ? attributesOf(model, type, random) : '';
  const text = valueOf(model, decl.name, type?.kind === 'complex' ? (type.simpleContent ?? 'xs:string') : decl.type, random, memory);
  lines.push(`${indent}<${decl.name}${xmlns}${attributes}>${escapeXml(text)}</${decl.name}>`);
}

/**
 * A fund allocation that sums to 100 over funds most products offer, so that
 * allocation documents reach the rules after the allocation checks too; the rest of
 * the time the allocation is as random as the schema allows.
 */
function coherentAllocation(random: Random, indent: string): string[] {
  const funds = random.chance(0.5) ? [DEMO.funds.interest] : [DEMO.funds.interest, DEMO.funds.sustainable];
  const first = funds.length === 1 ? 100 : random.int(1, 99);
  return funds.flatMap((isin, index) => [
    `${indent}<Fund>`,
    `${indent}  <Isin>${isin}</Isin>`,
    `${indent}  <Percent>${index === 0 ? first : 100 - first}</Percent>`,
    `${indent}</Fund>`,
  ]);
}

function attributesOf(model: SchemaModel, type: ComplexTypeDef, random: Random): string {
  return type.attributes
    .filter((attribute) => attribute.required || random.chance(0.3))
    .map((attribute) => ` ${attribute.name}="${escapeXml(attribute.defaultValue ?? valueOf(model, attribute.name, attribute.type, random, {}))}"`)
    .join('');
}

function repetitions(random: Random, min: number, max: number, name?: string): number {
  const cap = name === 'Item' ? 6 : 3;
  return random.int(min, Math.min(max, Math.max(min, cap)));
}

function writeGroup(model: SchemaModel, group: ModelGroup, random: Random, lines: string[], indent: string, memory: Memory): void {
  const times = repetitions(random, group.minOccurs, group.maxOccurs);
  for (let i = 0; i < times; i++) {
    if (group.kind === 'choice') writeParticle(model, random.pick(group.particles), random, lines, indent, memory);
    else for (const particle of group.particles) writeParticle(model, particle, random, lines, indent, memory);
  }
}

function writeParticle(model: SchemaModel, particle: Particle, random: Random, lines: string[], indent: string, memory: Memory): void {
  if (particle.kind !== 'element') {
    writeGroup(model, particle, random, lines, indent, memory);
    return;
  }
  const min = particle.minOccurs === 0 && random.chance(0.6) ? 1 : particle.minOccurs;
  const times = repetitions(random, min, particle.maxOccurs, particle.name);
  for (let i = 0; i < times; i++) writeElement(model, particle, random, lines, indent, particle.name === 'Item' ? {} : memory);
}

/** A random value of a simple type: a ledger fact for well-known fields, otherwise within the facets. */
function valueOf(model: SchemaModel, name: string, typeRef: string | TypeDef, random: Random, memory: Memory): string {
  const owned = name === 'InsuranceNumber' && memory.person ? INSURANCES_OF[memory.person] : undefined;
  const hints = owned ?? LEDGER_HINTS[name] ?? (typeof typeRef === 'string' ? LEDGER_HINTS[typeRef] : undefined);
  if (hints && random.chance(0.85)) {
    const value = random.pick(hints);
    if (name === 'PersonalIdentityNumber') memory.person = value;
    return value;
  }
  const { builtin, facets } = flatten(model, typeRef);
  if (facets.enumeration.length > 0) return random.pick(facets.enumeration);
  const pattern = facets.patterns[0];
  if (pattern !== undefined) return fromPattern(pattern, facets, random);
  switch (builtin) {
    case 'xs:date':
      return randomDate(random);
    case 'xs:dateTime':
      return `${randomDate(random)}T${String(random.int(0, 23)).padStart(2, '0')}:${String(random.int(0, 59)).padStart(2, '0')}:00+01:00`;
    case 'xs:decimal':
      return randomDecimal(facets, random);
    case 'xs:positiveInteger':
    case 'xs:int':
    case 'xs:integer':
    case 'xs:nonNegativeInteger': {
      // Within the type's inclusive bounds where it has them (an age of 0–100), else 0 (1) to 9999.
      const low = Math.max(builtin === 'xs:positiveInteger' ? 1 : 0, Number(facets.minInclusive ?? 0));
      const high = Math.min(9999, Number(facets.maxInclusive ?? 9999));
      return String(random.int(low, Math.max(low, high)));
    }
    case 'xs:boolean':
      return random.pick(['true', 'false']);
    default:
      return randomText(facets, random);
  }
}

/** Follows restrictions down to the built-in base, gathering the facets (inner ones win). */
function flatten(model: SchemaModel, typeRef: string | TypeDef): { builtin: string; facets: Facets } {
  const chain: SimpleTypeDef[] = [];
  let current: string | TypeDef = typeRef;
  for (;;) {
    const type = resolveType(model, current);
    if (type === undefined) break;
    if (type.kind !== 'simple') throw new Error(`expected a simple type, got complex ${type.name ?? '(anonymous)'}`);
    chain.push(type);
    current = type.base;
  }
  const facets: Facets = chain.reduceRight<Facets>(
    (merged, type) => ({
      ...merged,
      ...Object.fromEntries(Object.entries(type.facets).filter(([, value]) => value !== undefined && !(Array.isArray(value) && value.length === 0))),
    }),
    { patterns: [], enumeration: [] },
  );
  return { builtin: typeof current === 'string' ? current : 'xs:string', facets };
}

function fromPattern(pattern: string, facets: Facets, random: Random): string {
  const generator = new RandExp(`^(?:${pattern})$`);
  generator.max = 8;
  generator.randInt = (from: number, to: number) => random.int(from, to);
  for (let attempt = 0; attempt < 50; attempt++) {
    const value = generator.gen();
    if (value.length >= (facets.minLength ?? 0) && value.length <= (facets.maxLength ?? Number.POSITIVE_INFINITY)) return value;
  }
  throw new Error(`no value of pattern ${pattern} fits the length facets`);
}

function randomDate(random: Random): string {
  // Around the test clock (2026-11-22), so dates land on both sides of every rule.
  const day = new Date(Date.UTC(2025, 5, 1) + random.int(0, 760) * 86_400_000);
  return day.toISOString().slice(0, 10);
}

function randomDecimal(facets: Facets, random: Random): string {
  const decimals = Math.min(facets.fractionDigits ?? 2, 2);
  const low = Number(facets.minInclusive ?? facets.minExclusive ?? 0);
  const integerDigits = (facets.totalDigits ?? 9) - (facets.fractionDigits ?? 0);
  // Half the time a modest value (fees, percentages, premiums live there), else anything the facets allow.
  const ceiling = random.chance(0.5) ? 2000 : 10 ** Math.min(integerDigits, 7) - 1;
  const high = Math.max(Math.min(Number(facets.maxInclusive ?? facets.maxExclusive ?? ceiling), ceiling), low);
  const scale = 10 ** decimals;
  // Integer arithmetic on the scaled value: the text has exactly the digits chosen.
  let scaled = random.int(Math.ceil(low * scale), Math.floor(high * scale));
  if (facets.minExclusive !== undefined && scaled <= Number(facets.minExclusive) * scale) scaled += 1;
  if (facets.maxExclusive !== undefined && scaled >= Number(facets.maxExclusive) * scale) scaled -= 1;
  const sign = scaled < 0 ? '-' : '';
  const digits = String(Math.abs(scaled)).padStart(decimals + 1, '0');
  return decimals === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

function randomText(facets: Facets, random: Random): string {
  const length = random.int(Math.max(facets.minLength ?? 1, 1), Math.min(facets.maxLength ?? 24, 24));
  const letters = 'abcdefghijklmnopqrstuvwxyzåäöABCDEFGHIJKLMNOPQRSTUVWXYZÅÄÖ ';
  let text = '';
  for (let i = 0; i < length; i++) text += letters[random.int(0, letters.length - 1)];
  return text.trim() || 'x';
}
