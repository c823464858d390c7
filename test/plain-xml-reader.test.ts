/**
 * The XML gate reads plain documents with its quick reader (src/messages/plain-xml-reader.ts)
 * and everything else with its full parser. The quick reader must never decide anything
 * the full parser would decide otherwise: whatever it accepts, the full parser accepts
 * with exactly the same tree — elements, namespaces, attributes, text, lines. These
 * tests hold it to that over every fixture, documents generated from every request
 * schema, and thousands of mutations of them (PLAIN_XML_MUTATIONS=100000 PLAIN_XML_SEED=7
 * npm test -- plain-xml tries more, and others).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { Catalogue } from '../src/messages/catalogue.ts';
import { readPlainXml } from '../src/messages/plain-xml-reader.ts';
import { loadSchemaModel } from '../src/messages/schema-model.ts';
import { inspectXml } from '../src/messages/xml-gate.ts';
import { generateDocument, Random } from './support/xsd-document-generator.ts';

const MAX_DEPTH = 16;
const FIXTURES = join(PROJECT_ROOT, 'fixtures');

function fixtureDocuments(): { name: string; text: string }[] {
  return (readdirSync(FIXTURES, { recursive: true }) as string[])
    .filter((path) => path.endsWith('.xml') && !path.endsWith('.response.xml'))
    .sort()
    .map((path) => ({ name: path, text: readFileSync(join(FIXTURES, path), 'utf8') }));
}

function generatedDocuments(perType: number): { name: string; text: string }[] {
  const model = loadSchemaModel(join(PROJECT_ROOT, 'schemas'));
  return new Catalogue().names.flatMap((type) =>
    Array.from({ length: perType }, (_, index) => ({ name: `${type} #${index}`, text: generateDocument(model, type, new Random(1000 + index)) })));
}

/** What the gate makes of a text, with or without its quick reader: the tree, or the rejection. */
function gate(text: string, quick: boolean): unknown {
  const result = inspectXml(Buffer.from(text, 'utf8'), { maxDepth: MAX_DEPTH }, { quick });
  return result.ok ? result.root : { code: result.code, text: result.text, line: result.line };
}

/** Holds one text to the rule; gives whether the quick reader read it. */
function check(text: string, where: string): boolean {
  assert.deepStrictEqual(gate(text, true), gate(text, false), `the gate reads ${where} otherwise with its quick reader:\n${text}`);
  return readPlainXml(text, MAX_DEPTH) !== undefined;
}

test('every valid fixture and generated document is read by the quick reader, exactly as by the full parser', () => {
  const documents = [...fixtureDocuments().filter(({ name }) => name.includes('/valid/')), ...generatedDocuments(5)];
  assert.ok(documents.length > 100);
  const unread = documents.filter(({ name, text }) => !check(text, name)).map(({ name }) => name);
  assert.deepEqual(unread, [], 'plain documents the quick reader left to the full parser');
});

test('an invalid fixture the quick reader reads gets the same tree; a hostile or broken one it leaves to the full parser', () => {
  for (const { name, text } of fixtureDocuments().filter(({ name }) => !name.includes('/valid/'))) {
    const read = check(text, name);
    const full = inspectXml(Buffer.from(text, 'utf8'), { maxDepth: MAX_DEPTH }, { quick: false });
    if (!full.ok && full.code !== 'XML_ENCODING_INVALID') assert.equal(read, false, `${name} is rejected by the full parser (${full.code}) but was read`);
  }
});

test('the constructs of plain XML read as the full parser reads them', () => {
  const cases = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<a xmlns="urn:x"><b k="v">one &amp; two &#x41;&#66;</b>\n<c><![CDATA[<raw>]]></c></a>',
    '<a x="1\n2\t3\r\n4">t\r\nu\rv</a>',
    '<a\n  x="1"\n>t<b\n/>\n<c>q</c>tail</a>',
    '<a>x<!-- c -->y<b/>z<![CDATA[w\r\nv]]></a>',
    '<p:a xmlns:p="urn:p" p:x="1"><b xmlns="urn:d"><p:c/></b><d xmlns=""/></p:a>',
    '<!-- before --><a xml:lang="sv" q=\'&quot;&apos;&lt;&gt;\'/>\n<!-- after -->\n',
    '<a>&#10;&#x1F600;😀 åäö</a>',
  ];
  for (const text of cases) assert.ok(check(text, JSON.stringify(text)), `read by the quick reader: ${JSON.stringify(text)}`);
});

test('what the quick reader leaves to the full parser', () => {
  const cases = [
    '<!DOCTYPE a><a/>', '<a>&custom;</a>', '<?pi x?><a/>', '<a><?pi x?></a>', '<a b="1"c="2"/>', '<a>]]></a>', '<a><!-- x -- y --></a>',
    '<a>&#1;</a>', '<p:a/>', '<a p:x="1"/>', '<a x="1" x="2"/>', '<a><b></a></b>', '<a/>tail', '<a/><b/>', '<å/>', '<a>\u0001</a>',
    `<a>${'<b>'.repeat(MAX_DEPTH)}${'</b>'.repeat(MAX_DEPTH)}</a>`, '<?xml version="1.1"?><a/>', '<a xmlns:p=""/>', '<a xmlns="u" xmlns="v"/>',
  ];
  for (const text of cases) assert.equal(readPlainXml(text, MAX_DEPTH), undefined, JSON.stringify(text));
});

test('no mutation of a document is read otherwise than by the full parser', () => {
  const documents = [...fixtureDocuments(), ...generatedDocuments(2)].filter(({ text }) => text.length < 20_000);
  const pieces = ['<', '>', '/', '&', ';', '"', "'", '=', ':', '!', '?', '-', '[', ']', ' ', '\n', '\r', '\t', 'x', 'é', '\u0000',
    '<!--', '-->', ']]>', '<![CDATA[', '&amp;', '&#10;', '&#0;', '&foo;', 'xmlns:p="urn:p" ', 'xmlns="" ', 'p:', '<b/>', '</b>', '<?x?>'];
  const random = new Random(Number(process.env.PLAIN_XML_SEED ?? 20261124));
  let read = 0;
  const rounds = Number(process.env.PLAIN_XML_MUTATIONS ?? 4000);
  for (let round = 0; round < rounds; round += 1) {
    const { name, text } = documents[random.int(0, documents.length - 1)]!;
    let mutated = text;
    for (let edit = random.int(1, 3); edit > 0; edit -= 1) {
      const at = random.int(0, mutated.length);
      const cut = random.int(0, 3);
      const piece = random.int(0, 3) === 0 ? '' : pieces[random.int(0, pieces.length - 1)]!;
      mutated = mutated.slice(0, at) + piece + mutated.slice(at + cut);
    }
    if (check(mutated, `${name}, mutation ${round}`)) read += 1;
  }
  assert.ok(read > rounds / 20, `some mutations are still plain XML and read by the quick reader (${read} of ${rounds})`);
});
