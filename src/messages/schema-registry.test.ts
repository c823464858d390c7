import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_REPORTED_SCHEMA_ERRORS, SchemaRegistry } from './schema-registry.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const schemas = SchemaRegistry.load(join(ROOT, 'schemas'));

function fixtures(type: string, kind: 'valid' | 'invalid'): { name: string; text: string }[] {
  const folder = join(ROOT, 'fixtures', type, kind);
  return readdirSync(folder)
    .filter((name) => name.endsWith('.xml') && !name.endsWith('.response.xml'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(folder, name), 'utf8') }));
}

test('validating many documents together gives each the verdict it gets alone', () => {
  for (const type of ['SalaryAdjustment', 'ChangeFee', 'EmploymentEnded']) {
    const documents = [...fixtures(type, 'valid'), ...fixtures(type, 'invalid')];
    const alone = documents.map((document) => schemas.validate(document.text, type));
    assert.ok(alone.some((errors) => errors.length > 0) && alone.some((errors) => errors.length === 0), `${type}: fixtures both valid and not`);
    assert.deepEqual(schemas.validateMany(documents.map((document) => document.text), type), alone, type);
    // Only the valid ones: one batch, all valid.
    const valid = documents.filter((_, index) => alone[index]?.length === 0).map((document) => document.text);
    assert.deepEqual(schemas.validateMany(valid, type), valid.map(() => []));
  }
});

test('one invalid document among valid ones gets its own errors with its own line numbers; the others none', () => {
  const [valid] = fixtures('SalaryAdjustment', 'valid');
  assert.ok(valid);
  const broken = valid.text.replace(/<AnnualSalary([^>]*)>[^<]*</, '<AnnualSalary$1>not money<');
  const verdicts = schemas.validateMany([valid.text, broken, valid.text], 'SalaryAdjustment');
  assert.deepEqual(verdicts[0], []);
  assert.deepEqual(verdicts[2], []);
  assert.deepEqual(verdicts[1], schemas.validate(broken, 'SalaryAdjustment'));
  assert.equal(verdicts[1]?.[0]?.element, 'AnnualSalary');
  assert.equal(verdicts[1]?.[0]?.line, broken.split('\n').findIndex((line) => line.includes('not money')) + 1);
});

test('a document whose children are in no namespace is invalid in a batch too (the batch lends it no default namespace)', () => {
  const [valid] = fixtures('SalaryAdjustment', 'valid');
  assert.ok(valid);
  // The root prefixed, every other element unqualified: only the root is in the catalogue's namespace.
  const unqualified = valid.text
    .replace('<SalaryAdjustment xmlns="urn:se:depot-gateway:v1"', '<p:SalaryAdjustment xmlns:p="urn:se:depot-gateway:v1"')
    .replace('</SalaryAdjustment>', '</p:SalaryAdjustment>');
  assert.notEqual(unqualified, valid.text);
  const alone = schemas.validate(unqualified, 'SalaryAdjustment');
  assert.ok(alone.length > 0, 'invalid alone');
  assert.deepEqual(schemas.validateMany([valid.text, unqualified], 'SalaryAdjustment'), [[], alone]);
});

test('a document libxml2 cannot parse makes validateMany throw, as validate does', () => {
  const [valid] = fixtures('SalaryAdjustment', 'valid');
  assert.ok(valid);
  assert.throws(() => schemas.validateMany([valid.text, '<SalaryAdjustment xmlns="urn:se:depot-gateway:v1"><Header>'], 'SalaryAdjustment'));
});

test('a document with hundreds of schema errors gets the first 100 and one line saying how many more', () => {
  const item = (index: number) => `<Item><ItemId>I-${index}</ItemId><PersonalIdentityNumber>197001011233</PersonalIdentityNumber><EffectiveDate>2026-04-01</EffectiveDate><AnnualSalary>not money</AnnualSalary></Item>`;
  const document = `<SalaryAdjustment xmlns="urn:se:depot-gateway:v1"><Header><MessageId>SA-MANY</MessageId><CreatedAt>2026-11-20T08:00:00+01:00</CreatedAt>` +
    `<AgreementNumber>AGR-1001</AgreementNumber><EmployerOrganisationNumber>5561234567</EmployerOrganisationNumber></Header>` +
    `${Array.from({ length: 250 }, (_, index) => item(index)).join('\n')}</SalaryAdjustment>`;
  const errors = schemas.validate(document, 'SalaryAdjustment');
  assert.equal(errors.length, MAX_REPORTED_SCHEMA_ERRORS + 1);
  assert.ok(errors.slice(0, MAX_REPORTED_SCHEMA_ERRORS).every((error) => error.element === 'AnnualSalary'));
  assert.equal(errors.at(-1)?.text, '150 more schema errors are not listed; correct the ones above and send the document again.');
});
