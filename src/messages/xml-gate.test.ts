import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { inspectXml } from './xml-gate.ts';
import { childOf, textOf } from './xml-element.ts';

const limits = { maxDepth: 8 };
const gate = (text: string | Uint8Array) => inspectXml(typeof text === 'string' ? Buffer.from(text) : text, limits);
const codeOf = (text: string | Uint8Array) => {
  const result = gate(text);
  return result.ok ? 'ok' : result.code;
};

test('a well-formed document passes with its tree, namespace and lines', () => {
  const result = gate('\uFEFF<?xml version="1.0" encoding="utf-8"?>\n<A xmlns="urn:x"><B k="v">one &amp; two</B>\n<C><![CDATA[<raw>]]></C></A>');
  assert.ok(result.ok);
  assert.equal(result.root.name, 'A');
  assert.equal(result.root.ns, 'urn:x');
  assert.equal(textOf(result.root, 'B'), 'one & two');
  assert.equal(childOf(result.root, 'B')?.attrs.k, 'v');
  assert.equal(textOf(result.root, 'C'), '<raw>');
  assert.equal(childOf(result.root, 'C')?.line, 3);
});

test('each kind of hostile or broken input has its own code', () => {
  assert.equal(codeOf('<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>'), 'XML_EXTERNAL_ENTITY');
  assert.equal(codeOf('<!DOCTYPE a [<!ENTITY % p PUBLIC "-//X" "http://127.0.0.1/x.dtd"> %p;]><a/>'), 'XML_EXTERNAL_ENTITY');
  assert.equal(codeOf('<!DOCTYPE a [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;">]><a>&b;</a>'), 'XML_ENTITY_EXPANSION');
  assert.equal(codeOf('<!DOCTYPE a SYSTEM "a.dtd"><a/>'), 'XML_DTD_FORBIDDEN');
  assert.equal(codeOf(`<a>${'<b>'.repeat(8)}${'</b>'.repeat(8)}</a>`), 'XML_TOO_DEEP');
  assert.equal(codeOf(`<a>${'<b>'.repeat(7)}${'</b>'.repeat(7)}</a>`), 'ok', 'exactly at the cap is fine');
  assert.equal(codeOf(Buffer.from([0x3c, 0x61, 0x3e, 0xff, 0x3c, 0x2f, 0x61, 0x3e])), 'XML_ENCODING_INVALID');
  assert.equal(codeOf('<?xml version="1.0" encoding="ISO-8859-1"?><a/>'), 'XML_ENCODING_INVALID');
  assert.equal(codeOf(' \n\t'), 'DOCUMENT_EMPTY');
  assert.equal(codeOf('<a><b></a>'), 'XML_MALFORMED');
  assert.equal(codeOf('<a/>trailing'), 'XML_MALFORMED');
  assert.equal(codeOf('<a>&undefined;</a>'), 'XML_MALFORMED');
});

test('a rejection says where: the byte that is not UTF-8, the line that is malformed', () => {
  const encoding = gate(Buffer.concat([Buffer.from('<a>ok'), Buffer.from([0xc3]), Buffer.from('</a>')]));
  assert.ok(!encoding.ok);
  assert.match(encoding.text, /at byte 5/);
  const malformed = gate('<a>\n<b>\n</a>');
  assert.ok(!malformed.ok);
  assert.equal(malformed.code, 'XML_MALFORMED');
  assert.equal(malformed.line, 3);
});

test('attributes past the cap of an element or of the document are refused, each with its own code', () => {
  const limited = { maxDepth: 8, maxAttributesPerElement: 4, maxAttributesPerDocument: 10 };
  const attributes = (count: number) => Array.from({ length: count }, (_, index) => ` a${index}="v"`).join('');
  const codeWith = (text: string) => {
    const result = inspectXml(Buffer.from(text), limited);
    return result.ok ? 'ok' : result.code;
  };
  assert.equal(codeWith(`<r${attributes(4)}/>`), 'ok', 'exactly at the cap is fine');
  assert.equal(codeWith(`<r${attributes(5)}/>`), 'XML_TOO_MANY_ATTRIBUTES');
  assert.equal(codeWith(`<r${attributes(4)}><s${attributes(4)}/><s${attributes(2)}/></r>`), 'ok');
  assert.equal(codeWith(`<r${attributes(4)}><s${attributes(4)}/><s${attributes(3)}/></r>`), 'XML_DOCUMENT_TOO_MANY_ATTRIBUTES');
  const flood = gate(`<r>\n<s${attributes(200_000)}/></r>`);
  assert.ok(!flood.ok);
  assert.equal(flood.code, 'XML_TOO_MANY_ATTRIBUTES', 'the default cap applies where none is named');
  assert.equal(flood.line, 2);
});
