import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { highlightXml, prettyPrintXml } from './xml-view.ts';

test('a document is indented one element a line; an element of text stays on its line', () => {
  const raw = '<?xml version="1.0" encoding="UTF-8"?><A xmlns="urn:x"><B><C>1 &amp; 2</C><D/></B>\n  <E x="1">t</E></A>';
  assert.equal(prettyPrintXml(raw), [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<A xmlns="urn:x">',
    '  <B>',
    '    <C>1 &amp; 2</C>',
    '    <D/>',
    '  </B>',
    '  <E x="1">t</E>',
    '</A>',
  ].join('\n'));
});

test('highlighting marks up escaped text: tags, attributes and values, never the document itself', () => {
  assert.equal(
    highlightXml('<E x="1" y=\'2\'>a &lt; b</E>').text,
    '<span class="xml-tag">&lt;E</span> <span class="xml-attribute">x</span>=<span class="xml-value">&quot;1&quot;</span>'
      + ' <span class="xml-attribute">y</span>=<span class="xml-value">&#39;2&#39;</span><span class="xml-tag">&gt;</span>'
      + 'a &amp;lt; b<span class="xml-tag">&lt;/E</span><span class="xml-tag">&gt;</span>',
  );
  const hostile = highlightXml('<A><!-- <script>alert(1)</script> --><B onload="x">"</B></A>').text;
  assert.ok(!hostile.includes('<script'), 'a comment stays text');
  assert.ok(!/<B|<A/.test(hostile), 'no element of the document becomes markup');
  assert.match(hostile, /<span class="xml-comment">&lt;!-- &lt;script&gt;alert\(1\)&lt;\/script&gt; --&gt;<\/span>/);
});
