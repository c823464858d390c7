import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EDGE_BYTES, rootElementClosed } from './root-element-closed.ts';

/** The check as the watcher makes it: the first and last EDGE_BYTES of the bytes. */
function closed(text: string | Buffer): boolean {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const head = bytes.subarray(0, EDGE_BYTES);
  const tail = bytes.byteLength <= EDGE_BYTES ? head : bytes.subarray(bytes.byteLength - EDGE_BYTES);
  return rootElementClosed(head, tail, bytes.byteLength);
}

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');

test('every fixture document ends where its root closes, and no cut of one before its last bytes does', () => {
  let documents = 0;
  for (const type of readdirSync(FIXTURES)) {
    const valid = join(FIXTURES, type, 'valid');
    let names: string[];
    try {
      names = readdirSync(valid).filter((name) => name.endsWith('.xml') && !name.endsWith('.response.xml'));
    } catch {
      continue;
    }
    for (const name of names) {
      const bytes = readFileSync(join(valid, name));
      documents += 1;
      assert.equal(closed(bytes), true, `${type}/${name} whole`);
      const end = bytes.lastIndexOf('</');
      for (let cut = 1; cut < end; cut += Math.max(1, Math.floor(end / 97))) {
        assert.equal(closed(bytes.subarray(0, cut)), false, `${type}/${name} cut at ${cut}`);
      }
      assert.equal(closed(bytes.subarray(0, end + 2)), false, `${type}/${name} cut inside its end tag`);
    }
  }
  assert.ok(documents >= 20, `fixtures read: ${documents}`);
});

test('a large document is judged by its first and last bytes', () => {
  const items = Array.from({ length: 2000 }, (_, i) => `<d:Item><d:No>${i}</d:No></d:Item>`).join('\n');
  const whole = `\ufeff<?xml version="1.0" encoding="UTF-8"?>\n<!-- sent by us -->\n<d:Big xmlns:d="urn:se:depot-gateway:v1" a=">">\n${items}\n</d:Big>\n<!-- end -->\n`;
  assert.ok(Buffer.byteLength(whole) > 4 * EDGE_BYTES);
  assert.equal(closed(whole), true);
  assert.equal(closed(whole.slice(0, whole.indexOf('</d:Big>'))), false);
  assert.equal(closed(whole.replace('</d:Big>', '</d:Big >')), true);
  assert.equal(closed(whole.replace('</d:Big>', '</d:BigOther>')), false, 'another element whose name begins like the root');
});

test('what follows the root, and documents without a body', () => {
  assert.equal(closed('<Doc a="1"/>'), true, 'a root written <Doc/>');
  assert.equal(closed('<Doc a="1/>">'), false, 'a "/>" inside a value does not close it');
  assert.equal(closed('<Doc></Doc>text after the root'), true, 'ended, then malformed: validation says so');
  assert.equal(closed('<?xml version="1.0"?>\n'), false, 'the prolog only');
  assert.equal(closed('<?xml version="1.0"?>\n<!-- a comment not yet'), false);
  assert.equal(closed('<SalaryAdj'), false, 'the root name not yet whole');
  assert.equal(closed(''), false, 'created, nothing written');
  assert.equal(closed('   \n'), false, 'whitespace only');
  assert.equal(closed('PK\u0003\u0004 a zip file'), true, 'not XML: nothing to wait for');
  assert.equal(closed('{"json": true}'), true);
  assert.equal(closed('<a.b-c>…</a.b-c>'), true, 'names with dots and hyphens');
  assert.equal(closed('<a.b>…</aXb>'), false);
});
