import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Catalogue } from './catalogue.ts';
import { HEAD_BYTES } from './header-message-id.ts';
import { readOrderingKeyHint } from './ordering-key-hint.ts';
import { inspectXml } from './xml-gate.ts';

const catalogue = new Catalogue();
const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');

/** The key validation finds: the gate's tree read by the type's own reader; undefined where it cannot read the document. */
function keyOnValidation(bytes: Uint8Array): string | undefined {
  const gate = inspectXml(bytes, { maxDepth: 64 });
  if (!gate.ok) return undefined;
  const type = catalogue.get(gate.root.name);
  if (!type) return undefined;
  try {
    return type.orderingKey(type.read(gate.root));
  } catch {
    return undefined;
  }
}

const hint = (xml: string | Uint8Array) => readOrderingKeyHint(typeof xml === 'string' ? Buffer.from(xml) : xml, catalogue);

test('every plan-administration fixture: the key read at intake is the key validation finds', () => {
  let compared = 0;
  for (const type of readdirSync(FIXTURES)) {
    if (catalogue.get(type)?.family !== 'plan-administration') continue;
    for (const kind of ['valid', 'invalid']) {
      let files: string[];
      try {
        files = readdirSync(join(FIXTURES, type, kind)).filter((name) => name.endsWith('.xml') && !name.endsWith('.response.xml'));
      } catch {
        continue;
      }
      for (const file of files) {
        const bytes = readFileSync(join(FIXTURES, type, kind, file));
        const read = hint(bytes);
        const validated = keyOnValidation(bytes);
        // Where intake reads a key it is the validated one; where validation finds none, nothing is applied.
        if (read !== undefined && validated !== undefined) assert.equal(read, validated, `${type}/${kind}/${file}`);
        if (kind === 'valid') assert.equal(read, validated, `${type}/${kind}/${file}: read at intake`);
        compared += 1;
      }
    }
  }
  assert.ok(compared > 30, `only ${compared} fixtures compared`);
});

/** A valid SalaryAdjustment (its fixture) with another header, root or namespace. */
const FIXTURE = readFileSync(join(FIXTURES, 'SalaryAdjustment', 'valid', 'multi-item.xml'), 'utf8');
const document = (headerXml: string, root = 'SalaryAdjustment', ns = 'urn:se:depot-gateway:v1') =>
  FIXTURE.replace(/<Header>[\s\S]*?<\/Header>/, `<Header>${headerXml}</Header>`)
    .replaceAll('SalaryAdjustment', root)
    .replace('xmlns="urn:se:depot-gateway:v1"', `xmlns="${ns}"`);
const header = (agreement: string) =>
  `<MessageId>M-1</MessageId><CreatedAt>2026-11-20T08:00:00+01:00</CreatedAt><AgreementNumber>${agreement}</AgreementNumber><EmployerOrganisationNumber>5561234567</EmployerOrganisationNumber>`;

test('what the gate makes of the text is what is read: comments, CDATA, character references, white space, a prefix', () => {
  const cases = [
    document(header('AGR-1001')),
    document(header('  AGR-1001\n ')),
    document(header('AGR-<!-- a comment -->1001')),
    document(header('AGR<![CDATA[-2]]>-1001')),
    document(header('AGR&#45;1001')),
    document(header('AGR-1001<?pi here?>')),
    `\uFEFF${document(header('AGR-7'))}`,
    document(header('AGR-9')).replace('?>', '?>\n<!-- <Header><AgreementNumber>OLD</AgreementNumber></Header> -->'),
  ];
  for (const xml of cases) {
    const read = hint(xml);
    assert.notEqual(read, undefined, xml);
    assert.equal(read, keyOnValidation(Buffer.from(xml)), xml);
  }
  assert.equal(hint(document(header('AGR<![CDATA[-2]]>-1001'))), 'agreement:AGR-2-1001');
  const prefixed = `<dg:SalaryAdjustment xmlns:dg="urn:se:depot-gateway:v1"><dg:Header><dg:MessageId>M-1</dg:MessageId><dg:AgreementNumber>AGR-8</dg:AgreementNumber></dg:Header></dg:SalaryAdjustment>`;
  assert.equal(hint(prefixed), 'agreement:AGR-8');
});

test('no key where validation would not find this one: another family, another namespace, no header in the head, a doctype, not XML', () => {
  assert.equal(hint(document(header('AGR-1'), 'Holdings')), undefined);
  assert.equal(hint(document(header('AGR-1'), 'SalaryAdjustment', 'urn:example:other')), undefined);
  assert.equal(hint(document(header('AGR-1'), 'NoSuchType')), undefined);
  assert.equal(hint(`<SalaryAdjustment xmlns="urn:se:depot-gateway:v1"><Header><AgreementNumber>AGR-1</AgreementNumber>`), undefined, 'the header does not end');
  assert.equal(hint(`<SalaryAdjustment xmlns="urn:se:depot-gateway:v1"><Header><!--${'x'.repeat(HEAD_BYTES)}--><AgreementNumber>AGR-1</AgreementNumber></Header></SalaryAdjustment>`), undefined);
  assert.equal(hint(`<!DOCTYPE SalaryAdjustment [<!ENTITY a "AGR-1">]>${document(header('&a;'))}`), undefined);
  assert.equal(hint('not xml at all'), undefined);
  assert.equal(hint(Buffer.from([0x3c, 0xff, 0xfe, 0x3e])), undefined);
  assert.equal(hint(document('<MessageId>M-1</MessageId>')), undefined, 'no AgreementNumber');
});

test('the first header and its first AgreementNumber, as the typed reader takes them', () => {
  const two = `<SalaryAdjustment xmlns="urn:se:depot-gateway:v1"><Header>${header('FIRST')}<AgreementNumber>SECOND</AgreementNumber></Header><Header>${header('OTHER')}</Header></SalaryAdjustment>`;
  assert.equal(hint(two), 'agreement:FIRST');
  const nested = `<SalaryAdjustment xmlns="urn:se:depot-gateway:v1"><Item><Header>${header('ITEM')}</Header></Item><Header>${header('ROOT')}</Header></SalaryAdjustment>`;
  assert.equal(hint(nested), 'agreement:ROOT');
  const child = `<SalaryAdjustment xmlns="urn:se:depot-gateway:v1"><Header><AgreementNumber>AGR<b>x</b>-1</AgreementNumber></Header></SalaryAdjustment>`;
  assert.equal(hint(child), keyOnValidation(Buffer.from(child)) ?? 'agreement:AGR');
});
