/**
 * The text of a sign order as HTML, roughly as the BankID app shows it, for the local
 * BankID test server's page. Everything is escaped first, so nothing in the text can
 * become markup: the only tags are the ones made here. simpleMarkdownV1 text gets its
 * common marks — headings (`#`, `##`, `###`), a rule (`---`), list items (`* `, `- `,
 * `+ `), bold (`**text**` or `*text*`) and italic (`+text+`) — and any other line is
 * shown as it is. Plain text keeps its lines. It is a reading aid, not BankID's
 * renderer: what a signature covers is the text exactly as sent.
 */
export function visibleTextAsHtml(text: string, format: 'simpleMarkdownV1' | 'plaintext'): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (format === 'plaintext') return `<p>${lines.map(escapeHtml).join('<br>')}</p>`;
  const html: string[] = [];
  let list: string[] = [];
  const endList = () => {
    if (list.length > 0) html.push(`<ul>${list.map((item) => `<li>${item}</li>`).join('')}</ul>`);
    list = [];
  };
  for (const line of lines) {
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    const item = /^[*+-]\s+(.*)$/.exec(line);
    if (item) {
      list.push(inline(item[1]!));
      continue;
    }
    endList();
    if (heading) html.push(`<h${heading[1]!.length + 3}>${inline(heading[2]!)}</h${heading[1]!.length + 3}>`); // under the page's own h1–h3
    else if (/^-{3,}\s*$/.test(line)) html.push('<hr>');
    else if (line.trim() !== '') html.push(`<p>${inline(line)}</p>`);
  }
  endList();
  return html.join('\n');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Bold and italic within a line, on the escaped text (the marks themselves are never escaped). */
function inline(line: string): string {
  return escapeHtml(line)
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\*([^*\s][^*]*)\*/g, '<strong>$1</strong>')
    .replace(/\+([^+\s][^+]*)\+/g, '<em>$1</em>');
}
