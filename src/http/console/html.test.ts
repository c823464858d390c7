import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { html, trusted } from './html.ts';

test('values are escaped, fragments and arrays are inserted as built', () => {
  const name = `<script>alert("x")</script>&'`;
  const row = html`<td>${name}</td>`;
  assert.equal(row.text, '<td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</td>');
  assert.equal(html`<tr>${[row, html`<td>${2}</td>`]}</tr>`.text, `<tr>${row.text}<td>2</td></tr>`);
  assert.equal(html`<p>${null}${undefined}${false}${trusted('<br>')}</p>`.text, '<p><br></p>');
  assert.equal(html`<a title="${'" onmouseover="x'}">`.text, '<a title="&quot; onmouseover=&quot;x">');
});
