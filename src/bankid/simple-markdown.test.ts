import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { visibleTextAsHtml } from './simple-markdown.ts';

test("a withdrawal's text: its heading, the amount in bold, every line kept", () => {
  const text = '# Uttag från depåförsäkring\n\nJag begär uttag av **12 500,00 kr** från försäkring INS-100006\ntill konto SEB 5000 1234560.';
  assert.equal(visibleTextAsHtml(text, 'simpleMarkdownV1'), [
    '<h4>Uttag från depåförsäkring</h4>',
    '<p>Jag begär uttag av <strong>12 500,00 kr</strong> från försäkring INS-100006</p>',
    '<p>till konto SEB 5000 1234560.</p>',
  ].join('\n'));
});

test('lists, rules, italic and the smaller headings', () => {
  assert.equal(visibleTextAsHtml('## Villkor\n* ett\n+ två\n---\n+kursiv+ och *fet*', 'simpleMarkdownV1'),
    '<h5>Villkor</h5>\n<ul><li>ett</li><li>två</li></ul>\n<hr>\n<p><em>kursiv</em> och <strong>fet</strong></p>');
});

test('nothing in the text becomes markup: tags, attributes and entities are shown as written', () => {
  const hostile = '# <script>alert(1)</script>\n**<img src=x onerror="alert(2)">**\n&amp; \'quoted\'';
  const html = visibleTextAsHtml(hostile, 'simpleMarkdownV1');
  assert.doesNotMatch(html, /<script|<img/);
  assert.equal(html, [
    '<h4>&lt;script&gt;alert(1)&lt;/script&gt;</h4>',
    '<p><strong>&lt;img src=x onerror=&quot;alert(2)&quot;&gt;</strong></p>',
    '<p>&amp;amp; &#39;quoted&#39;</p>',
  ].join('\n'));
  assert.equal(visibleTextAsHtml('<b>plain</b>\n**not bold**', 'plaintext'), '<p>&lt;b&gt;plain&lt;/b&gt;<br>**not bold**</p>');
});
